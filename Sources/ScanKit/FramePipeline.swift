public import ScanCore

/// How frames go from the source to the detectors: the one setting where the modes differ on purpose.
public enum FrameHandOff: Sendable, Equatable {
    /// Every frame, in order; nothing is dropped. With `readAhead` 0 the pipeline's own thread reads the source
    /// (`scand scan`: its stdout is lossless and back-pressured, so a slow reader of stdout slows the scan and
    /// nothing is lost). With `readAhead` n > 0 a source thread decodes up to n frames ahead of the detectors
    /// (`scand run` over a file, unpaced).
    case lossless(readAhead: Int)
    /// A source thread; one frame waits at most, and a newer frame replaces it (the older one is counted as
    /// dropped): the detectors always read the newest frame, as a camera's consumer must (`scand run` over a
    /// camera or a paced replay, `scand bench`'s live cases).
    case newestWins
}

/// What ``FramePipeline`` does between the source and the detectors. `Sendable`, with defaults: a
/// `scand scan` of files.
public struct PipelineSettings: Sendable, Equatable {
    /// See ``FrameHandOff``.
    public var handOff: FrameHandOff
    /// A file's frames are offered at their stream time (from the pipeline's start, on the monotonic clock), as a camera would deliver them, and each frame's `captureClock` is the moment it was due.
    /// Live sources pace themselves: ignored for them.
    public var pacing: Bool
    /// At the source's end, reopen it (when the run was given a way to) and go on, stream times continuing
    /// from the last frame plus one frame interval.
    public var loop: Bool
    /// Stop after this many frames were read, across loop passes (nil: no limit).
    public var frameLimit: Int?

    public init(
        handOff: FrameHandOff = .lossless(readAhead: 0), pacing: Bool = false, loop: Bool = false,
        frameLimit: Int? = nil
    ) {
        self.handOff = handOff
        self.pacing = pacing
        self.loop = loop
        self.frameLimit = frameLimit
    }

    /// `scand scan` (files, stdin, `--device`, each `--jobs` worker): lossless, read on the pipeline's thread.
    public static func scan(frameLimit: Int?) -> Self { Self(frameLimit: frameLimit) }

    /// `scand run`: newest wins when paced or live (the daemon keeps up and reports what it dropped), else
    /// lossless with four frames decoded ahead.
    public static func run(pacing: Bool, loop: Bool, live: Bool) -> Self {
        Self(handOff: pacing || live ? .newestWins : .lossless(readAhead: 4), pacing: pacing, loop: loop)
    }

    /// `scand bench`: a live case is a paced replay, newest wins (as from a camera); otherwise every frame,
    /// as fast as it goes. `frames`: the clip is repeated until this many frames were offered.
    public static func bench(live: Bool, frames: Int?) -> Self {
        Self(
            handOff: live ? .newestWins : .lossless(readAhead: 0), pacing: live, loop: frames != nil,
            frameLimit: frames)
    }
}

/// One frame on its way through a ``FramePipeline``.
public struct PipelineFrame: Sendable {
    public var frame: Frame
    /// The source it came from (its pass, when looping).
    public var info: SourceInfo
    /// Seconds since the first frame of the first pass (it keeps counting across loop passes).
    public var streamTime: Double
    /// How many frames were read before this one, across loop passes (0-based).
    public var number: Int
    /// How long the source took to produce it (the decode, or the wait for a camera).
    public var readTook: Duration
}

/// The detector end of a pipeline: what reads one frame. ``MetadataOutput`` is the product's (its stages,
/// fanned out); the benchmark's naive baseline is another.
public protocol FrameProcessor {
    associatedtype Result
    /// Reads `frame` (from `source`). An error is the consumer's to judge
    /// (``FrameConsumer/processingFailed(_:error:)``).
    func processFrame(_ frame: Frame, source: SourceInfo) throws -> Result
}

extension MetadataOutput: FrameProcessor {}

/// What a mode does with each frame the detectors read: `scan` writes its lines, `run` publishes events on
/// the bus, `bench` measures. Every method runs on the pipeline's thread, in frame order.
public protocol FrameConsumer<Processor> {
    associatedtype Processor: FrameProcessor
    /// Before each frame is taken, and when the pipeline was nudged (``PipelineControl/nudge()``): may
    /// replace the processor (`scand run` applies a reload here). Default: nothing.
    mutating func prepare(_ processor: inout Processor)
    /// Just before the processor reads `item` (`scand run` starts its watchdog's clock). Default: nothing.
    mutating func willProcess(_ item: PipelineFrame)
    /// What the processor found on `item`. Returns false to stop the pipeline (`--oneshot`, an output that
    /// failed or went away).
    mutating func consume(_ item: PipelineFrame, _ result: Processor.Result) -> Bool
    /// The processor threw on `item`: rethrow to stop the pipeline (`scan`: the input fails, its error
    /// names it), or return to go on with the next frame (`run`: reported, the daemon keeps serving).
    mutating func processingFailed(_ item: PipelineFrame, error: any Error) throws
}

extension FrameConsumer {
    public mutating func prepare(_ processor: inout Processor) {}
    public mutating func willProcess(_ item: PipelineFrame) {}
}

/// Called on the thread that reads the source (the pipeline's own with `.lossless(readAhead: 0)`, else
/// the source thread), as each frame is handed off: counters that must not wait for the detectors. (A
/// source's failure is not reported here but as the run's end, ``PipelineEnd/sourceFailed(source:error:)``,
/// after the frames read before it: its place among the events is then the same on every run.)
public struct ReadObserver: Sendable {
    /// A frame was read and handed off; `dropped` older frames were dropped to make room for it.
    public var frameRead: @Sendable (_ dropped: Int) -> Void

