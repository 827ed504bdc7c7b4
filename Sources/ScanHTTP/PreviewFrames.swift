import ScanCapture
public import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

/// The newest frame the pipeline processed, with what was found on it.
public struct PreviewFrame: Sendable {
    /// The picture (frame pixels, as captured).
    public var frame: Frame
    /// What the detectors found on it (device coordinates).
    public var event: MetadataEvent
    /// When the pipeline offered it, for latency figures.
    public var offeredAt: MonotonicInstant
    /// Counts offers: a later frame has a larger number.
    public var generation: UInt64
}

/// One MJPEG part ready to write: the bytes a viewer sends for the frame numbered `generation`.
public struct PreviewPart: Sendable {
    public var generation: UInt64
    public var bytes: [UInt8]
}

/// The frame output the HTTP server reads (`AVCaptureVideoDataOutput` for the page): the pipeline
/// offers every processed frame; viewers take the newest one. Newest wins: a viewer that is slower than the
/// pipeline skips frames, and nobody ever slows the pipeline.
///
/// ``offer(_:event:)`` only stores the frame (its pixel buffer is shared, not copied) and wakes waiting
/// viewers. Stream viewers wait in ``nextPart(after:build:)``; one encoder thread of its own (started with
/// the first viewer, at a lower scheduling priority than detection: nice +10) encodes the newest frame once
/// for all of them, and only while one waits for a newer frame than the last encoded. So with no viewer
/// nothing is encoded, and with many the JPEG rate is at most the frame rate, at most the fastest
/// viewer's rate and at most ``maxFramesPerSecond``. No Swift concurrency thread ever blocks on an encoding.
public final class PreviewFrames: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `s` is touched only under `monitor`; `encodeLock` only orders
    // snapshot encodings; `quality` and `onEncode` are immutable. (pthread locks, not Mutex: TSan sees
    // pthread mutexes only.)
    private struct State {
        var latest: PreviewFrame?
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<PreviewFrame?, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var encoded: (generation: UInt64, jpeg: [UInt8])?
        /// The newest part built, and the stream viewers waiting for a newer one (with how to build it).
        var part: PreviewPart?
        var partWaiters: [UInt64: (after: UInt64, continuation: CheckedContinuation<PreviewPart?, Never>)] = [:]
        var build: (@Sendable (PreviewFrame, [UInt8]) -> [UInt8])?
        /// A frame that failed to encode is not tried again.
        var failed: UInt64 = 0
        var encoderStarted = false
        /// Monotonic seconds before which the encoder starts no stream encoding (the rate cap).
        var nextEncodeAt = MonotonicInstant(nanoseconds: 0)
        var encodes: UInt64 = 0
        var closed = false
    }
    private let monitor = Monitor()
    private var s = State()
    /// Serializes snapshot encodings so two requests for the same frame encode it once.
    private let encodeLock = Lock()
    /// JPEG quality (1…100) of the stream and snapshots.
    public let quality: Int
    /// The most stream encodings per second (0: no cap): the preview shares the CPU with detection.
    /// Snapshots are not capped (one encoding per request).
    public let maxFramesPerSecond: Double
    /// Called after each JPEG encoding (the metrics counter), on the encoding thread.
    private let onEncode: @Sendable () -> Void

    public init(quality: Int = 70, maxFramesPerSecond: Double = 0, onEncode: @escaping @Sendable () -> Void = {}) {
        self.quality = quality
        self.onEncode = onEncode
        self.maxFramesPerSecond = maxFramesPerSecond.isFinite && maxFramesPerSecond > 0 ? maxFramesPerSecond : 0
    }

    /// Pipeline thread: `frame` was processed and `event` found on it. Returns at once.
    public func offer(_ frame: Frame, event: MetadataEvent) {
        let (f, waiters) = monitor.withLock { () -> (PreviewFrame?, [CheckedContinuation<PreviewFrame?, Never>]) in
            guard !s.closed else { return (nil, []) }
            s.generation += 1
            let f = PreviewFrame(frame: frame, event: event, offeredAt: .now, generation: s.generation)
            s.latest = f
            let w = Array(s.waiters.values)
            s.waiters.removeAll()
            if !s.partWaiters.isEmpty { monitor.broadcast() }  // the encoder has work
            return (f, w)
        }
        guard let f else { return }
        for w in waiters { w.resume(returning: f) }
    }

    /// The newest frame, if any.
    public var latest: PreviewFrame? { monitor.withLock { s.latest } }

    /// How many JPEG encodings were made so far (the cost figure: 0 while nobody watches).
    public var encodeCount: UInt64 { monitor.withLock { s.encodes } }

    /// Waits for a frame newer than `generation` and returns the newest; nil once closed or cancelled.
    public func next(after generation: UInt64) async -> PreviewFrame? {
        let id = monitor.withLock { () -> UInt64 in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<PreviewFrame?, Never>) in
                let ready = monitor.withLock { () -> PreviewFrame?? in
                    if s.closed || Task.isCancelled { return .some(nil) }
                    if let l = s.latest, l.generation > generation { return .some(l) }
                    s.waiters[id] = c
                    return .none
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            self.monitor.withLock { self.s.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    /// Waits for the MJPEG part of the newest frame, newer than `generation`; nil once closed or cancelled.
    /// `build` makes a part from a frame and its JPEG; the encoder thread calls it once per frame (every
    /// viewer passes the same builder).
    public func nextPart(
        after generation: UInt64,
        build: @escaping @Sendable (PreviewFrame, [UInt8]) -> [UInt8]
    ) async -> PreviewPart? {
        let id = monitor.withLock { () -> UInt64 in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<PreviewPart?, Never>) in
                let ready = monitor.withLock { () -> PreviewPart?? in
                    if s.closed || Task.isCancelled { return .some(nil) }
                    // The part built is the newest frame's: take it. Else wait for the encoder.
                    if let p = s.part, p.generation > generation, p.generation == s.latest?.generation {
                        return .some(p)
                    }
                    s.partWaiters[id] = (generation, c)
                    s.build = build
                    if !s.encoderStarted {
                        s.encoderStarted = true
                        _ = WorkerThread(name: "scand-preview") { [self] in encoderLoop() }
                    }
                    monitor.broadcast()
                    return .none
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            self.monitor.withLock { self.s.partWaiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
    }

    /// The encoder thread: while a viewer waits for a frame newer than the last part, encode the newest
    /// frame, build its part and hand it to every viewer waiting. Ends at ``close()``.
    private func encoderLoop() {
        // Lower priority than the pipeline: nice +10 for this thread only (on Linux the nice value is per
        // thread, and PRIO_PROCESS with id 0 means the calling thread). When the CPU is short, detection wins
        // and the preview skips frames.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        while true {
            let job = monitor.withLock {
                () -> (PreviewFrame, @Sendable (PreviewFrame, [UInt8]) -> [UInt8], [UInt8]?)? in
                while true {
                    if s.closed { return nil }
                    let lastPart = s.part?.generation ?? 0
                    if let l = s.latest, let build = s.build, l.generation > lastPart, l.generation > s.failed,
                        s.partWaiters.values.contains(where: { $0.after < l.generation })
                    {
                        let cached = s.encoded.flatMap { $0.generation == l.generation ? $0.jpeg : nil }
                        // The rate cap: wait (and take the newest frame then) unless a snapshot already encoded it.
                        let now = MonotonicInstant.now
                        if cached == nil && now < s.nextEncodeAt {
                            monitor.wait(until: s.nextEncodeAt)
                            continue
                        }
                        if cached == nil && maxFramesPerSecond > 0 {
                            // On a steady cadence; after an idle spell, no burst (at most half an interval of credit).
                            let interval = Duration.seconds(1 / maxFramesPerSecond)
                            s.nextEncodeAt = max(s.nextEncodeAt, now.advanced(by: interval * -0.5)).advanced(
                                by: interval)
                        }
                        return (l, build, cached)
                    }
                    monitor.wait()
                }
            }
            guard let (frame, build, cached) = job else { return }
            let jpeg: [UInt8]
            if let cached {
                jpeg = cached
            } else {
                guard let encoded = try? JPEGEncoder.encode(frame.frame.luma, quality: quality) else {
                    monitor.withLock { s.failed = frame.generation }
                    continue
                }
                jpeg = encoded
                onEncode()
            }
            let part = PreviewPart(generation: frame.generation, bytes: build(frame, jpeg))
            let ready = monitor.withLock { () -> [CheckedContinuation<PreviewPart?, Never>] in
                if cached == nil { s.encodes += 1 }
                if frame.generation > (s.encoded?.generation ?? 0) { s.encoded = (frame.generation, jpeg) }
                s.part = part
                let due = s.partWaiters.filter { $0.value.after < part.generation }
                for id in due.keys { s.partWaiters.removeValue(forKey: id) }
                return due.values.map(\.continuation)
            }
            for c in ready { c.resume(returning: part) }
        }
    }

    /// The JPEG of `frame` (grey, ``quality``), encoded once per frame and shared with the stream viewers
    /// (a snapshot: encoded on the caller's thread).
    public func jpeg(of frame: PreviewFrame) throws -> [UInt8] {
        try encodeLock.withLock {
            if let e = monitor.withLock({ s.encoded }), e.generation == frame.generation { return e.jpeg }
            let bytes = try JPEGEncoder.encode(frame.frame.luma, quality: quality)
            onEncode()
            monitor.withLock {
                s.encodes += 1
                if frame.generation >= (s.encoded?.generation ?? 0) { s.encoded = (frame.generation, bytes) }
            }
            return bytes
        }
    }

    /// Ends every wait (shutdown) and the encoder thread.
    public func close() {
        let (waiters, partWaiters) = monitor.withLock {
            () -> ([CheckedContinuation<PreviewFrame?, Never>], [CheckedContinuation<PreviewPart?, Never>]) in
            s.closed = true
            defer {
                s.waiters.removeAll()
                s.partWaiters.removeAll()
            }
            monitor.broadcast()
            return (Array(s.waiters.values), s.partWaiters.values.map(\.continuation))
        }
        for w in waiters { w.resume(returning: nil) }
        for w in partWaiters { w.resume(returning: nil) }
    }
}
