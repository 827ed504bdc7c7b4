public import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

/// A face presence change the tracker reports; the daemon turns it into a ``PresenceEvent``.
public struct FacePresenceTransition: Sendable, Hashable {
    public var transition: PresenceEvent.Transition
    public var faceID: Int
    /// Frame index and time (seconds) of the frame on which the transition was decided.
    public var frame: Int
    public var time: Double
    /// Last known bounds, normalized device coordinates.
    public var bounds: NormalizedRect
    public init(transition: PresenceEvent.Transition, faceID: Int, frame: Int, time: Double, bounds: NormalizedRect) {
        self.transition = transition
        self.faceID = faceID
        self.frame = frame
        self.time = time
        self.bounds = bounds
    }
}

/// What the tracker produced for one frame.
public struct FaceTrackingResult: Sendable {
    /// Faces detected on this frame, with stable `faceID`s (normalized device coordinates).
    public var objects: [MetadataObject]
    /// Presence changes decided on this frame.
    public var transitions: [FacePresenceTransition]
}

/// Gives faces stable `faceID`s across frames and decides where to look.
///
/// Every ``FaceConfiguration/detectionInterval`` frames the whole frame is searched; on every frame each
/// known face is re-detected in a window around its predicted position (constant-velocity prediction).
/// Detections are assigned to tracks by a minimum-cost assignment (centre distance relative to face size
/// plus size change, gated), so two faces passing near each other keep their IDs. A face keeps its ID
/// through up to ``FaceConfiguration/maxMissedFrames`` frames without a detection; a face whose predicted
/// centre leaves the picture ends its track, so it gets a new ID when it comes back. IDs are never reused
/// within the tracker's lifetime (across sources too). Use from one thread at a time.
public final class FaceTracker {
    struct Track {
        var id: Int?  // nil while tentative
        var face: FaceCandidate  // last estimate (frame pixels)
        var vx = 0.0, vy = 0.0, vs = 0.0
        var hits = 1
        var misses = 0
        var lastSeen: Double
        var lastSeenFrame: Int
        var present = false
        /// Centre where the face was last detected (frame pixels).
        var seenX: Double
        var seenY: Double
        var roll: Double?
        var yaw: Double?
        /// Set while the face is missed with another known face over it (it passed behind): it keeps moving
        /// at the velocity it had and is looked for along that path, not where it was last seen.
        var hidden = false
        /// Centres where the face was detected on its recent frames (frame index, x, y; frame pixels), oldest
        /// first: the steady velocity a hidden face keeps moving at.
        var recent: [(frame: Int, x: Double, y: Double)] = []
    }

    /// Settings; may change between frames (a configuration reload keeps the tracker and its IDs).
    public var configuration: FaceConfiguration
    private var tracks: [Track] = []
    /// Ended tracks whose `lost` transition waits for the grace period.
    private var ending: [Track] = []
    private var nextID = 1
    /// Where faceIDs come from when shared with other trackers (several cameras); nil: ``nextID``.
    private let identifiers: IdentifierSequence?
    /// How far this tracker's search cycle is shifted, as a fraction (0 ..< 1) of the gap between its network
    /// passes: the cameras of one run spread their heaviest frames instead of running them at the same instant.
    private let searchOffset: Double
    private var frameCount = 0
    private var source: String?
    /// The detector work this tracker asked for so far: the network's passes over the whole frame (one per
    /// angle), window searches around known faces, and window searches left out because the frame's pass had
    /// already found the face.
    public struct Work: Sendable, Equatable {
        public var networkPasses = 0
        public var windowSearches = 0
        public var windowSearchesSaved = 0
    }
    public private(set) var work = Work()
    private var frameSize = PixelSize(width: 1, height: 1)

