public import Logging
public import ScanCore
import ScanDetection
public import ScanKit
public import ScanOutput

#if canImport(Glibc)
    import Glibc
#endif

/// `scand run`: the ``FramePipeline`` with ``PipelineSettings/run(pacing:loop:live:)`` (a source thread, a
/// hand-off where the newest frame wins when paced or live, lossless otherwise) on a pipeline thread of its
/// own, whose consumer adds presence (``PresenceTracker``) and publishes numbered events (`seq`,
/// `timestamp`) on the bus every sink reads.
public final class Daemon: @unchecked Sendable {
    // Invariant for @unchecked Sendable: every `var` below is read and written only under `monitor`
    // (the source thread, the pipeline thread and the control side all go through it); `source`,
    // `logger`, `events`, `frameOutput`, `frameObserver`, `control`, `onEnd`, `camera`, `identifiers`,
    // `faceSearchOffset` and `closesBus` are immutable and Sendable themselves.

    private let source: DaemonSource
    private let logger: Logger
    private let emitter: EventFanOut
    /// The camera's name on every event this pipeline publishes (nil: none).
    public let camera: String?
    private let identifiers: TrackIdentifiers?
    /// Where this camera's face search cycle sits among the run's cameras (0 ..< 1).
    private let faceSearchOffset: Double
    private let closesBus: Bool
    /// The event fan-out: every published event (numbered, encoded), for a service to subscribe to.
    public var events: EventFanOut { emitter }
    /// The frame output: processed frames with their metadata objects, newest wins, for a preview.
    public let frameOutput = VideoDataOutput()
    private let onEnd: @Sendable (DaemonEnd) -> Void
    private let monitor = Monitor()
    private var configuration: DaemonConfiguration
    private var pendingConfiguration: DaemonConfiguration?
    private var ended = false
    private var stats = DaemonStatistics()
    /// Stops the pipeline, or wakes it for a reload.
    private let control = PipelineControl()
    private var pipelineThread: WorkerThread?
    /// Watches a pipe source for a writer that stops sending (nil for files and cameras).
    private var stallWatch: StallWatch?
    private let frameObserver: FrameObserver?
    /// When the pipeline thread began the frame it is working on; nil while it waits.
    private var frameStartedAt: MonotonicInstant?
    /// Test hook (docs/testing.md): `SCAND_TEST_HANG_PIPELINE_AFTER=N` makes the pipeline thread hang for
    /// good inside its N+1st frame, as a detector stuck in a C call would, for the watchdog tests.
    private let hangAfterFrames: Int? = getenv("SCAND_TEST_HANG_PIPELINE_AFTER").flatMap { Int(String(cString: $0)) }

    /// How long the pipeline thread has been working on its current frame; nil while it waits for one (no
    /// frame came: a stalled pipe, a camera being waited for, the input's end). The systemd watchdog pings only
    /// while this stays short (``WatchdogService``).
    public var busyWithFrameFor: Duration? {
        monitor.withLock { frameStartedAt?.elapsed }
    }

    /// Sees every processed frame on the pipeline thread, after its events were published: the frame, what
    /// was found on it, the stage times of its ``MetadataOutput/FrameResult`` and the counters so far. It must
    /// return at once (the HTTP server's frame output only keeps a reference to the newest frame).
    public typealias FrameObserver =
        @Sendable (Frame, MetadataEvent, MetadataOutput.StageTimings, DaemonStatistics) -> Void

    /// The configuration in force (the last one given to ``reload(_:)``, or the initial one).
    public var currentConfiguration: DaemonConfiguration { monitor.withLock { configuration } }

