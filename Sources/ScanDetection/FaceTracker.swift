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
        self.transition = transition; self.faceID = faceID; self.frame = frame; self.time = time; self.bounds = bounds
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
        var id: Int?              // nil while tentative
        var face: FaceCandidate   // last estimate (frame pixels)
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
    }

    /// Settings; may change between frames (a configuration reload keeps the tracker and its IDs).
    public var configuration: FaceConfiguration
    private var tracks: [Track] = []
    /// Ended tracks whose `lost` transition waits for the grace period.
    private var ending: [Track] = []
    private var nextID = 1
    private var frameCount = 0
    private var source: String?
    private var frameSize = PixelSize(width: 1, height: 1)

    public init(configuration: FaceConfiguration = FaceConfiguration()) {
        self.configuration = configuration
    }

    /// The next faceID that will be handed out (IDs start at 1).
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
    public func process(_ frame: Frame, source: String, detector: FaceDetector,
                        rectOfInterest: NormalizedRect = .unit, stream: Bool = false,
                        skipSearch: Bool = false) throws -> FaceTrackingResult {
        var transitions: [FacePresenceTransition] = []
        if source != self.source {
            transitions += finish(frame: frame.index, time: frame.time)
            self.source = source
            frameCount = 0
        }
        frameSize = frame.size
        let first = frameCount == 0
        let interval = configuration.detectionInterval
        let position = frameCount % interval
        let cycle = frameCount / interval
        // Full-detection frames: the whole search (still images) or the first slice of it (streams); the
        // yaw of known faces is re-checked on them.
        let fullDetection = position == 0
        frameCount += 1

        // 1. Predict; tracks whose centre left the picture (or the rect of interest) end now, so a face
        //    that comes back gets a new ID.
        let roi = rectOfInterest.intersection(.unit)
        let x0 = roi.minX * Double(frame.width), x1 = roi.maxX * Double(frame.width)
        let y0 = roi.minY * Double(frame.height), y1 = roi.maxY * Double(frame.height)
        var survivors: [Track] = []
        for var t in tracks {
            t.face.centerX += t.vx; t.face.centerY += t.vy
            t.face.size = max(8, t.face.size + t.vs)
            if t.face.centerX < x0 || t.face.centerY < y0 || t.face.centerX >= x1 || t.face.centerY >= y1 {
                end(t)
            } else {
                survivors.append(t)
            }
        }
        tracks = survivors

        // 2. Candidates: window re-detection around each track, then the full frame when due.
        var windowHits: [FaceCandidate] = []
        if configuration.windowSearch {
            for t in tracks {
                var predicted = t.face
                predicted.roll = t.roll
                windowHits += try detector.search(around: predicted, in: frame.luma)
            }
        }
        var fullHits: [FaceCandidate] = []
        if stream && detector.isNeural {
            // The network searches the whole frame in one pass: upright on the first frame of each cycle, a
            // rotated copy (alternating sides) half a cycle later, so no frame pays for two passes.
            var angles: [Double] = []
            let rotated = Array(detector.searchAngles(cycle: cycle).dropFirst())
            if first { angles = detector.searchAngles(cycle: nil) }
            else if skipSearch { angles = [] }
            else if interval == 1 { angles = detector.searchAngles(cycle: cycle) }
            else if position == 0 { angles = [0] }
            else if position == interval / 2 { angles = rotated }
            if !angles.isEmpty {
                fullHits = try detector.detectFaces(in: frame.luma, rectOfInterest: rectOfInterest, angles: angles)
            }
        } else if stream {
            let jobs = first ? detector.allSearchJobs(frameSize: frame.size, rectOfInterest: rectOfInterest)
                : skipSearch ? []
                : detector.streamSearchJobs(frame: frameCount - 1, interval: interval, frameSize: frame.size,
                                            rectOfInterest: rectOfInterest)
            for job in jobs { fullHits += try detector.run(job, in: frame.luma, rectOfInterest: rectOfInterest) }
            fullHits = FaceDetector.suppressDuplicates(fullHits)
        } else if fullDetection {
            fullHits = try detector.detectFaces(in: frame.luma, rectOfInterest: rectOfInterest,
                                                angles: detector.searchAngles(cycle: first ? nil : cycle))
            if first && detector.configuration.estimateYaw {
                // The first frame of an input (a still image) also gets the full profile search.
                let region = PixelRect(covering: rectOfInterest.intersection(.unit), in: frame.size)
                if region.width >= 8, region.height >= 8 {
                    fullHits = FaceDetector.suppressDuplicates(fullHits + (try detector.detectProfiles(in: frame.luma, region: region)))
                }
            }
        }
        let candidates = FaceDetector.suppressDuplicates(windowHits + fullHits)

        // 3. Assignment.
        let pairs = Self.assign(tracks: tracks.map(\.face), candidates: candidates) { [tracks] ti, ci in
            Self.reacquires(tracks[ti], candidates[ci])
        }
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
                    c.yaw = y   // 45/315 is decided on full-search frames; a window hit keeps it
                }
                if c.isProfile && t.hits > 1 {
                    hold(&t, with: c, frame: frame)
                } else {
                    update(&t, with: c, frame: frame)
                }
                next.append(t)
            } else {
                t.misses += 1
                // Coasting: keep the motion but let it fade, so a hidden face is looked for near where it was.
                t.vx *= 0.85; t.vy *= 0.85; t.vs *= 0.5
                if t.id == nil || t.misses > configuration.maxMissedFrames { end(t) } else { next.append(t) }
            }
        }
        // 4. New faces (from the full search only).
        for (ci, var c) in candidates.enumerated() where !matchedCandidates.contains(ci) {
            guard fullHits.contains(c) else { continue }
            let b = c.bounds(in: frame.size)
            guard roi.intersection(b).area > 0 else { continue }
            if c.yaw == 0 { detector.refineRoll(&c, in: frame.luma) }
            detector.classifyYaw(&c, in: frame.luma)
            var t = Track(face: c, lastSeen: frame.time, lastSeenFrame: frame.index, seenX: c.centerX, seenY: c.centerY,
                          roll: c.roll, yaw: c.yaw)
            if first || configuration.confirmationFrames <= 1 { confirm(&t) }
            next.append(t)
        }
        tracks = next

        // 5. Output and presence.
        var objects: [MetadataObject] = []
        for i in tracks.indices {
            let t = tracks[i]
            guard let id = t.id else { continue }
            let bounds = t.face.bounds(in: frame.size)
            if t.misses == 0 {
                objects.append(MetadataObject(type: .face, bounds: bounds, faceID: id, rollAngle: t.roll, yawAngle: t.yaw))
                if !t.present {
                    tracks[i].present = true
                    transitions.append(FacePresenceTransition(transition: .appeared, faceID: id, frame: frame.index, time: frame.time, bounds: bounds))
                }
            } else if t.present && frame.time - t.lastSeen >= configuration.presenceGrace {
                tracks[i].present = false
                transitions.append(FacePresenceTransition(transition: .lost, faceID: id, frame: frame.index, time: frame.time,
                                                          bounds: t.lastBounds(in: frame.size)))
            }
        }
        var stillEnding: [Track] = []
        for t in ending {
            if frame.time - t.lastSeen >= configuration.presenceGrace, let id = t.id {
                transitions.append(FacePresenceTransition(transition: .lost, faceID: id, frame: frame.index, time: frame.time,
                                                          bounds: t.lastBounds(in: frame.size)))
            } else {
                stillEnding.append(t)
            }
        }
        ending = stillEnding
        objects.sort { ($0.faceID ?? 0) < ($1.faceID ?? 0) }
        return FaceTrackingResult(objects: objects, transitions: transitions)
    }

    /// Ends every track now (end of a source or shutdown) and returns the `lost` transitions of faces
    /// still present, without waiting for the grace period.
    public func finish(frame: Int, time: Double) -> [FacePresenceTransition] {
        var out: [FacePresenceTransition] = []
        for t in tracks + ending where t.present {
            if let id = t.id {
                out.append(FacePresenceTransition(transition: .lost, faceID: id, frame: frame, time: time,
                                                  bounds: t.lastBounds(in: frameSize)))
            }
        }
        tracks = []; ending = []
        source = nil
        return out
    }

    private func end(_ t: Track) {
        if t.present { ending.append(t) }
    }

    private func confirm(_ t: inout Track) {
        t.id = nextID
        nextID += 1
    }

    private func update(_ t: inout Track, with c: FaceCandidate, frame: Frame) {
        // Velocity: smoothed displacement per frame between detections.
        let gap = Double(max(1, frame.index - t.lastSeenFrame))
        let predictedX = t.face.centerX, predictedY = t.face.centerY
        let lastX = predictedX - t.vx * gap, lastY = predictedY - t.vy * gap
        let nvx = (c.centerX - lastX) / gap, nvy = (c.centerY - lastY) / gap
        let oldSize = t.face.size - t.vs * gap
        let nvs = (c.size - oldSize) / gap
        let a = 0.6
        t.vx = t.hits == 1 ? nvx : a * nvx + (1 - a) * t.vx
        t.vy = t.hits == 1 ? nvy : a * nvy + (1 - a) * t.vy
        t.vs = t.hits == 1 ? nvs : a * nvs + (1 - a) * t.vs
        t.face.centerX = c.centerX; t.face.centerY = c.centerY
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
        t.seenX = c.centerX; t.seenY = c.centerY
        if t.id == nil && t.hits >= configuration.confirmationFrames { confirm(&t) }
    }

    /// A profile-only hit on a known face keeps it (and its ID) alive and sets its yaw, but does not move
    /// it: the profile cascade also fires on half-occluded frontal faces, with boxes that drift sideways.
    private func hold(_ t: inout Track, with c: FaceCandidate, frame: Frame) {
        t.vx *= 0.85; t.vy *= 0.85; t.vs *= 0.5
        if let y = c.yaw { t.yaw = y }
        t.face.yaw = t.yaw
        t.hits += 1
        t.misses = 0
        t.lastSeen = frame.time
        t.lastSeenFrame = frame.index
    }

    /// Whether candidate `c` may continue track `t`: always while the face is seen; after a miss only near
    /// where it was last detected (0.5 face sizes, plus 0.02 per missed frame, at most 0.8), so a face that
    /// vanishes and is found again far away starts a new track (new faceID) even if the coasting prediction
    /// drifted toward it, while a short miss in place keeps the ID.
    static func reacquires(_ t: Track, _ c: FaceCandidate) -> Bool {
        guard t.misses > 0 else { return true }
        let reach = min(0.8, 0.5 + 0.02 * Double(t.misses)) * max(t.face.size, 1)
        return hypot(c.centerX - t.seenX, c.centerY - t.seenY) <= reach
    }

    /// Minimum-cost assignment of candidates to tracks. Cost: centre distance in face sizes plus the
    /// log size ratio; pairs farther than 0.8 face sizes or more than 1.6× apart in size are not allowed.
    /// Exact (exhaustive) for up to 7 tracks, greedy by cost beyond. Returns candidate index per track.
    /// `allowed(track, candidate)` may forbid more pairs (``reacquires(_:_:)``).
    static func assign(tracks: [FaceCandidate], candidates: [FaceCandidate],
                       allowed: (Int, Int) -> Bool = { _, _ in true }) -> [Int?] {
        let n = tracks.count, m = candidates.count
        var cost = [[Double?]](repeating: [Double?](repeating: nil, count: m), count: n)
        for i in 0..<n {
            for j in 0..<m {
                let t = tracks[i], c = candidates[j]
                let d = hypot(t.centerX - c.centerX, t.centerY - c.centerY) / max(t.size, 1)
                let r = abs(log(max(c.size, 1) / max(t.size, 1)))
                if d < 0.8 && r < log(1.6) && allowed(i, j) { cost[i][j] = d + r }
            }
        }
        var result = [Int?](repeating: nil, count: n)
        if n <= 7 {
            // Maximise the number of matches, then minimise the total cost.
            var best: (matches: Int, cost: Double, pick: [Int?])?
            var pick = [Int?](repeating: nil, count: n)
            var used = [Bool](repeating: false, count: m)
            func search(_ i: Int, _ matches: Int, _ total: Double) {
                if i == n {
                    if best == nil || matches > best!.matches || (matches == best!.matches && total < best!.cost) {
                        best = (matches, total, pick)
                    }
                    return
                }
                pick[i] = nil
                search(i + 1, matches, total)
                for j in 0..<m where !used[j] {
                    guard let c = cost[i][j] else { continue }
                    used[j] = true; pick[i] = j
                    search(i + 1, matches + 1, total + c)
                    used[j] = false; pick[i] = nil
                }
            }
            search(0, 0, 0)
            result = best?.pick ?? result
        } else {
            var pairs: [(Double, Int, Int)] = []
            for i in 0..<n { for j in 0..<m { if let c = cost[i][j] { pairs.append((c, i, j)) } } }
            pairs.sort { $0.0 < $1.0 }
            var usedC = Set<Int>()
            for (_, i, j) in pairs where result[i] == nil && !usedC.contains(j) {
                result[i] = j; usedC.insert(j)
            }
        }
        return result
    }
}

extension FaceTracker.Track {
    func lastBounds(in size: PixelSize) -> NormalizedRect { face.bounds(in: size) }
}
