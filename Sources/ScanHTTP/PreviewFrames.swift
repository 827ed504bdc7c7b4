public import ScanCore

/// The newest frame the pipeline processed, with what was found on it.
public struct PreviewFrame: Sendable {
    /// The picture (frame pixels, as captured).
    public var frame: Frame
    /// What the detectors found on it (device coordinates).
    public var event: MetadataEvent
    /// When the pipeline offered it (monotonic seconds), for latency figures.
    public var offeredAt: Double
    /// Counts offers: a later frame has a larger number.
    public var generation: UInt64
}

/// The frame output the HTTP server reads (`AVCaptureVideoDataOutput` for the page): the pipeline
/// offers every processed frame; viewers take the newest one. Newest wins: a viewer that is slower than the
/// pipeline skips frames, and nobody ever slows the pipeline.
///
/// ``offer(_:event:)`` only stores the frame (its pixel buffer is shared, not copied) and wakes waiting
/// viewers. JPEG encoding happens on the viewer's side, once per frame however many viewers there are, and
/// only when a viewer asks (``jpeg(of:)``): with no viewer nothing is encoded.
public final class PreviewFrames: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `s` is touched only under `lock`; `encodeLock` only orders
    // encodings; `quality` is immutable. (ScanCore.Lock, not Mutex: TSan sees pthread mutexes only.)
    private struct State {
        var latest: PreviewFrame?
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<PreviewFrame?, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var encoded: (generation: UInt64, jpeg: [UInt8])?
        var part: (generation: UInt64, bytes: [UInt8])?
        var encodes: UInt64 = 0
        var closed = false
    }
    private let lock = Lock()
    private var s = State()
    /// Serializes encoding so two viewers wanting the same frame encode it once.
    private let encodeLock = Lock()
    /// JPEG quality (1…100) of the stream and snapshots.
    public let quality: Int

    public init(quality: Int = 70) { self.quality = quality }

    /// Pipeline thread: `frame` was processed and `event` found on it. Returns at once.
    public func offer(_ frame: Frame, event: MetadataEvent) {
        let waiters = lock.withLock { () -> [CheckedContinuation<PreviewFrame?, Never>] in
            guard !s.closed else { return [] }
            s.generation += 1
            let f = PreviewFrame(frame: frame, event: event, offeredAt: monotonicSeconds(), generation: s.generation)
            s.latest = f
            let w = Array(s.waiters.values)
            s.waiters.removeAll()
            return w
        }
        guard !waiters.isEmpty, let f = latest else { return }
        for w in waiters { w.resume(returning: f) }
    }

    /// The newest frame, if any.
    public var latest: PreviewFrame? { lock.withLock { s.latest } }

    /// How many JPEG encodings were made so far (the cost figure: 0 while nobody watches).
    public var encodeCount: UInt64 { lock.withLock { s.encodes } }

    /// Waits for a frame newer than `generation` and returns the newest; nil once closed or cancelled.
    public func next(after generation: UInt64) async -> PreviewFrame? {
        let id = lock.withLock { () -> UInt64 in s.nextWaiter += 1; return s.nextWaiter }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<PreviewFrame?, Never>) in
                let ready = lock.withLock { () -> PreviewFrame?? in
                    if s.closed || Task.isCancelled { return .some(nil) }
                    if let l = s.latest, l.generation > generation { return .some(l) }
                    s.waiters[id] = c
                    return .none
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            self.lock.withLock { self.s.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    /// The JPEG of `frame` (grey, ``quality``), encoded once per frame and shared by every viewer.
    public func jpeg(of frame: PreviewFrame) throws -> [UInt8] {
        try encodeLock.withLock { try jpegLocked(frame) }
    }

    /// ``jpeg(of:)`` with `encodeLock` held.
    private func jpegLocked(_ frame: PreviewFrame) throws -> [UInt8] {
        if let e = lock.withLock({ s.encoded }), e.generation == frame.generation { return e.jpeg }
        let bytes = try ImageJPEG.encode(frame.frame.luma, quality: quality)
        lock.withLock {
            s.encodes += 1
            if frame.generation >= (s.encoded?.generation ?? 0) { s.encoded = (frame.generation, bytes) }
        }
        return bytes
    }

    /// The MJPEG part of `frame` (headers and JPEG, built by `build` from the JPEG), built once per frame and
    /// shared by every viewer like the JPEG itself.
    public func part(of frame: PreviewFrame, build: ([UInt8]) -> [UInt8]) throws -> [UInt8] {
        try encodeLock.withLock {
            if let p = lock.withLock({ s.part }), p.generation == frame.generation { return p.bytes }
            let bytes = build(try jpegLocked(frame))
            lock.withLock { if frame.generation >= (s.part?.generation ?? 0) { s.part = (frame.generation, bytes) } }
            return bytes
        }
    }

    /// Ends every wait (shutdown).
    public func close() {
        let waiters = lock.withLock { () -> [CheckedContinuation<PreviewFrame?, Never>] in
            s.closed = true
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for w in waiters { w.resume(returning: nil) }
    }
}
