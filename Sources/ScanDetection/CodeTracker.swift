public import ScanCore

/// Gives every code symbol on a stream a track identifier (`trackID`), as VisionKit's recognized items and
/// Scandit's tracked barcodes have one: the same number while the symbol stays in view (it moves, turns, or is
/// missed for a while in place), a new one for a symbol that appears far from where one was lost; never reused
/// within a source's stream (a reload carries the tracker over). Like `frame`, the numbers are the source's:
/// they start at 1 for each source, so a file's objects are numbered alike whichever `scand scan --jobs` worker
/// read it, and a daemon's one source never reuses one.
///
/// A symbol can only continue a track of its own type and payload. Among those, each frame's symbols are matched
/// to the tracks greedily by distance, nearest pair first, from where each track is predicted to be now (its
/// last centre moved on at its smoothed velocity). A pair is a match only where the symbol's centre lies within
/// the track's predicted box, each way: at most ``Configuration/gate`` times the track's width across and its
/// height down (each at least a third of the larger side, so a 1-D box a few scan lines high still has room to
/// move), plus half the distance its velocity carries it while unread. A long 1-D label that leaves the view and
/// the next one of the same payload that enters behind it, its own length further back, are two tracks (a gate
/// of the larger side each way joined them: three Code 128 labels over ffmpeg's mandelbrot, ids 1, 2, 2).
/// Distances are in pixels of the frame (normalized coordinates scaled by the frame's width and height). Tracks
/// not matched for ``Configuration/keep`` seconds of stream time end.
///
/// Faces are left alone (the face tracker gives `faceID`). Use from one thread at a time; 50 symbols a frame
/// cost well under a millisecond (the matching is quadratic in the symbols of one payload only).
public final class CodeTracker {
    /// How far a track reaches. `Sendable`, with defaults.
    public struct Configuration: Sendable, Hashable {
        /// A symbol continues a track when its centre is within this many track widths across, and heights
        /// down, of where the track is predicted to be (see ``CodeTracker``).
        public var gate: Double
        /// Seconds of stream time a track waits, unmatched, for its symbol to be read again.
        public var keep: Double

        public init(gate: Double = 0.75, keep: Double = 1.0) {
            self.gate = gate
            self.keep = keep
        }
    }

    private struct Track {
        var id: Int
        /// The symbol's type and payload (``PresenceTracker/valueKey(for:)``).
        var key: PresenceTracker.Key
        /// The last box, frame pixels: its centre and size; velocity in pixels a second.
        var box: Box
        var vx = 0.0, vy = 0.0
        var lastSeen: Double

        /// How far the centre of `other` lies from where the track is predicted to be at `time` (frame pixels);
        /// nil when it lies outside the track's gate.
        func distance(to other: Box, at time: Double, gate: Double) -> Double? {
            let dt = time - lastSeen
            let dx = abs(other.x - (box.x + vx * dt))
            let dy = abs(other.y - (box.y + vy * dt))
            let least = max(box.width, box.height) / 3
            guard dx <= gate * max(box.width, least) + 0.5 * abs(vx) * dt,
                dy <= gate * max(box.height, least) + 0.5 * abs(vy) * dt
            else { return nil }
            return (dx * dx + dy * dy).squareRoot()
        }
    }

    /// A box in frame pixels: its centre and size.
    private struct Box {
        var x: Double, y: Double, width: Double, height: Double
    }

    public var configuration: Configuration
    private var tracks: [Track] = []
    private var nextID = 1
    /// Where trackIDs come from when shared with other trackers (several cameras); nil: ``nextID``.
    private let identifiers: IdentifierSequence?
    private var source: String?
    private var lastTime: Double?

    /// - Parameter identifiers: a sequence shared with other trackers (the cameras of one run), so that no
    ///   trackID is handed out twice in the run, whatever the sources; nil: this tracker's own, from 1 on
    ///   each source.
    public init(configuration: Configuration = Configuration(), identifiers: IdentifierSequence? = nil) {
        self.configuration = configuration
        self.identifiers = identifiers
    }

    /// Tracks alive now.
    public var trackCount: Int { tracks.count }

    /// `objects` (found on one frame of `source` at stream time `time`, seconds; the frame `width` × `height`
    /// pixels) with their ``MetadataObject/trackID`` set, in the same order. A new source ends every track and
    /// numbers from 1 again; time going back (a source started again under its name) ends every track, and the
    /// numbers go on.
    public func update(_ objects: [MetadataObject], source: String, time: Double, width: Int, height: Int)
        -> [MetadataObject]
    {
        if source != self.source {
            tracks.removeAll()
            nextID = 1
            self.source = source
        } else if let lastTime, time < lastTime {
            tracks.removeAll()
        }
        lastTime = time
        tracks.removeAll { time - $0.lastSeen > configuration.keep + 1e-6 }
        let w = Double(width)
        let h = Double(height)
        var out = objects
        // Candidate pairs (object, track, distance) within the gate, per payload.
        var pairs: [(Int, Int, Double)] = []
        let boxes = objects.map { o -> Box? in
            guard o.type != .face else { return nil }
            return Box(
                x: (o.bounds.x + o.bounds.width / 2) * w, y: (o.bounds.y + o.bounds.height / 2) * h,
                width: max(o.bounds.width * w, 1), height: max(o.bounds.height * h, 1))
        }
        let keys = objects.map { $0.type == .face ? nil : PresenceTracker.valueKey(for: $0) }
        for (i, box) in boxes.enumerated() {
            guard let box, let key = keys[i] else { continue }
            for (j, t) in tracks.enumerated() where t.key == key {
                if let d = t.distance(to: box, at: time, gate: configuration.gate) { pairs.append((i, j, d)) }
            }
        }
        pairs.sort { ($0.2, $0.0, $0.1) < ($1.2, $1.0, $1.1) }
        var objectTaken = Set<Int>()
        var trackTaken = Set<Int>()
        for (i, j, _) in pairs where !objectTaken.contains(i) && !trackTaken.contains(j) {
            objectTaken.insert(i)
            trackTaken.insert(j)
            guard let box = boxes[i] else { continue }
            let dt = time - tracks[j].lastSeen
            if dt > 1e-6 {
                // Smoothed velocity: a symbol read a little off-centre now and then does not fling the track.
                tracks[j].vx = 0.5 * tracks[j].vx + 0.5 * (box.x - tracks[j].box.x) / dt
                tracks[j].vy = 0.5 * tracks[j].vy + 0.5 * (box.y - tracks[j].box.y) / dt
            }
            tracks[j].box = box
            tracks[j].lastSeen = time
            out[i].trackID = tracks[j].id
        }
        for (i, box) in boxes.enumerated() where !objectTaken.contains(i) {
            guard let box, let key = keys[i] else { continue }
            let id: Int
            if let identifiers {
                id = identifiers.next()
            } else {
                id = nextID
                nextID += 1
            }
            tracks.append(Track(id: id, key: key, box: box, lastSeen: time))
            out[i].trackID = id
        }
        return out
    }
}
