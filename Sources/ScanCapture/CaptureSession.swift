public import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

/// A live V4L2 capture (`AVCaptureSession` with one `AVCaptureDeviceInput`): libv4l2 converts to YU12,
/// buffers are `v4l2_mmap`'ed, one dedicated thread polls, dequeues and requeues them, and the newest frame
/// waits in a one-slot hand-off for the consumer (late frames are dropped, never queued).
///
/// It is a ``FrameSource`` (`info.isLive` is true): ``nextFrame()`` blocks until a frame newer than the last
/// one is ready and returns nil once the session stopped.
///
/// The session survives what cameras do: unplug (`deviceDisconnected`, then it waits for the node to come
/// back and resumes by itself, `deviceConnected`), stalls (no frame for ``CaptureConfiguration/stallTimeout``:
/// `wasInterrupted`, reopen, `interruptionEnded` when frames return), a busy device (`runtimeError`, retry with
/// backoff), repeated `EIO` (counted; reopen only past a threshold).
///
/// The capture thread keeps the session alive while it runs: call ``stopRunning()`` (or ``close()``) when done.
public final class CaptureSession: FrameSource, @unchecked Sendable {
    // Invariant for @unchecked Sendable: every `var` is read and written only under `cond` (the capture
    // thread, the consumer and the configuring caller all go through it); the stream itself lives in
    // the capture thread's locals only.
    /// `starting` until the first frame stream is on, `running` until stopped (also while interrupted or
    /// disconnected: see ``isInterrupted``), `stopped` after ``stopRunning()`` or a fatal error.
    public enum State: String, Sendable { case starting, running, stopped }

    private let cond = Monitor()
    // Everything below is guarded by `cond`.
    private var staged: CaptureConfiguration
    private var committed: Resolved
    private var batchDepth = 0
    private var restartRequested = false
    private var controlsChanged = false
    private var stopRequested = false
    private var thread: WorkerThread?
    private var slot: Frame?
    private var fatal: ScanError?
    private var _state: State = .stopped
    private var _interrupted = false
    private var _activeFormat: ActiveFormat?
    private var _statistics = CaptureStatistics()
    private var _lastError: String?
    private var handlers: [@Sendable (DeviceEvent) -> Void] = []
    private var continuations: [Int: AsyncStream<DeviceEvent>.Continuation] = [:]
    private var nextContinuation = 0
    private var startClock = MonotonicInstant(nanoseconds: 0)
    /// Started with the device absent and ``CaptureConfiguration/waitForDevice`` set; cleared once it appeared.
    private var waitingForDevice = false

    /// Creates a stopped session. The device is checked at ``startRunning()``.
    public init(configuration: CaptureConfiguration) {
        staged = configuration
        committed = Resolved(configuration: configuration, size: PixelSize(width: 0, height: 0), offered: "")
    }

    deinit { stopRunning() }

    // MARK: Configuration

    /// The configuration that changes through the properties below and becomes active at commit/start.
    public var configuration: CaptureConfiguration {
        get { cond.withLock { staged } }
        set { cond.withLock { staged = newValue } }
    }
    /// The device by path or by-id name (staged).
    public var device: String {
        get { configuration.device }
        set { cond.withLock { staged.device = newValue } }
    }
    /// The preset (staged).
    public var sessionPreset: SessionPreset {
        get { configuration.sessionPreset }
        set {
            cond.withLock {
                staged.sessionPreset = newValue
                staged.frameSize = nil
            }
        }
    }
    /// An explicit size (staged; overrides the preset).
    public var frameSize: PixelSize? {
        get { configuration.frameSize }
        set { cond.withLock { staged.frameSize = newValue } }
    }
    /// The frame rate to ask for (staged).
    public var frameRate: Double? {
        get { configuration.frameRate }
        set { cond.withLock { staged.frameRate = newValue } }
    }
    /// Controls, modes and exposure metering (staged; see ``CaptureConfiguration/controls``).
    public var controls: ControlConfiguration {
        get { configuration.controls }
        set { cond.withLock { staged.controls = newValue } }
    }

    /// Starts a batch of changes (`beginConfiguration`). Batches nest; the outermost commit applies them.
    public func beginConfiguration() { cond.withLock { batchDepth += 1 } }

    /// Ends a batch (`commitConfiguration`). The outermost commit checks the whole staged configuration against
    /// the device and, on a running session, applies it with one restart of streaming. Nothing is applied when
    /// the check fails: the active configuration stays, and the staged one is reset to it.
    /// - Throws: ``ScanError`` saying why (unknown device, preset or size the device does not offer).
    public func commitConfiguration() throws {
        let (outermost, candidate) = cond.withLock { () -> (Bool, CaptureConfiguration) in
            batchDepth = max(0, batchDepth - 1)
            return (batchDepth == 0, staged)
        }
        guard outermost else { return }
        let resolved: Resolved
        do { resolved = try Self.resolve(candidate) } catch {
            cond.withLock { if _state != .stopped { staged = committed.configuration } }
            throw error
        }
        cond.withLock {
            guard resolved != committed else { return }
            var a = resolved
            var b = committed
            a.configuration.controls = ControlConfiguration()
            b.configuration.controls = ControlConfiguration()
            committed = resolved
            guard _state != .stopped else { return }
            if a == b { controlsChanged = true } else { restartRequested = true }
            cond.broadcast()
        }
    }

