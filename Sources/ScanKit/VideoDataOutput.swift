import ScanCapture
public import ScanCore

/// One frame as a ``VideoDataOutput`` subscriber gets it (`AVCaptureVideoDataOutput`'s sample buffer):
/// the pixels, and the metadata objects detected in that very frame, so a preview draws boxes that match.
public struct VideoFrame: Sendable {
    /// The luma plane, frame pixels, origin top-left (shared, not copied: `[UInt8]` is copy-on-write).
    public var frame: Frame
    /// The frame's `metadata` event: source name, frame index, stream time (seconds) and the objects
    /// (geometry in normalized device coordinates, and view pixels when a preview geometry is set).
    public var metadata: MetadataEvent
    /// The driver's sequence number for cameras, nil for files.
    public var sequence: UInt32? { frame.sequence }
    /// Frame size in pixels.
    public var size: PixelSize { frame.size }
    /// Seconds since the source's first frame.
    public var time: Double { frame.time }

    public init(frame: Frame, metadata: MetadataEvent) {
        self.frame = frame
        self.metadata = metadata
    }

    /// The frame as a greyscale JPEG (``JPEGEncoder``, libjpeg-turbo). Encoding runs on the caller's task, so only a
    /// subscriber that wants JPEG pays for it, and never the pipeline.
    public func jpegData(quality: Int = 80) throws -> [UInt8] { try JPEGEncoder.encode(frame.luma, quality: quality) }
}

/// The frame output, in the spirit of `AVCaptureVideoDataOutput`: any number of subscribers each get the
/// newest processed frame through their own bounded, newest-wins buffer. Publishing never waits: a slow
/// subscriber misses frames, detection never slows down. With no subscriber, publishing costs one lock.
public final class VideoDataOutput: Sendable {
    private struct State {
        var subscribers: [(id: UInt64, continuation: AsyncStream<VideoFrame>.Continuation)] = []
        var nextID: UInt64 = 0
        var closed = false
    }
    private let state = Locked(State())

    public init() {}

    /// True while at least one subscriber iterates ``frames(bufferingNewest:)``.
    public var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// Every later processed frame; at most `limit` frames wait for a slow reader (older ones are dropped).
    /// Ends when the output is closed (the pipeline stopped) or the reader stops iterating.
    public func frames(bufferingNewest limit: Int = 1) -> AsyncStream<VideoFrame> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: VideoFrame.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let id = state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.subscribers.append((state.nextID, continuation))
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    private func remove(_ id: UInt64) { state.withLock { $0.subscribers.removeAll { $0.id == id } } }

    /// Hands a frame to every subscriber; `make` runs only when there is one.
    public func publish(_ make: () -> VideoFrame) {
        let targets = state.withLock { $0.subscribers.map(\.continuation) }
        guard !targets.isEmpty else { return }
        let frame = make()
        for t in targets { t.yield(frame) }
    }

    /// Ends every subscriber's stream; later subscriptions end at once.
    public func close() {
        let ending = state.withLock { state -> [AsyncStream<VideoFrame>.Continuation] in
            state.closed = true
            defer { state.subscribers = [] }
            return state.subscribers.map(\.continuation)
        }
        for c in ending { c.finish() }
    }
}