    /// - Parameters:
    ///   - bus: the event bus the daemon publishes on; sinks and services subscribe to it, before or after the
    ///     daemon is made (but before ``start()``, to see every event).
    ///   - frameObserver: sees every processed frame (the HTTP server's metrics); nil: none.
    ///   - onEnd: called once, from a pipeline thread, when the pipeline stops on its own or is stopped.
    ///   - camera: the camera's name on every event it publishes (`scand run`; nil: none).
    ///   - identifiers: faceID and trackID sequences shared with the run's other cameras (nil: its own).
    ///   - closesBus: ``stop()`` closes the bus (false when other cameras still publish on it: their owner
    ///     closes it).
    public init(
        configuration: DaemonConfiguration, source: DaemonSource, bus: EventFanOut,
        frameObserver: FrameObserver? = nil, camera: String? = nil, identifiers: TrackIdentifiers? = nil,
        faceSearchOffset: Double = 0, closesBus: Bool = true, logger: Logger,
        onEnd: @escaping @Sendable (DaemonEnd) -> Void
    ) {
        self.camera = camera
        self.faceSearchOffset = faceSearchOffset
        self.identifiers = identifiers
        self.closesBus = closesBus
        self.configuration = configuration
        self.source = source
        self.logger = logger
        self.emitter = bus
        self.frameObserver = frameObserver
        self.onEnd = onEnd
    }

    /// A daemon publishing to `sinks` on a bus of its own.
    public convenience init(
        configuration: DaemonConfiguration, source: DaemonSource, sinks: [any EventSink], logger: Logger,
        onEnd: @escaping @Sendable (DaemonEnd) -> Void
    ) {
        self.init(
            configuration: configuration, source: source, bus: EventFanOut(sinks: sinks, logger: logger),
            logger: logger, onEnd: onEnd)
    }

    /// True once the source was opened and is a camera.
    private var sourceIsLive = false

    /// Counters so far.
    public var statistics: DaemonStatistics {
        var s = monitor.withLock { stats }
        s.events = emitter.count
        return s
    }

    /// Checks that `configuration` can be run (types available, models present, ranges valid).
    public static func validate(_ configuration: DaemonConfiguration) throws {
        try configuration.presence.validate()
        _ = try MetadataOutput(configuration: configuration.output)
    }

    /// Opens the source and starts the source and pipeline threads. Errors (source unreadable, detector
    /// setup) are thrown here, before anything is published.
    public func start() throws {
        let config = monitor.withLock { configuration }
        try Self.validate(config)
        if let events = source.deviceEvents {
            // A camera reports its own `waiting` (absent at start) and `started` (with the negotiated format)
            // from its thread, which opening starts: listen first so none is lost.
            events.startReporting { [emitter, camera] event in emitter.emit([.device(event)], camera: camera) }
        }
        let first: any FrameSource
        do {
            first = try source.open()
        } catch {
            source.deviceEvents?.stopReporting()
            throw error
        }
        if let note = first.info.note { logger.warning("\(note)") }
        let live = first.info.isLive
        monitor.withLock { sourceIsLive = live }
        if source.deviceEvents == nil {
            publish([.device(DeviceEvent(kind: .started, device: first.info.name))])
        }
        // A pipe is live too: its writer may stop sending without closing it (issue 49).
        let watch = source.stallTimeout.map { timeout in
            StallWatch(timeout: timeout, device: first.info.name) { [weak self] event in self?.publish([.device(event)])
            }
        }
        let thread = WorkerThread(name: "scand-pipeline") { [self] in
            runPipeline(first: first, initial: config, live: live, stallWatch: watch)
        }
        monitor.withLock {
            pipelineThread = thread
            stallWatch = watch
        }
    }

    /// Applies a new configuration between two frames, or at once when no frame comes (a stalled
    /// source). `metadataObjectTypes`, rect of interest, barcode settings, presence rules and `emitMetadata`
    /// change; pacing and looping keep their start-up values.
    /// - Throws: when the new configuration is invalid; the running one is kept.
    public func reload(_ newConfiguration: DaemonConfiguration) throws {
        try Self.validate(newConfiguration)
        monitor.withLock {
            var c = newConfiguration
            c.pacing = configuration.pacing
            c.loop = configuration.loop
            configuration = c
            pendingConfiguration = c
        }
        // The pipeline thread applies it between frames; when none comes, this wakes it.
        control.nudge()
    }