    /// - Parameter identifiers: a sequence shared with other trackers (the cameras of one run), so that no
    ///   faceID is handed out twice; nil: this tracker's own, from 1.
    /// - Parameter searchOffset: the shift of the search cycle (0 ..< 1 of the gap between network passes);
    ///   camera k of n in one run takes k / n.
    public init(
        configuration: FaceConfiguration = FaceConfiguration(), identifiers: IdentifierSequence? = nil,
        searchOffset: Double = 0
    ) {
        self.configuration = configuration
        self.identifiers = identifiers
        self.searchOffset = min(max(searchOffset, 0), 0.999)
    }

    /// The next faceID that will be handed out (IDs start at 1), when the tracker has its own sequence.
    public var nextFaceID: Int { nextID }

    /// Detects and tracks faces on `frame` of `source` using `detector`. A new `source` name starts a
    /// new scene: known faces are ended (their `lost` transitions are reported now) and the first frame is
    /// searched fully, its faces reported at once (a still image gets IDs without confirmation).
    ///
    /// With `stream` (video, Y4M, cameras) the full search is done in slices, on a copy scaled to
    /// ``FaceConfiguration/analysisShortSide``: large faces every frame, small ones spread over
    /// ``FaceConfiguration/detectionInterval`` frames (``FaceDetector/streamSearchJobs(frame:interval:frameSize:rectOfInterest:)``). Without it (still images, tests) the whole frame is searched
    /// at once every ``FaceConfiguration/detectionInterval`` frames.
    ///
    /// `skipSearch` (streams, not the first frame of a source) leaves out this frame's slice of the search for
    /// new faces; known faces are still tracked. For a pipeline that is late and sheds load.
    public func process(
        _ frame: Frame, source: String, detector: FaceDetector,
        rectOfInterest: NormalizedRect = .unit, stream: Bool = false,
        skipSearch: Bool = false
    ) throws -> FaceTrackingResult {
        var transitions: [FacePresenceTransition] = []
        if source != self.source {
            transitions += finish(frame: frame.index, time: frame.time)
            self.source = source
            frameCount = 0
        }
        frameSize = frame.size
        let turn = nextTurn()
        let roi = rectOfInterest.intersection(.unit)
        predict(within: roi, frameSize: frame.size)
        let fullHits = try searchCandidates(
            in: frame, detector: detector, turn: turn, rectOfInterest: rectOfInterest,
            stream: stream, skipSearch: skipSearch)
        // On a stream, an upright frontal face that the network's pass over the whole frame found again needs
        // no window search on this frame: the pass is the frame's longest step, and this keeps it from growing
        // by a window pass per face (issue 49: the frame→JSON tail of several cameras). On the upright pass the
        // pass's own box stands for the face; on a rotated pass (whose boxes and roll of an upright face are
        // coarse) the tracker's prediction does, confirmed by the hit. Rolled and turned faces keep their window
        // search (the window, turned by the face's roll, measures roll and yaw better).
        let pass = stream && detector.isNeural && !skipSearch && !turn.first && turn.interval > 1
        let windowHits = try windowCandidates(
            in: frame, detector: detector, except: pass && turn.position == 0 ? fullHits : [],
            holdingFor: pass && turn.position == turn.interval / 2 ? fullHits : [])
        let candidates = FaceDetector.suppressDuplicates(windowHits + fullHits)
        let matched = follow(candidates, in: frame, detector: detector, fullDetection: turn.fullDetection)
        startTracks(
            for: candidates, except: matched, fullHits: fullHits, within: roi, in: frame, detector: detector,
            first: turn.first)
        let objects = reportTracks(on: frame, transitions: &transitions)
        transitions += settleEnding(on: frame)
        return FaceTrackingResult(objects: objects, transitions: transitions)
    }

    /// Where a frame falls in the detection cycle of its source.
    struct Turn {
        /// The first frame of the source.
        var first: Bool
        var interval: Int
        /// The frame's place in its cycle (0 ..< interval) and the cycle's number.
        var position: Int
        var cycle: Int
        /// Full-detection frames: the whole search (still images) or the first slice of it (streams); the
        /// yaw of known faces is re-checked on them.
        var fullDetection: Bool { position == 0 }
    }

