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
/// last centre moved on at its smoothed velocity); a pair further apart than ``Configuration/gate`` times the
/// track's size is no match. Distances are in pixels of the frame (normalized coordinates scaled by the frame's
/// width and height), so a square symbol's size is the same across and down. Tracks not matched for
/// ``Configuration/keep`` seconds of stream time end.
///
/// Faces are left alone (the face tracker gives `faceID`). Use from one thread at a time; 50 symbols a frame
/// cost well under a millisecond (the matching is quadratic in the symbols of one payload only).
public final class CodeTracker {
    /// How far a track reaches. `Sendable`, with defaults.
    public struct Configuration: Sendable, Hashable {
        /// A symbol continues a track when its centre is within this many track sizes (the larger side of the
        /// track's last box) of where the track is predicted to be.
        public var gate: Double
        /// Seconds of stream time a track waits, unmatched, for its symbol to be read again.
        public var keep: Double

        public init(gate: Double = 1.5, keep: Double = 1.0) {
            self.gate = gate
            self.keep = keep
        }
    }

    private struct Key: Hashable {
        var type: MetadataObjectType
        var bytes: [UInt8]?
        var value: String?
    }

    private struct Track {
        var id: Int
        var key: Key
        /// Last centre, frame pixels; velocity in pixels a second.
        var x: Double, y: Double
        var vx = 0.0, vy = 0.0
        /// The larger side of the last box, frame pixels.
        var size: Double
        var lastSeen: Double
    }

    public var configuration: Configuration
    private var tracks: [Track] = []
    private var nextID = 1
    private var source: String?
    private var lastTime: Double?

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
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
        var centres: [(Double, Double, Double)?] = []
        for (i, o) in objects.enumerated() {
            guard o.type != .face, let key = Self.key(o) else {
                centres.append(nil)
                continue
            }
            let cx = (o.bounds.x + o.bounds.width / 2) * w
            let cy = (o.bounds.y + o.bounds.height / 2) * h
            centres.append((cx, cy, max(o.bounds.width * w, o.bounds.height * h)))
            for (j, t) in tracks.enumerated() where t.key == key {
                let dt = time - t.lastSeen
                let dx = cx - (t.x + t.vx * dt)
                let dy = cy - (t.y + t.vy * dt)
                let d = (dx * dx + dy * dy).squareRoot()
                if d <= configuration.gate * t.size { pairs.append((i, j, d)) }
            }
        }
        pairs.sort { ($0.2, $0.0, $0.1) < ($1.2, $1.0, $1.1) }
        var objectTaken = Set<Int>()
        var trackTaken = Set<Int>()
        for (i, j, _) in pairs where !objectTaken.contains(i) && !trackTaken.contains(j) {
            objectTaken.insert(i)
            trackTaken.insert(j)
            guard let (cx, cy, size) = centres[i] else { continue }
            let dt = time - tracks[j].lastSeen
            if dt > 1e-6 {
                // Smoothed velocity: a symbol read a little off-centre now and then does not fling the track.
                tracks[j].vx = 0.5 * tracks[j].vx + 0.5 * (cx - tracks[j].x) / dt
                tracks[j].vy = 0.5 * tracks[j].vy + 0.5 * (cy - tracks[j].y) / dt
            }
            tracks[j].x = cx
            tracks[j].y = cy
            tracks[j].size = size
            tracks[j].lastSeen = time
            out[i].trackID = tracks[j].id
        }
        for (i, o) in objects.enumerated() where !objectTaken.contains(i) {
            guard let (cx, cy, size) = centres[i], let key = Self.key(o) else { continue }
            tracks.append(Track(id: nextID, key: key, x: cx, y: cy, size: max(size, 1), lastSeen: time))
            out[i].trackID = nextID
            nextID += 1
        }
        return out
    }

    private static func key(_ o: MetadataObject) -> Key? {
        if o.payload == nil && o.stringValue == nil { return nil }
        return Key(type: o.type, bytes: o.payload, value: o.payload == nil ? o.stringValue : nil)
    }
}