    /// Sets the rect of interest (normalized device coordinates, within the frame) from the next frame on,
    /// and publishes a `configuration` event naming `origin`. A later SIGHUP reload sets it from the config
    /// file again.
    /// - Throws: when the rectangle is not a valid rect of interest; the running one is kept.
    public func setRectOfInterest(_ rect: NormalizedRect, origin: String) throws {
        var c = currentConfiguration
        c.output.rectOfInterest = rect
        c.output.rectOfInterestView = nil
        try reload(c)
        publish([.configuration(ConfigurationEvent(rectOfInterest: rect, origin: origin))])
    }

    /// Stops reading, lets the pipeline finish its current frame, reports `lost` for everything still
    /// present, and waits for both threads. Safe to call more than once.
    public func stop() {
        control.stop()  // wakes a paced sleep, and the pipeline thread waiting for a frame
        let (thread, watch) = monitor.withLock { (pipelineThread, stallWatch) }
        watch?.stop()
        source.deviceEvents?.stopReporting()
        // Sinks never block the pipeline thread, so it ends once its current frame is done; a frame can take
        // long (a huge image with every pass), so it gets up to `stopTimeout`. The source thread may be
        // blocked in a read nothing interrupts (stdin with no data); it does not keep the process from stopping.
        if let thread {
            let timeout = monitor.withLock { configuration.stopTimeout }
            if !thread.join(timeout: .seconds(timeout)) {
                logger.warning("pipeline still busy with a frame after \(Int(timeout)) s; stopping without it")
                publishStopped(device: source.name)
            }
            if !control.joinReader(timeout: .seconds(1)) {
                logger.notice("source still blocked in a read; not waiting for it")
            }
        }
        if closesBus { emitter.close() }
        frameOutput.close()
    }

    /// Numbers `events` onto the bus under this pipeline's camera.
    private func publish(_ events: [ScanEvent]) { emitter.emit(events, camera: camera) }

    /// Publishes `device stopped` once, whichever of the pipeline thread and ``stop()`` gets there first.
    private func publishStopped(device: String) {
        let first = monitor.withLock { () -> Bool in
            defer { stoppedPublished = true }
            return !stoppedPublished
        }
        if first { publish([.device(DeviceEvent(kind: .stopped, device: device))]) }
    }
    private var stoppedPublished = false

    private func finish(_ end: DaemonEnd) {
        let first = monitor.withLock { () -> Bool in
            defer { ended = true }
            return !ended
        }
        if first { onEnd(end) }
    }

    // MARK: pipeline thread

    private func runPipeline(
        first: any FrameSource, initial: DaemonConfiguration, live: Bool, stallWatch: StallWatch?
    ) {
        let output: MetadataOutput
        do {
            output = try MetadataOutput(
                configuration: initial.output, identifiers: identifiers, faceSearchOffset: faceSearchOffset)
        } catch {
            first.close()
            logger.critical("\(error)")
            finish(.sourceFailed("\(error)"))
            return
        }
        var pipeline = FramePipeline(
            settings: .run(pacing: initial.pacing, loop: initial.loop, live: live), processor: output,
            control: control)
        var frames = PublishFrames(daemon: self, config: initial, output: output)
        let observer = ReadObserver(
            frameRead: { [self] dropped in
                stallWatch?.frameArrived()
                monitor.withLock {
                    stats.framesRead += 1
                    stats.framesDropped += dropped
                }
                if dropped > 0 { logger.debug("pipeline busy: dropped \(dropped) late frame(s)") }
            })
        let reopen: (@Sendable () throws -> any FrameSource)? =
            source.canReopen
            ? { @Sendable [source, logger] in
                let next = try source.open()
                logger.debug("looping", metadata: ["source": "\(source.name)"])
                return next
            } : nil
        // PublishFrames never rethrows a frame's failure: it reports it and the pipeline goes on.
        let end = (try? pipeline.run(source: first, reopen: reopen, observer: observer, consumer: &frames)) ?? .stopped
        stallWatch?.stop()  // the input ended: no stall to report any more
        // A source's failure takes its place after the frames read before it, on every run alike.
        if case .sourceFailed(let name, let error) = end {
            publish([.device(DeviceEvent(kind: .runtimeError, device: name, reason: "\(error)"))])
        }
        endPipeline(frames, end: end)
    }

