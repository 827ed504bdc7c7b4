import ScanCore

/// The source end of a ``FramePipeline``: a source's frames in order, paced, looped and limited as
/// ``PipelineSettings`` say. Used by one thread (the pipeline's, or its source thread).
struct FrameFeed: Sendable {
    private var current: any FrameSource
    private let reopen: (@Sendable () throws -> any FrameSource)?
    private let settings: PipelineSettings
    private let stop: StopFlag
    /// Stream seconds of the passes before this one (loop).
    private var offset = 0.0
    private var lastTime = 0.0
    private var count = 0
    /// The first read: a paced frame is due `streamTime` after it.
    private var start: MonotonicInstant?

    init(
        first: any FrameSource, reopen: (@Sendable () throws -> any FrameSource)?, settings: PipelineSettings,
        stop: StopFlag
    ) {
        current = first
        self.reopen = reopen
        self.settings = settings
        self.stop = stop
    }

    /// The name of the source being read (for a failure's `device` event).
    var sourceName: String { current.info.name }

    /// The next frame; nil at the end (of the last pass), at the frame limit, or once stopped.
    /// - Throws: the source's error (a read, or a reopen to loop).
    mutating func next() throws -> PipelineFrame? {
        if let limit = settings.frameLimit, count >= limit { return nil }
        let start = self.start ?? .now
        self.start = start
        while !stop.isSet {
            let info = current.info
            let asked = MonotonicInstant.now
            guard var frame = try current.nextFrame() else {
                guard settings.loop, let reopen, !stop.isSet else { return nil }
                current.close()
                offset += lastTime + 1.0 / (info.frameRate ?? 1.0)
                current = try reopen()
                continue
            }
            let readTook = asked.elapsed
            let streamTime = offset + frame.time
            if settings.pacing && !info.isLive {
                stop.wait(until: start.advanced(by: .seconds(streamTime)))
                // A paced file frame is "captured" when it is due, as a camera's would be: latency figures
                // then leave out the wait for its turn.
                frame.captureClock = .now
            }
            lastTime = frame.time
            defer { count += 1 }
            return PipelineFrame(
                frame: frame, info: info, streamTime: streamTime, number: count, readTook: readTook)
        }
        return nil
    }

    func close() { current.close() }
}

/// The hand-off between the feed and the detectors (``FrameHandOff``), as the pipeline's thread sees it.
struct FrameHandOffLine {
    enum Taken {
        case frame(PipelineFrame)
        /// Woken without a frame (``PipelineControl/nudge()``).
        case nudged
        case end(PipelineEnd)
    }

    /// How the source thread ended (set before it closes its queue).
    private struct ReaderEnd: Sendable {
        var failure: (source: String, error: any Error)?
    }

    private var inline: FrameFeed?
    private let queue: BlockingQueue<PipelineFrame>?
    private let readerEnd = Locked<ReaderEnd?>(nil)
    private let observer: ReadObserver
    private let control: PipelineControl

    init(feed: FrameFeed, mode: FrameHandOff, observer: ReadObserver, control: PipelineControl) {
        self.observer = observer
        self.control = control
        let readAhead: Int
        switch mode {
        case .lossless(let n) where n <= 0:
            inline = feed
            queue = nil
            return
        case .lossless(let n): readAhead = n
        case .newestWins: readAhead = 1
        }
        inline = nil
        let queue = BlockingQueue<PipelineFrame>(capacity: readAhead, lossless: mode != .newestWins)
        self.queue = queue
        let reader = WorkerThread(name: "scand-read") { [readerEnd] in
            var feed = feed
            var failure: (String, any Error)?
            do {
                while let item = try feed.next() {
                    guard let dropped = queue.put(item) else { break }
                    observer.frameRead(dropped)
                }
            } catch {
                failure = (feed.sourceName, error)
            }
            feed.close()
            readerEnd.withLock { $0 = ReaderEnd(failure: failure) }
            queue.close()
        }
        control.attach(queue: queue, reader: reader)
    }

    /// The next frame, or why there is none.
    mutating func take() -> Taken {
        if inline != nil {
            do {
                guard let item = try inline!.next() else { return .end(control.isStopped ? .stopped : .sourceEnded) }
                observer.frameRead(0)
                return .frame(item)
            } catch {
                return .end(.sourceFailed(source: inline!.sourceName, error: error))
            }
        }
        guard let queue else { return .end(.sourceEnded) }
        if let item = queue.take() { return .frame(item) }
        if !queue.isDrained { return .nudged }
        // Stopped (the queue was cancelled): do not wait for a source thread blocked in a read.
        if control.isStopped { return .end(.stopped) }
        // The source thread closed the queue after recording how it ended.
        switch readerEnd.withLock({ $0 })?.failure {
        case (let source, let error)?: return .end(.sourceFailed(source: source, error: error))
        case nil: return .end(control.isStopped ? .stopped : .sourceEnded)
        }
    }

    /// The pipeline ended: the inline feed closes its source; a source thread is told to stop (it closes its
    /// source when its read returns).
    mutating func finish() {
        inline?.close()
        inline = nil
        queue?.cancel()
    }
}