    /// This frame's ``Turn``; counts the frame.
    private func nextTurn() -> Turn {
        defer { frameCount += 1 }
        return Self.turn(frame: frameCount, interval: configuration.detectionInterval, searchOffset: searchOffset)
    }

    /// Frame `frame`'s turn in a cycle of `interval` frames shifted by `searchOffset` (0 ..< 1): the network runs
    /// twice a cycle (positions 0 and interval / 2), so the shift is within that half cycle.
    static func turn(frame: Int, interval: Int, searchOffset: Double) -> Turn {
        let n = frame + Int(searchOffset * Double(max(1, interval / 2)))
        return Turn(first: frame == 0, interval: interval, position: n % interval, cycle: n / interval)
    }

    /// Step 1: moves every track to its predicted position; tracks whose centre left the picture (or `roi`,
    /// normalized device coordinates) end now, so a face that comes back gets a new ID.
    private func predict(within roi: NormalizedRect, frameSize size: PixelSize) {
        let x0 = roi.minX * Double(size.width)
        let x1 = roi.maxX * Double(size.width)
        let y0 = roi.minY * Double(size.height)
        let y1 = roi.maxY * Double(size.height)
        var survivors: [Track] = []
        for var t in tracks {
            t.face.centerX += t.vx
            t.face.centerY += t.vy
            t.face.size = max(8, t.face.size + t.vs)
            if t.face.centerX < x0 || t.face.centerY < y0 || t.face.centerX >= x1 || t.face.centerY >= y1 {
                end(t)
            } else {
                survivors.append(t)
            }
        }
        tracks = survivors
    }

    /// Step 2b: re-detections in a window around each track's predicted face (frame pixels), except for tracks
    /// that one of `found` (this frame's upright full pass) plainly continues (``plainlyContinues(_:_:)``): that
    /// hit stands for the face; and for tracks that one of `held` (a rotated full pass) plainly continues: the
    /// track's prediction stands for the face, with its roll and yaw.
    private func windowCandidates(
        in frame: Frame, detector: FaceDetector, except found: [FaceCandidate], holdingFor held: [FaceCandidate]
    ) throws -> [FaceCandidate] {
        guard configuration.windowSearch else { return [] }
        var hits: [FaceCandidate] = []
        for (i, t) in tracks.enumerated() {
            var predicted = t.face
            predicted.roll = t.roll
            if continuesOnly(i, found) {
                work.windowSearchesSaved += 1
                continue
            }
            if continuesOnly(i, held) {
                work.windowSearchesSaved += 1
                predicted.yaw = t.yaw
                hits.append(predicted)
                continue
            }
            work.windowSearches += 1
            hits += try detector.search(around: predicted, in: frame.luma)
        }
        return hits
    }

    /// Whether exactly one of `hits` plainly continues track `i`, and continues no other track.
    private func continuesOnly(_ i: Int, _ hits: [FaceCandidate]) -> Bool {
        let continuing = hits.filter { Self.plainlyContinues(tracks[i], $0) }
        return continuing.count == 1
            && !tracks.indices.contains { $0 != i && Self.plainlyContinues(tracks[$0], continuing[0]) }
    }

    /// Whether `c` is plainly track `t`'s face on this frame: a track seen on the last frame, upright (roll
    /// within ±10°) and frontal (yaw 0); the candidate frontal, its roll within 15° of the track's (an upright
    /// face seen by a pass turned 30° measures up to ~12°), its centre within 0.25 face sizes of the prediction
    /// and its size within 20 %.
    static func plainlyContinues(_ t: Track, _ c: FaceCandidate) -> Bool {
        let upright = abs(t.roll ?? 0) <= 10 && abs((c.roll ?? 0) - (t.roll ?? 0)) <= 15
        let frontal = (t.yaw ?? 0) == 0 && (c.yaw ?? 0) == 0
        return t.misses == 0 && upright && frontal
            && hypot(c.centerX - t.face.centerX, c.centerY - t.face.centerY) < 0.25 * max(t.face.size, 1)
            && abs(log(max(c.size, 1) / max(t.face.size, 1))) < log(1.2)
    }