    /// `scand run`'s consumer: each processed frame's events (its `metadata`, then presence changes) numbered
    /// onto the bus, the frame for the preview, the observer with the counters; a reload applied between frames.
    private struct PublishFrames: FrameConsumer {
        typealias Processor = MetadataOutput
        let daemon: Daemon
        var config: DaemonConfiguration
        /// The detectors in use (the pipeline's processor, replaced on reload).
        var output: MetadataOutput
        let tracker: PresenceTracker
        var last: (source: String, frame: Int, time: Double)
        var failureReports = ReportThrottle(interval: .seconds(1))
        var outputClosed = false

        init(daemon: Daemon, config: DaemonConfiguration, output: MetadataOutput) {
            self.daemon = daemon
            self.config = config
            self.output = output
            tracker = PresenceTracker(configuration: config.presence)
            last = (daemon.source.name, 0, 0)
        }

        mutating func prepare(_ processor: inout MetadataOutput) {
            guard let (newConfig, newOutput) = daemon.pendingOutput(after: processor) else { return }
            config = newConfig
            processor = newOutput
            output = newOutput
            tracker.configuration = newConfig.presence
        }

        func willProcess(_ item: PipelineFrame) {
            let processedBefore = daemon.monitor.withLock { () -> Int in
                daemon.frameStartedAt = .now
                return daemon.stats.framesProcessed
            }
            if let hangAfterFrames = daemon.hangAfterFrames, processedBefore >= hangAfterFrames {
                daemon.logger.warning(
                    "test hook: the pipeline hangs now (SCAND_TEST_HANG_PIPELINE_AFTER=\(hangAfterFrames))")
                while true { Glibc.sleep(3600) }
            }
        }

        mutating func processingFailed(_ item: PipelineFrame, error: any Error) {
            daemon.monitor.withLock { daemon.frameStartedAt = nil }
            daemon.reportFailedFrame(item, error: error, reports: &failureReports)
        }

        mutating func consume(_ item: PipelineFrame, _ result: MetadataOutput.FrameResult) -> Bool {
            let event = result.event
            daemon.monitor.withLock {
                daemon.stats.framesProcessed += 1
                daemon.frameStartedAt = nil
            }
            daemon.frameOutput.publish { VideoFrame(frame: item.frame, metadata: event) }
            daemon.publish(frameEvents(result, item: item))
            // The observer and the counters it is shown, under one lock.
            if let observer = daemon.frameObserver {
                var s = daemon.monitor.withLock { daemon.stats }
                s.events = daemon.emitter.count
                observer(item.frame, event, result.timings, s)
            }
            last = (event.source, event.frame, event.time)
            if daemon.outputGone() {
                outputClosed = true
                return false
            }
            return true
        }

        /// The events of one processed frame: its `metadata` (when emitted), then the presence changes: the face
        /// tracker's (a detector that tracks decides its own presence), then the presence tracker's for the rest.
        private func frameEvents(_ result: MetadataOutput.FrameResult, item: PipelineFrame) -> [ScanEvent] {
            let event = result.event
            var events: [ScanEvent] = []
            if config.emitMetadata { events.append(.metadata(event)) }
            tracker.externallyTracked = output.presenceTypes
            if config.presence.enabled {
                events += result.facePresence.map(ScanEvent.presence)
            }
            for p in tracker.update(
                objects: event.objects, source: event.source, frame: event.frame, time: item.streamTime)
            {
                var p = p
                p.time = event.time
                events.append(.presence(p))
            }
            return events
        }
    }

    /// The configuration a reload left waiting, with its output (the face tracker, with its faceIDs and
    /// presence, carried over from `output`: IDs never restart after a SIGHUP); nil when none waits, or when
    /// it cannot be applied (logged; the running one is kept). A reload is applied before the next frame, or
    /// at once when no frame comes (a stalled pipe, an unplugged camera: ``reload(_:)`` nudges the queue), so
    /// SIGHUP is acknowledged whatever the source does, and nothing wakes the pipeline thread while no frame
    /// comes (issue 52: it woke 4 times a second).
    private func pendingOutput(after output: MetadataOutput) -> (DaemonConfiguration, MetadataOutput)? {
        guard
            let newConfig = monitor.withLock({ () -> DaemonConfiguration? in
                defer { pendingConfiguration = nil }
                return pendingConfiguration
            })
        else { return nil }
        do {
            let next = try MetadataOutput(configuration: newConfig.output, continuing: output)
            logger.notice(
                "configuration applied",
                metadata: [
                    "types": "\(newConfig.output.metadataObjectTypes.map(\.rawValue).sorted().joined(separator: ","))",
                    "metadata": "\(newConfig.emitMetadata)",
                ])
            return (newConfig, next)
        } catch {
            logger.error("reloaded configuration not applied: \(error)")
            return nil
        }
    }