    /// Whether `preset` can be used with the staged device (`canSetSessionPreset`).
    public func canSetSessionPreset(_ preset: SessionPreset) -> Bool { (try? check(preset)) != nil }

    /// The size `preset` would give on the staged device.
    /// - Throws: ``ScanError`` saying why the preset is refused (and what the device offers).
    public func check(_ preset: SessionPreset) throws -> PixelSize {
        try DiscoverySession.device(named: configuration.device).resolve(preset)
    }

    // MARK: Running

    /// Checks the staged configuration and starts the capture thread. Returns at once; frames and events follow.
    /// - Throws: ``ScanError`` when the device does not exist, is not a capture device, or refuses the size.
    public func startRunning() throws {
        let candidate = cond.withLock { staged }
        let resolved: Resolved
        var waiting = false
        do {
            resolved = try Self.resolve(candidate)
        } catch ScanError.device
            where candidate.waitForDevice
            && (try? DiscoverySession.device(named: candidate.device)) == nil
        {
            // Absent (or not a capture device yet): the thread reports `waiting` and starts when it appears. A
            // device that is there and refuses the size (or a control) is an error now, not a wait for ever.
            resolved = Resolved(configuration: candidate, size: PixelSize(width: 0, height: 0), offered: "")
            waiting = true
        }
        // A thread that ended by itself (fatal error) is joined before a new one starts.
        let finished = cond.withLock { () -> WorkerThread? in
            guard _state == .stopped, let t = thread else { return nil }
            thread = nil
            return t
        }
        finished?.join()
        cond.withLock {
            guard _state == .stopped, thread == nil else { return }
            committed = resolved
            waitingForDevice = waiting
            stopRequested = false
            restartRequested = false
            fatal = nil
            slot = nil
            _state = .starting
            _statistics = CaptureStatistics()
            startClock = .now
            thread = WorkerThread(name: "scand-capture") { [self] in captureLoop() }
        }
    }

    /// Stops streaming and waits for the capture thread to end. ``nextFrame()`` then returns nil.
    /// Safe to call from several threads at once, and from an event handler.
    public func stopRunning() {
        let t = cond.withLock { () -> WorkerThread? in
            stopRequested = true
            cond.broadcast()
            defer { thread = nil }
            return thread
        }
        if let t {
            // From an event handler (the capture thread itself): it ends on its own; the WorkerThread,
            // never joined, is detached when released.
            if t.isCurrent { return }
            t.join()
        } else {
            cond.withLock { while _state != .stopped { cond.wait() } }
        }
    }

    /// The session state.
    public var state: State { cond.withLock { _state } }
    /// True between `wasInterrupted`/`deviceDisconnected` and the next frame.
    public var isInterrupted: Bool { cond.withLock { _interrupted } }
    /// The negotiated format of the current stream (nil before the first stream starts).
    public var activeFormat: ActiveFormat? { cond.withLock { _activeFormat } }
    /// Counters since start.
    public var statistics: CaptureStatistics { cond.withLock { _statistics } }
    /// The last runtime error's reason, if any.
    public var lastError: String? { cond.withLock { _lastError } }

    // MARK: Events

    /// Calls `handler` on the capture thread for every device event. Keep it short: frames wait meanwhile.
    public func addEventHandler(_ handler: @escaping @Sendable (DeviceEvent) -> Void) {
        cond.withLock { handlers.append(handler) }
    }

