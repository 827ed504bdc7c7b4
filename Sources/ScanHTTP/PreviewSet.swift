import ScanCore

/// Every camera's preview (issue 49): one ``PreviewFrames`` per camera name, in the order the cameras were
/// attached. The first is the one the camera-less routes (`/snapshot.jpg`, `/stream.mjpg`, …) serve.
public final class PreviewSet: Sendable {
    /// Makes one camera's preview (its encoding cap and metrics hook).
    private let make: @Sendable () -> PreviewFrames
    private let cameras = Locked<[(name: String, frames: PreviewFrames)]>([])

    public init(make: @escaping @Sendable () -> PreviewFrames = { PreviewFrames() }) {
        self.make = make
    }

    /// The preview of camera `name`, made on first use.
    @discardableResult
    public func attach(_ name: String) -> PreviewFrames {
        cameras.withLock { cameras in
            if let found = cameras.first(where: { $0.name == name }) { return found.frames }
            let frames = make()
            cameras.append((name, frames))
            return frames
        }
    }

    /// Forgets camera `name` (removed by a reload): its viewers' streams end.
    public func detach(_ name: String) {
        let removed = cameras.withLock { cameras -> PreviewFrames? in
            guard let i = cameras.firstIndex(where: { $0.name == name }) else { return nil }
            return cameras.remove(at: i).frames
        }
        removed?.close()
    }

    /// The preview of camera `name`, nil when there is no such camera.
    public func frames(of name: String) -> PreviewFrames? {
        cameras.withLock { $0.first { $0.name == name }?.frames }
    }

    /// The first camera's preview: what `/snapshot.jpg` and `/stream.mjpg` show. Made on first use under
    /// the name `default` when no camera was attached (a server without a pipeline).
    public var first: (name: String, frames: PreviewFrames) {
        if let first = cameras.withLock({ $0.first }) { return first }
        return ("default", attach("default"))
    }

    /// The camera names, in order.
    public var names: [String] { cameras.withLock { $0.map(\.name) } }

    /// JPEG encodings over every camera.
    public var encodeCount: UInt64 { cameras.withLock { $0.reduce(0) { $0 + $1.frames.encodeCount } } }

    /// Ends every viewer's stream (shutdown).
    public func close() {
        for camera in cameras.withLock({ $0 }) { camera.frames.close() }
    }
}