    /// Step 2a: this frame's share of the search for new faces (frame pixels): the neural network's pass,
    /// a stream's slice of cascade jobs, or the whole search on a still image's full-detection frame.
    private func searchCandidates(
        in frame: Frame, detector: FaceDetector, turn: Turn, rectOfInterest: NormalizedRect,
        stream: Bool, skipSearch: Bool
    ) throws -> [FaceCandidate] {
        if stream && detector.isNeural {
            let angles = Self.neuralSearchAngles(detector: detector, turn: turn, skipSearch: skipSearch)
            work.networkPasses += angles.count
            return angles.isEmpty
                ? [] : try detector.detectFaces(in: frame.luma, rectOfInterest: rectOfInterest, angles: angles)
        }
        if stream {
            let jobs =
                turn.first
                ? detector.allSearchJobs(frameSize: frame.size, rectOfInterest: rectOfInterest)
                : skipSearch
                    ? []
                    : detector.streamSearchJobs(
                        frame: frameCount - 1, interval: turn.interval, frameSize: frame.size,
                        rectOfInterest: rectOfInterest)
            var hits: [FaceCandidate] = []
            for job in jobs { hits += try detector.run(job, in: frame.luma, rectOfInterest: rectOfInterest) }
            return FaceDetector.suppressDuplicates(hits)
        }
        guard turn.fullDetection else { return [] }
        var hits = try detector.detectFaces(
            in: frame.luma, rectOfInterest: rectOfInterest,
            angles: detector.searchAngles(cycle: turn.first ? nil : turn.cycle), still: true)
        if turn.first && detector.configuration.estimateYaw {
            // The first frame of an input (a still image) also gets the full profile search.
            let region = PixelRect(covering: rectOfInterest.intersection(.unit), in: frame.size)
            if region.width >= 8, region.height >= 8 {
                hits = FaceDetector.suppressDuplicates(
                    hits + (try detector.detectProfiles(in: frame.luma, region: region)))
            }
        }
        return hits
    }

    /// The roll angles the network searches the whole frame at on a stream: upright on the first frame of each
    /// cycle, a rotated copy (alternating sides) half a cycle later, so no frame pays for two passes, the
    /// source's first frame included (searching it at every angle took 100–130 ms at 640×480, and delayed the
    /// frames behind it: the frame→JSON tail of a camera's first second, issue 49).
    private static func neuralSearchAngles(detector: FaceDetector, turn: Turn, skipSearch: Bool) -> [Double] {
        if turn.first { return [0] }
        if skipSearch { return [] }
        if turn.interval == 1 { return detector.searchAngles(cycle: turn.cycle) }
        if turn.position == 0 { return [0] }
        if turn.position == turn.interval / 2 { return Array(detector.searchAngles(cycle: turn.cycle).dropFirst()) }
        return []
    }