    /// A stream of device events from now on (buffering the newest 64 when the reader is slow).
    public func deviceEvents() -> AsyncStream<DeviceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = cond.withLock { () -> Int in
            defer { nextContinuation += 1 }
            continuations[nextContinuation] = continuation
            return nextContinuation
        }
        continuation.onTermination = { [weak self] _ in
            self?.cond.withLock { _ = self?.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    private func emit(_ kind: DeviceEvent.Kind, _ reason: String? = nil, control: String? = nil, value: Int64? = nil) {
        let (event, hs, cs) = cond.withLock {
            () -> (DeviceEvent, [@Sendable (DeviceEvent) -> Void], [AsyncStream<DeviceEvent>.Continuation]) in
            if kind == .runtimeError { _lastError = reason }
            return (
                DeviceEvent(
                    kind: kind, device: committed.configuration.device, reason: reason, control: control, value: value),
                handlers, Array(continuations.values)
            )
        }
        for h in hs { h(event) }
        for c in cs { c.yield(event) }
    }

    // MARK: FrameSource

    public var info: SourceInfo {
        cond.withLock {
            SourceInfo(name: committed.configuration.device, frameRate: _activeFormat?.frameRate, isLive: true)
        }
    }

    /// Blocks until a frame newer than the last one returned is ready; nil once ``stopRunning()`` was called
    /// (a frame still waiting in the slot is dropped then).
    /// - Throws: ``ScanError/device(path:reason:)`` when the session stopped on a fatal error (e.g. a refused format).
    public func nextFrame() throws -> Frame? {
        try nextFrame(timeout: nil)
    }

    /// Like ``nextFrame()`` but gives up after `timeout` (returning nil while still running).
    public func nextFrame(timeout: Duration?) throws -> Frame? {
        let deadline = timeout.map { MonotonicInstant.now.advanced(by: $0) }
        return try cond.withLock { () throws -> Frame? in
            while true {
                if let fatal { throw fatal }
                if _state == .stopped || stopRequested { return nil }
                if let f = slot {
                    slot = nil
                    _statistics.framesDelivered += 1
                    return f
                }
                if let deadline {
                    if MonotonicInstant.now >= deadline { return nil }
                    cond.wait(until: deadline)
                } else {
                    cond.wait(for: .seconds(1))
                }
            }
        }
    }

    /// Stops the session (``FrameSource`` conformance).
    public func close() { stopRunning() }

    // MARK: The capture thread

    /// The capture thread: opens the stream, reads frames into the slot, and lets ``CaptureLoopMachine``
    /// decide what each open and read means (events, reopening, backing off, failing).
    private func captureLoop() {
        var stream: V4L2Stream?
        var (resolved, waiting) = cond.withLock { (committed, waitingForDevice) }
        var machine = CaptureLoopMachine(
            waitingForDevice: waiting, eioReopenThreshold: resolved.configuration.eioReopenThreshold)
        var retry = 0.05
        var lastFrame = MonotonicInstant.now
        var index = 0
        /// Performs the machine's actions; false when the session failed.
        func perform(_ actions: [CaptureLoopMachine.Action]) -> Bool {
            let interrupted = machine.isInterrupted
            cond.withLock { _interrupted = interrupted }
            for action in actions {
                switch action {
                case .emit(let kind, let reason): emit(kind, reason)
                case .closeStream:
                    stream?.close()
                    stream = nil
                case .resetBackOff: retry = 0.05
                case .backOff:
                    waitForStop(seconds: retry)
                    retry = min(retry * 2, resolved.configuration.maxRetryInterval)
                case .fail(let why):
                    cond.withLock { fatal = ScanError.device(path: resolved.configuration.device, reason: why) }
                    return false
                }
            }
            return true
        }
        let controls = makeControls(resolved.configuration.controls)

        guard perform(machine.started()) else { return finishLoop(stream: &stream) }
        while true {
            let (stop, restart, controlsOnly, current) = takeRequests()
            if stop { break }
            if restart {
                stream?.close()
                stream = nil
                machine.restarted()
                retry = 0.05
            }
            if restart || controlsOnly {
                resolved = current
                controls.reconfigure(current.configuration.controls, stream: stream)
            }

            if stream == nil {
                // Waiting for a device that was absent at start: check it (and the configuration) each turn.
                if waiting {
                    if let failure = resolveAwaitedDevice(&resolved) {
                        if perform(machine.openFailed(failure)) { continue } else { break }
                    }
                    waiting = false
                }
                do {
                    let (path, s, format) = try startStream(resolved)
                    stream = s
                    let summary = Self.openedSummary(format, stream: s, asked: resolved.configuration)
                    _ = perform(machine.opened(path: path, summary: summary))
                    controls.opened(s)  // apply controls: first start, reopen, re-plug
                    lastFrame = .now
                } catch let failure {
                    if perform(machine.openFailed(Self.openFailure(failure))) { continue } else { break }
                }
            }

            guard let s = stream else { continue }
            let stallTimeout = resolved.configuration.stallTimeout
            let result = s.next(timeout: Self.pollTimeout(lastFrame: lastFrame, stallTimeout: stallTimeout))
            controls.drainEvents(s)
            let read = record(result, stream: s, controls: controls, index: &index, lastFrame: &lastFrame)
            _ = perform(machine.read(read))

            if stream != nil, lastFrame.elapsed > .seconds(stallTimeout) {
                _ = perform(machine.stalled(stallTimeout: stallTimeout))
                lastFrame = .now
            }
        }
        finishLoop(stream: &stream)
    }

    /// How long one poll for a buffer waits: until the stall timeout (`stallTimeout` seconds after
    /// `lastFrame`) would pass, but between 10 and 100 ms, so requests (stop, restart) are seen promptly.
    private static func pollTimeout(lastFrame: MonotonicInstant, stallTimeout: Double) -> Duration {
        min(max(.seconds(stallTimeout) - lastFrame.elapsed, .milliseconds(10)), .milliseconds(100))
    }

    /// The camera controls the capture thread applies (``SessionControls``), reporting through this session's
    /// events.
    private func makeControls(_ configuration: ControlConfiguration) -> SessionControls {
        SessionControls(configuration) { [self] kind, reason, control, value in
            emit(kind, reason, control: control, value: value)
        }
    }

    /// The control side's requests since the last turn (stop, restart, new controls), taken, and the committed
    /// configuration.
    private func takeRequests() -> (stop: Bool, restart: Bool, controlsOnly: Bool, current: Resolved) {
        cond.withLock { () -> (Bool, Bool, Bool, Resolved) in
            defer {
                restartRequested = false
                controlsChanged = false
            }
            return (stopRequested, restartRequested, controlsChanged, committed)
        }
    }

    /// For a device absent at start: checks it (and the configuration) again, and commits `resolved` when it is
    /// there. nil when it is; otherwise what the failure tells ``CaptureLoopMachine``: still absent (quiet), or
    /// refused (the configuration does not fit it).
    private func resolveAwaitedDevice(_ resolved: inout Resolved) -> CaptureLoopMachine.OpenFailure? {
        do {
            resolved = try Self.resolve(resolved.configuration)
            let now = resolved
            cond.withLock {
                committed = now
                waitingForDevice = false
            }
            return nil
        } catch ScanError.device {
            return .quiet
        } catch {
            return .refused("\(error)")
        }
    }

    /// Opens and starts streaming `resolved`'s device, and records its format (the session is running).
    private func startStream(_ resolved: Resolved) throws -> (path: String, stream: V4L2Stream, format: ActiveFormat) {
        let path = try DiscoverySession.resolve(resolved.configuration.device)
        let s = try openStream(path: path, resolved: resolved)
        let format = ActiveFormat(path: path, size: s.size, sourceFourcc: s.sourceFourcc, frameRate: s.frameRate)
        cond.withLock {
            _activeFormat = format
            _statistics.streamStarts += 1
            if _state == .starting { _state = .running }
        }
        return (path, s, format)
    }

    /// What the capture thread makes of one dequeue of `stream`: a frame goes into the slot (the one there, not
    /// taken yet, counts as dropped late) with the next `index`, and the counters follow; `lastFrame`
    /// seconds) moves on a frame and when the device is gone.
    private func record(
        _ result: DequeueResult, stream: V4L2Stream, controls: SessionControls, index: inout Int,
        lastFrame: inout MonotonicInstant
    ) -> CaptureLoopMachine.Read {
        switch result {
        case .frame(let plane, let sequence, let timestamp):
            let t = MonotonicInstant.now
            lastFrame = t
            let clock = timestamp ?? t
            let frame = Frame(
                luma: plane, index: index, time: max(0, startClock.duration(to: clock).inSeconds), sequence: sequence,
                captureClock: clock)
            index += 1
            cond.withLock {
                if slot != nil { _statistics.framesDroppedLate += 1 }
                slot = frame
                _statistics.framesCaptured += 1
                cond.broadcast()
            }
            controls.frame(plane, stream: stream)  // exposure metering
            return .frame
        case .corrupt:
            cond.withLock { _statistics.errorBuffers += 1 }
            return .corrupt
        case .timeout:
            return .timeout
        case .eio:
            cond.withLock { _statistics.eioErrors += 1 }
            return .eio
        case .gone:
            lastFrame = .now
            return .gone
        case .error(let why):
            return .error(why)
        }
    }

    /// Closes the stream, marks the session stopped and reports `stopped` (not after a fatal error).
    private func finishLoop(stream: inout V4L2Stream?) {
        stream?.close()
        stream = nil
        let wasFatal = cond.withLock { () -> Bool in
            _state = .stopped
            _interrupted = false
            cond.broadcast()
            return fatal != nil
        }
        if !wasFatal { emit(.stopped) }
    }

    private func openStream(path: String, resolved: Resolved) throws -> V4L2Stream {
        let c = resolved.configuration
        return try V4L2Stream(
            path: path, size: resolved.size, frameRate: c.frameRate, bufferCount: c.bufferCount,
            offered: { resolved.offered })
    }

    /// Sleeps up to `seconds`, waking early when stop or a restart is requested.
    private func waitForStop(seconds: Double) {
        let deadline = MonotonicInstant.now.advanced(by: .seconds(seconds))
        cond.withLock {
            while !stopRequested && !restartRequested {
                if MonotonicInstant.now >= deadline { break }
                cond.wait(until: deadline)
            }
        }
    }
}