    /// A frame the detectors failed on (a C library out of memory): logged, and a `runtimeError` device event
    /// for the first, then at most one a second saying how many failed since, so clients learn of it without
    /// a flood.
    private func reportFailedFrame(_ item: PipelineFrame, error: any Error, reports: inout ReportThrottle) {
        logger.error("frame \(item.frame.index) of \(item.info.name): \(error)")
        if let failed = reports.record() {
            let reason =
                "frame \(item.frame.index) not scanned: \(error)"
                + (failed > 1 ? " (\(failed) frames failed since the last report)" : "")
            publish([.device(DeviceEvent(kind: .runtimeError, device: item.info.name, reason: reason))])
        }
    }

    /// After the last frame: `lost` for everything still present (the faces with the face tracker's own, then
    /// the rest), `device stopped`, then the pipeline's end: its output went away, or how the source ended.
    private func endPipeline(_ frames: PublishFrames, end: PipelineEnd) {
        let last = frames.last
        let facesLost =
            frames.config.presence.enabled
            ? frames.output.finishPresence(sourceName: last.source, frame: last.frame, time: last.time)
                .map { p -> ScanEvent in
                    var p = p
                    p.time = last.time
                    return .presence(p)
                } : []
        let lost =
            facesLost
            + frames.tracker.flush(source: last.source, frame: last.frame, time: last.time).map(ScanEvent.presence)
        publish(lost)
        publishStopped(device: last.source)
        if frames.outputClosed || outputGone() {
            control.stop()
            finish(.outputClosed)
            return
        }
        // Stopped: by ``stop()`` (an output that went away stopped the control too, and ended above).
        let stopped = control.isStopped
        switch end {
        case .stopped, .consumerStopped: finish(.stopped)
        case .sourceEnded: finish(stopped ? .stopped : .sourceEnded)
        case .sourceFailed(_, let error): finish(stopped ? .stopped : .sourceFailed("\(error)"))
        }
    }

    /// Set by sinks whose reader went away (see ``outputClosed()``).
    private var outputClosedFlag = false
    private func outputGone() -> Bool { monitor.withLock { outputClosedFlag } }

    /// Tells the pipeline that an output's reader went away (stdout EPIPE): it stops after the current frame.
    public func outputClosed() {
        monitor.withLock { outputClosedFlag = true }
        control.stop()
    }

    /// Tells the other sinks that `output` failed to write (a `device` event of kind `runtimeError` whose
    /// `device` is the output's name, e.g. `stdout`, and whose `reason` is the error). The pipeline goes on
    /// serving the other sinks; the caller decides whether to stop.
    public func outputFailed(output: String, reason: String) {
        emitter.emit([.device(DeviceEvent(kind: .runtimeError, device: output, reason: reason))])
    }
}

/// Socket snapshots: what is in view (from the published `appeared`/`lost` events, so faces and codes alike,
/// in the same `seq` order the clients see) and the source's state.
extension Daemon: ServerStateProvider {
    public func presenceSnapshot() -> PresenceSnapshot { emitter.snapshot() }

    public func sourceStates() -> [SourceState] {
        let s = statistics
        let live = monitor.withLock { sourceIsLive }
        return [
            SourceState(
                device: source.name,
                state: emitter.lastDeviceKind(source.name, camera: camera)?.rawValue ?? "starting",
                live: live, framesRead: s.framesRead, framesProcessed: s.framesProcessed,
                framesDropped: s.framesDropped, camera: camera)
        ]
    }
}
