public import Logging
public import ScanCapture
public import ScanCore
public import ScanDaemon
import ScanHTTP
public import ScanKit
import ScanMQTT
import ScanOutput
import ServiceLifecycle

/// `scand run`'s service graph, built and not yet running: the event bus first, then the daemon publishing on
/// it, then every sink and service built from the bus, the daemon (their state provider) and the plan, in a
/// swift-service-lifecycle `ServiceGroup` with the pipeline last (docs/architecture.md, "The assembly").
///
/// ``DaemonRunner/run(_:options:logger:)`` builds one from the plan's own source and runs it. The assembly
/// test builds one around an in-memory source and sinks, sends hangups through ``HangupTrap/inMemory()``
/// and stops it with ``stop()``, which is what SIGTERM does.
public final class DaemonAssembly: Sendable {
    /// One camera to run: its plan, its frame source, and the camera session behind the source, if any (SIGHUP
    /// applies camera settings to it).
    public struct Camera: Sendable {
        public var plan: CameraPlan
        public var source: DaemonSource
        public var session: CaptureSession?
        public init(plan: CameraPlan, source: DaemonSource, session: CaptureSession? = nil) {
            self.plan = plan
            self.source = source
            self.session = session
        }
    }

    /// The cameras' pipelines: source → detector stages → presence → ``bus``, one per camera.
    public let cameras: CameraSet
    /// The first camera's pipeline (the only one of a one-camera run).
    public var daemon: Daemon { cameras.daemons[0] }
    /// The event bus every sink is subscribed to.
    public let bus: EventFanOut
    private let group: ServiceGroup
    private let control: RunControl
    private let mailbox: DaemonMailbox
    private let timeout: Double?
    private let logger: Logger

    /// A one-camera assembly: the plan's single camera (named ``CameraPlan/defaultName``) reading `source`.
    /// - Parameters:
    ///   - source: the frame source (the plan's file, stdin or camera; in a test, one in memory).
    ///   - camera: the camera session behind `source`, if any (SIGHUP applies camera settings to it).
    public convenience init(
        plan: DaemonPlan, options: DaemonRunOptions, source: DaemonSource, camera: CaptureSession? = nil,
        sinks: [any EventSink] = [], hangups: HangupTrap, signals: Bool = true, logger: Logger
    ) throws {
        try self.init(
            plan: plan, options: options, cameras: [Camera(plan: plan.cameraPlans[0], source: source, session: camera)],
            sinks: sinks, hangups: hangups, signals: signals, logger: logger)
    }