    /// Step 3: assigns `candidates` to tracks and updates each track with its candidate, or counts a miss
    /// (ending tentative tracks and those missed too long). Returns the indices of the candidates used.
    private func follow(_ candidates: [FaceCandidate], in frame: Frame, detector: FaceDetector, fullDetection: Bool)
        -> Set<Int>
    {
        let pairs = Self.assignByRecency(
            tracks: tracks.map(\.face), misses: tracks.map(\.misses), candidates: candidates
        ) { [tracks] ti, ci in
            Self.reacquires(tracks[ti], candidates[ci])
        }
        let seenNow = tracks.indices.filter { pairs[$0] != nil }.map { tracks[$0].face }
        var matchedCandidates = Set<Int>()
        var next: [Track] = []
        for (ti, var t) in tracks.enumerated() {
            if let ci = pairs[ti] {
                matchedCandidates.insert(ci)
                var c = candidates[ci]
                if c.yaw == 0 { detector.refineRoll(&c, in: frame.luma) }
                if fullDetection {
                    detector.classifyYaw(&c, in: frame.luma)
                } else if c.yaw == 0, let y = t.yaw, y == 45 || y == 315 {
                    c.yaw = y  // 45/315 is decided on full-search frames; a window hit keeps it
                }
                if c.isProfile && t.hits > 1 {
                    hold(&t, with: c, frame: frame)
                } else {
                    update(&t, with: c, frame: frame)
                }
                next.append(t)
            } else {
                t.misses += 1
                Self.coast(&t, behind: seenNow)
                if t.id == nil || t.misses > configuration.maxMissedFrames { end(t) } else { next.append(t) }
            }
        }
        tracks = next
        return matchedCandidates
    }

    /// Step 4: a new track for each unassigned candidate of the full search (`fullHits`) inside `roi`;
    /// confirmed at once on a source's first frame or when no confirmation is asked for.
    private func startTracks(
        for candidates: [FaceCandidate], except matched: Set<Int>, fullHits: [FaceCandidate],
        within roi: NormalizedRect, in frame: Frame, detector: FaceDetector, first: Bool
    ) {
        for (ci, var c) in candidates.enumerated() where !matched.contains(ci) {
            guard fullHits.contains(c) else { continue }
            let b = c.bounds(in: frame.size)
            guard roi.intersection(b).area > 0 else { continue }
            if c.yaw == 0 { detector.refineRoll(&c, in: frame.luma) }
            detector.classifyYaw(&c, in: frame.luma)
            var t = Track(
                face: c, lastSeen: frame.time, lastSeenFrame: frame.index, seenX: c.centerX, seenY: c.centerY,
                roll: c.roll, yaw: c.yaw)
            if first || configuration.confirmationFrames <= 1 { confirm(&t) }
            tracks.append(t)
        }
    }

    /// Step 5: the confirmed faces seen on `frame`, by faceID, and their presence changes (`appeared` when
    /// first seen, `lost` once missed for ``FaceConfiguration/presenceGrace``), appended to `transitions`.
    private func reportTracks(on frame: Frame, transitions: inout [FacePresenceTransition]) -> [MetadataObject] {
        var objects: [MetadataObject] = []
        for i in tracks.indices {
            let t = tracks[i]
            guard let id = t.id else { continue }
            let bounds = t.face.bounds(in: frame.size)
            if t.misses == 0 {
                objects.append(
                    MetadataObject(type: .face, bounds: bounds, faceID: id, rollAngle: t.roll, yawAngle: t.yaw))
                if !t.present {
                    tracks[i].present = true
                    transitions.append(
                        FacePresenceTransition(
                            transition: .appeared, faceID: id, frame: frame.index, time: frame.time, bounds: bounds))
                }
            } else if t.present && t.misses >= 2 && frame.time - t.lastSeen >= configuration.presenceGrace {
                // Two looked-at frames at least: frames a stall or a reload dropped were not looked at, so the
                // first frame after such a gap, whose miss may be the gap's, does not end the face's presence.
                tracks[i].present = false
                transitions.append(
                    FacePresenceTransition(
                        transition: .lost, faceID: id, frame: frame.index, time: frame.time,
                        bounds: t.lastBounds(in: frame.size)))
            }
        }
        objects.sort { ($0.faceID ?? 0) < ($1.faceID ?? 0) }
        return objects
    }

