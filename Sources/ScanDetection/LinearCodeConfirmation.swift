public import ScanCore

/// A misread filter for video: a linear (1-D) code is reported only once the same type and payload has been
/// read in at least two frames within a window of recent frames. Matrix codes (QR, Data Matrix, …) carry
/// error correction and pass straight through. One instance per stream; not thread-safe.
public final class LinearCodeConfirmation {
    /// How many consecutive frames (the current one included) a second sighting may come from.
    public let window: Int
    private var lastSeen: [Key: Int] = [:]
    private var confirmed: [Key: Int] = [:]

    struct Key: Hashable {
        var type: MetadataObjectType
        var payload: [UInt8]
    }

    /// - Parameter window: frames, at least 2.
    public init(window: Int = 3) { self.window = max(2, window) }

    /// Filters the objects read in frame number `frame` (frame numbers increase along the stream).
    public func filter(_ objects: [MetadataObject], frame: Int) -> [MetadataObject] {
        var out: [MetadataObject] = []
        for o in objects {
            guard o.type.isLinear, o.type != .face else {
                out.append(o)
                continue
            }
            let key = Key(type: o.type, payload: o.payload ?? Array((o.stringValue ?? "").utf8))
            if let c = confirmed[key], frame - c < window {
                confirmed[key] = frame
                lastSeen[key] = frame
                out.append(o)
                continue
            }
            if let seen = lastSeen[key], seen < frame, frame - seen < window {
                confirmed[key] = frame
                out.append(o)
            }
            lastSeen[key] = frame
        }
        // Forget codes not seen within the window.
        lastSeen = lastSeen.filter { frame - $0.value < window }
        confirmed = confirmed.filter { frame - $0.value < window }
        return out
    }

    /// Forgets everything (a new stream starts).
    public func reset() {
        lastSeen.removeAll()
        confirmed.removeAll()
    }
}