    public init(frameRead: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.frameRead = frameRead
    }
}

/// How a ``FramePipeline/run(source:reopen:observer:consumer:)`` ended.
public enum PipelineEnd: Sendable {
    /// The source ended (its last frame was processed; with `loop`, a source that cannot be reopened).
    case sourceEnded
    /// ``PipelineControl/stop()`` was called.
    case stopped
    /// The consumer returned false.
    case consumerStopped
    /// The source failed; the frames read before the failure were processed.
    case sourceFailed(source: String, error: any Error)
}

/// Whether a pipeline was stopped, and the paced wait that ends when it is. The feed holds this, not the
/// ``PipelineControl``: the control holds the source thread, whose closure holds the feed, and a feed holding
/// the control would keep the thread object alive for good (never detached: ThreadSanitizer's "thread leak").
final class StopFlag: Sendable {
    private let stopped = Locked(false)

    var isSet: Bool { stopped.withLock { $0 } }

    func set() {
        stopped.withLock { $0 = true }
        stopped.broadcast()
    }

    /// Sleeps until the monotonic clock reaches `deadline`, or the flag is set.
    func wait(until deadline: MonotonicInstant) {
        let isSet: (Bool) -> Bool = { $0 }
        stopped.withLock(waitingUntil: isSet, deadline: deadline) { _ in }
    }
}

/// The handle other threads use to stop a running pipeline, or wake it between frames. Thread-safe.
public final class PipelineControl: Sendable {
    private struct State: Sendable {
        var queue: BlockingQueue<PipelineFrame>?
        var reader: WorkerThread?
    }
    private let state = Locked(State())
    /// Set by ``stop()``; read by the feed.
    let flag = StopFlag()

    public init() {}

    /// True once ``stop()`` was called.
    public var isStopped: Bool { flag.isSet }

    /// Stops the pipeline: no frame is read after this; the frame being read stays unprocessed, the frame
    /// being processed is finished. Wakes a paced wait at once. Safe to call more than once, from any thread.
    public func stop() {
        flag.set()
        state.withLock { $0.queue }?.cancel()
    }

    /// Wakes the pipeline's thread when it waits for a frame, so ``FrameConsumer/prepare(_:)`` runs now (a
    /// reload applied while no frame comes). A pipeline that reads on its own thread is never waiting.
    public func nudge() { state.withLock { $0.queue }?.nudge() }

    /// Waits at most `timeout` for the source thread (if any) to end; false when it is still blocked
    /// in a read (stdin with no data), which nothing can interrupt: it is then left to end with the process.
    @discardableResult
    public func joinReader(timeout: Duration) -> Bool { state.withLock { $0.reader }?.join(timeout: timeout) ?? true }

    /// Records the source thread's queue and thread, unless the pipeline was already stopped (then the
    /// queue is cancelled at once).
    func attach(queue: BlockingQueue<PipelineFrame>, reader: WorkerThread) {
        state.withLock { s in
            s.queue = queue
            s.reader = reader
        }
        // After recording the queue: a stop() from now on cancels it; one before did not see it.
        if flag.isSet { queue.cancel() }
    }
}

/// scand's one pipeline: source → hand-off → detectors (the processor) → the mode's consumer. `scand scan`
/// (files, stdin, `--device`, each `--jobs` worker), `scand bench` and `scand run` are configurations of it:
/// ``PipelineSettings`` and a ``FrameConsumer``.
public struct FramePipeline<Processor: FrameProcessor> {
    public var settings: PipelineSettings
    /// The detectors. A consumer may replace them between frames (``FrameConsumer/prepare(_:)``).
    public var processor: Processor
    /// Stops or wakes the run from other threads.
    public let control: PipelineControl

    public init(settings: PipelineSettings, processor: Processor, control: PipelineControl = PipelineControl()) {
        self.settings = settings
        self.processor = processor
        self.control = control
    }

    /// Reads `source` (and, with ``PipelineSettings/loop``, what `reopen` opens after it) through the hand-off
    /// and the processor into `consumer`, until the source ends, the consumer stops it, ``control`` stops it
    /// or the source fails. The pipeline closes every source it reads. Returns without waiting for a source
    /// thread still blocked in a read when stopped (see ``PipelineControl/joinReader(timeout:)``).
    /// - Throws: what ``FrameConsumer/processingFailed(_:error:)`` rethrows.
    public mutating func run<Consumer: FrameConsumer<Processor>>(
        source: any FrameSource, reopen: (@Sendable () throws -> any FrameSource)? = nil,
        observer: ReadObserver = ReadObserver(), consumer: inout Consumer
    ) throws -> PipelineEnd {
        var handOff = FrameHandOffLine(
            feed: FrameFeed(first: source, reopen: reopen, settings: settings, stop: control.flag),
            mode: settings.handOff, observer: observer, control: control)
        defer { handOff.finish() }
        while true {
            consumer.prepare(&processor)
            let item: PipelineFrame
            switch handOff.take() {
            case .frame(let frame): item = frame
            case .nudged: continue
            case .end(let end): return end
            }
            consumer.willProcess(item)
            let result: Processor.Result
            do {
                result = try processor.processFrame(item.frame, source: item.info)
            } catch {
                try consumer.processingFailed(item, error: error)
                continue
            }
            if !consumer.consume(item, result) { return .consumerStopped }
        }
    }
}