    /// Step 6: `lost` for ended tracks whose grace period is over on `frame`; the others keep waiting.
    private func settleEnding(on frame: Frame) -> [FacePresenceTransition] {
        var transitions: [FacePresenceTransition] = []
        var stillEnding: [Track] = []
        for t in ending {
            if frame.time - t.lastSeen >= configuration.presenceGrace, let id = t.id {
                transitions.append(
                    FacePresenceTransition(
                        transition: .lost, faceID: id, frame: frame.index, time: frame.time,
                        bounds: t.lastBounds(in: frame.size)))
            } else {
                stillEnding.append(t)
            }
        }
        ending = stillEnding
        return transitions
    }

    /// Ends every track now (end of a source or shutdown) and returns the `lost` transitions of faces
    /// still present, without waiting for the grace period.
    public func finish(frame: Int, time: Double) -> [FacePresenceTransition] {
        var out: [FacePresenceTransition] = []
        for t in tracks + ending where t.present {
            if let id = t.id {
                out.append(
                    FacePresenceTransition(
                        transition: .lost, faceID: id, frame: frame, time: time,
                        bounds: t.lastBounds(in: frameSize)))
            }
        }
        tracks = []
        ending = []
        source = nil
        return out
    }

    private func end(_ t: Track) {
        if t.present { ending.append(t) }
    }

    private func confirm(_ t: inout Track) {
        if let identifiers {
            t.id = identifiers.next()
        } else {
            t.id = nextID
            nextID += 1
        }
    }

    private func update(_ t: inout Track, with c: FaceCandidate, frame: Frame) {
        // Velocity: smoothed displacement per frame between detections.
        let gap = Double(max(1, frame.index - t.lastSeenFrame))
        let predictedX = t.face.centerX
        let predictedY = t.face.centerY
        let lastX = predictedX - t.vx * gap
        let lastY = predictedY - t.vy * gap
        let nvx = (c.centerX - lastX) / gap
        let nvy = (c.centerY - lastY) / gap
        let oldSize = t.face.size - t.vs * gap
        let nvs = (c.size - oldSize) / gap
        let a = 0.6
        t.vx = t.hits == 1 ? nvx : a * nvx + (1 - a) * t.vx
        t.vy = t.hits == 1 ? nvy : a * nvy + (1 - a) * t.vy
        t.vs = t.hits == 1 ? nvs : a * nvs + (1 - a) * t.vs
        t.face.centerX = c.centerX
        t.face.centerY = c.centerY
        t.face.size = 0.5 * c.size + 0.5 * t.face.size
        if let r = c.roll {
            t.roll = t.roll.map { abs($0 - r) < 20 ? 0.5 * r + 0.5 * $0 : r } ?? r
        }
        if let y = c.yaw { t.yaw = y }
        t.face.roll = t.roll
        t.face.yaw = t.yaw
        t.hits += 1
        t.misses = 0
        t.lastSeen = frame.time
        t.lastSeenFrame = frame.index
        t.seenX = c.centerX
        t.seenY = c.centerY
        t.hidden = false
        t.recent.append((frame.index, c.centerX, c.centerY))
        if t.recent.count > Self.recentCount { t.recent.removeFirst(t.recent.count - Self.recentCount) }
        if t.id == nil && t.hits >= configuration.confirmationFrames { confirm(&t) }
    }

    /// A profile-only hit on a known face keeps it (and its ID) alive and sets its yaw, but does not move
    /// it: the profile cascade also fires on half-occluded frontal faces, with boxes that drift sideways.
    private func hold(_ t: inout Track, with c: FaceCandidate, frame: Frame) {
        t.vx *= 0.85
        t.vy *= 0.85
        t.vs *= 0.5
        if let y = c.yaw { t.yaw = y }
        t.face.yaw = t.yaw
        t.hits += 1
        t.misses = 0
        t.lastSeen = frame.time
        t.lastSeenFrame = frame.index
    }

}

extension FaceTracker.Track {
    func lastBounds(in size: PixelSize) -> NormalizedRect { face.bounds(in: size) }
}