    /// Builds the graph and starts every camera's source (frames flow to the bus once ``run()`` runs the group;
    /// events published before are kept by the sinks).
    /// - Parameters:
    ///   - cameras: the cameras to run, at least one.
    ///   - sinks: sinks beside the plan's (stdout, socket, HTTP, MQTT): they get every event, and are
    ///     finished when the pipeline stops, as stdout is.
    ///   - hangups: where reloads come from (``HangupTrap/install()``, or ``HangupTrap/inMemory()``).
    ///   - signals: whether SIGTERM and SIGINT stop the group (false in a process that runs other work).
    /// - Throws: ``DaemonRunError`` (a usage error, or exit 1 logged when the daemon cannot start).
    public init(
        plan: DaemonPlan, options: DaemonRunOptions, cameras members: [Camera], sinks: [any EventSink] = [],
        hangups: HangupTrap, signals: Bool = true, logger: Logger
    ) throws {
        let mailbox = DaemonMailbox()
        let script = plan.script
        let stdout =
            plan.stdout
            ? DaemonStdout.sinkCountingLines(
                queueCapacity: plan.stdoutQueue, mode: script.mode, oneshot: script.oneshot, mailbox: mailbox,
                logger: logger) : nil
        let ownedSinks: [any EventSink] = (stdout.map { [$0.sink] } ?? []) + sinks
        // The event bus first: the daemon publishes on it, every sink and service is built from it (and from
        // the daemon as their state provider) and subscribes to it before the daemon starts.
        let bus = EventFanOut(sinks: ownedSinks, logger: logger)
        let banner = ServerBanner(version: options.version, types: plan.allMetadataObjectTypes.sorted())
        let metrics = plan.httpAddress != nil ? DaemonHTTP.makeMetrics(banner: banner) : nil
        // Each camera's frames in the metrics, under its name.
        let observers: (@Sendable (String) -> Daemon.FrameObserver)? = metrics.map { m in
            { @Sendable camera in DaemonHTTP.frameObserver(m, camera: camera) }
        }
        let cameras = CameraSet(
            members: members.map {
                CameraSet.Member(name: $0.plan.name, configuration: $0.plan.daemon, source: $0.source)
            },
            bus: bus,
            frameObserver: observers,
            logger: logger,
            onEnd: { mailbox.post(.ended($0)) })
        let outputs = try DaemonRunner.makeOutputs(
            plan, bus: bus, cameras: cameras, banner: banner, metrics: metrics, logger: logger)
        guard !ownedSinks.isEmpty || outputs.server != nil || outputs.http != nil || outputs.mqtt != nil else {
            throw DaemonRunError.usage(
                "nothing to deliver to: give --stdout, --socket PATH, --http HOST:PORT and/or --mqtt URL (or start by socket activation)"
            )
        }
        // Subscribes to the bus now, before the first event.
        let mqttService = outputs.mqtt.map { MQTTService(client: $0, events: bus, logger: logger) }
        do {
            try cameras.start()
        } catch {
            logger.critical("\(error)")
            outputs.abandonSocket()
            throw DaemonRunError.exit(ExitStatus.failure)
        }

        // The services: the socket server, HTTP and MQTT serve until the group shuts down; the pipeline is
        // last so it stops first. Its control loop (RunControl) decides the exit status.
        let notifier = SystemdNotifier()
        let sessions = Dictionary(
            members.compactMap { m in m.session.map { (m.plan.name, $0) } }, uniquingKeysWith: { a, _ in a })
        let control = RunControl(
            plan: plan, options: options, cameras: cameras, server: outputs.server, sessions: sessions,
            notifier: notifier, logger: logger, mqtt: outputs.mqtt != nil,
            rawPrinted: script.mode != .json ? stdout?.printed : nil)
        let sourceNames = members.map(\.source.name).joined(separator: ", ")
        let pipeline = PipelineService(
            cameras: cameras, mailbox: mailbox, ownedSinks: ownedSinks, logger: logger,
            onReady: {
                notifier.notify("READY=1\nSTATUS=serving \(sourceNames)")
                logger.notice("ready", metadata: ["source": "\(sourceNames)"])
            },
            onStopping: { notifier.notify("STOPPING=1") }, hangups: hangups, handle: { await control.handle($0) })
        group = ServiceGroup(
            configuration: .daemon(
                pipeline: pipeline,
                otherServices: DaemonRunner.otherServices(
                    outputs, mqtt: mqttService, cameras: cameras, notifier: notifier, logger: logger),
                stopTimeout: plan.daemon.stopTimeout, signals: signals, logger: logger))
        self.cameras = cameras
        self.bus = bus
        self.control = control
        self.mailbox = mailbox
        self.timeout = script.timeout
        self.logger = logger
    }

    /// Runs the services until the pipeline decides to stop (the input ended with `exitAtEnd`, stdout went
    /// away, `--oneshot` got its object), ``stop()`` is called or a signal stops the group.
    /// - Throws: ``DaemonRunError/exit(_:)`` with an exit status other than 0; errors of the group.
    public func run() async throws {
        // --oneshot --timeout: the control loop gives up when the time runs out first.
        let mailbox = self.mailbox
        let timer = timeout.map { seconds in
            Task {
                try await Task.sleep(for: .seconds(seconds))
                mailbox.post(.timedOut(seconds: seconds))
            }
        }
        try await group.run()
        timer?.cancel()
        let stats = cameras.statistics
        logger.notice(
            "stopped",
            metadata: [
                "frames": "\(stats.framesProcessed)", "dropped": "\(stats.framesDropped)",
                "events": "\(stats.events)",
            ])
        let status = await control.status
        if status != ExitStatus.success { throw DaemonRunError.exit(status) }
    }

    /// Stops the group gracefully, as SIGTERM does: the pipeline first (its last `lost` and `device stopped`
    /// events published, its sinks finished), then the other services in reverse order.
    public func stop() async { await group.triggerGracefulShutdown() }
}
