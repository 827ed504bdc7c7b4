public import Logging
import ScanCapture
public import ScanCore
public import ScanDaemon
import ScanHTTP
import ScanKit
import ScanMQTT
import ScanOutput
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Why ``DaemonRunner/run(_:options:logger:)`` did not run or ended badly; the executable turns it into its
/// usage error or exit status.
public enum DaemonRunError: Error, Sendable, Equatable {
    /// A setting that cannot work (named in the text): a usage error (exit 64).
    case usage(String)
    /// The run ended with this exit status (``ExitStatus``), the reason already logged.
    case exit(Int32)
}

/// How `scand run` was started, besides its plan: what the runner needs from the executable.
public struct DaemonRunOptions: Sendable {
    /// The version in the socket's and WebSocket's hello banner.
    public var version: String
    /// `--config`: the file SIGHUP re-reads (nil: SIGHUP only logs that there is none).
    public var configPath: String?
    /// `--fail-fast`: an absent camera is an error at once, instead of waiting for it.
    public var failFast = false
    /// The input path as given (raw bytes kept), for ``DaemonPlan/input``; nil: from the plan's text.
    public var inputPath: InputPath?
    /// Merges the defaults, the config file and the flags again (SIGHUP).
    public var replan: @Sendable () throws -> DaemonPlan
    /// SIGHUP trapped as early as the executable could (nil: ``DaemonRunner/run(_:options:logger:)`` traps it
    /// first thing).
    public var hangups: HangupTrap?

    public init(
        version: String, configPath: String? = nil, failFast: Bool = false, inputPath: InputPath? = nil,
        hangups: HangupTrap? = nil, replan: @escaping @Sendable () throws -> DaemonPlan
    ) {
        self.version = version
        self.configPath = configPath
        self.failFast = failFast
        self.inputPath = inputPath
        self.hangups = hangups
        self.replan = replan
    }
}

/// `scand run`: assembles the daemon from a ``DaemonPlan`` (source, sinks: stdout, socket, HTTP, MQTT) and runs
/// it as a swift-service-lifecycle `ServiceGroup` until it ends (docs/architecture.md).
public enum DaemonRunner {
    /// Runs the plan until the source ends (with `exitAtEnd`), a signal stops it, or it fails.
    /// - Throws: ``DaemonRunError`` (a usage error, or an exit status other than 0); errors of the group.
    public static func run(_ plan: DaemonPlan, options: DaemonRunOptions, logger: Logger) async throws {
        // Before anything slow (models, camera, broker): a SIGHUP from now on is a reload once the pipeline
        // runs, not the default action that ends the process.
        let hangups: HangupTrap
        if let installed = options.hangups { hangups = installed } else { hangups = await HangupTrap.install() }
        await slowStartHook(logger: logger)
        // OpenCV's own size cap is an environment variable it reads once; set it before any decoding
        // (no other thread exists yet).
        ImageDecoder.prepareCodecsPlugin(limits: plan.limits)
        NetworkCameraConfiguration.prepareTLS(caFile: plan.cameraCa)
        var cameras: [DaemonAssembly.Camera] = []
        for var camera in plan.cameraPlans {
            if plan.cameras.isEmpty { camera.inputPath = options.inputPath }
            var cameraLogger = logger
            if !plan.cameras.isEmpty { cameraLogger[metadataKey: "camera"] = "\(camera.name)" }
            let session = makeCamera(camera, failFast: options.failFast, logger: cameraLogger)
            let source = try openSource(camera, plan: plan, session: session, logger: logger)
            cameras.append(DaemonAssembly.Camera(plan: camera, source: source, session: session))
        }
        let assembly = try DaemonAssembly(
            plan: plan, options: options, cameras: cameras, hangups: hangups, logger: logger)
        try await assembly.run()
    }

    /// Test hook (docs/testing.md): `SCAND_TEST_SLOW_START=SECONDS` stands for a slow start (a model on a slow
    /// disk, a camera that takes seconds to open), so a test can signal scand while it starts.
    private static func slowStartHook(logger: Logger) async {
        if let slow = getenv("SCAND_TEST_SLOW_START").flatMap({ Double(String(cString: $0)) }), slow > 0 {
            logger.warning("test hook: starting slowly (SCAND_TEST_SLOW_START=\(slow))")
            try? await Task.sleep(for: .seconds(slow))
        }
    }

    /// The camera session a camera's device asks for (not started yet): a camera that is not there yet (boot,
    /// USB re-enumeration) is waited for, unless `failFast`.
    static func makeCamera(_ plan: CameraPlan, failFast: Bool, logger: Logger) -> CaptureSession? {
        plan.capture.map { configuration -> CaptureSession in
            var c = configuration
            c.waitForDevice = !failFast
            let session = CaptureSession(configuration: c)
            // At the default log level too: otherwise an absent camera looks like a hang.
            session.addEventHandler { event in
                if event.kind == .waiting {
                    logger.warning(
                        "\(event.device): no such device yet; waiting for it to appear (--fail-fast exits instead)")
                }
            }
            return session
        }
    }

    /// ``makeSource(_:limits:session:)``, its errors as ``DaemonRunError``: a usage error, or exit 1 logged.
    static func openSource(
        _ camera: CameraPlan, plan: DaemonPlan, session: CaptureSession?, logger: Logger
    ) throws -> DaemonSource {
        do {
            return try makeSource(camera, limits: plan.limits, session: session)
        } catch let error as ScanError {
            if case .invalidArgument(let m) = error { throw DaemonRunError.usage(m) }
            logger.critical("\(error)")
            throw DaemonRunError.exit(ExitStatus.failure)
        }
    }

    /// The services beside the pipeline: the socket server, HTTP and MQTT, and the systemd watchdog.
    static func otherServices(
        _ outputs: Outputs, mqtt: MQTTService?, cameras: CameraSet, notifier: SystemdNotifier, logger: Logger
    ) -> [any Service] {
        var others: [any Service] = []
        if let server = outputs.server {
            others.append(SocketServerService(server: server, ownedSocket: outputs.ownedSocket, logger: logger))
        }
        if let http = outputs.http { others.append(http) }
        if let mqtt { others.append(mqtt) }
        if let watchdog = WatchdogService(cameras: cameras, notifier: notifier, logger: logger) {
            others.append(watchdog)
        }
        return others
    }

    /// The daemon's outputs besides stdout, each subscribed to `bus` (MQTT subscribes through its service).
    struct Outputs {
        var server: SocketServer?
        /// The socket file this run bound (nil under socket activation or without a socket).
        var ownedSocket: BoundSocket?
        var http: HTTPServer?
        var mqtt: MQTTClient?

        /// The run cannot start after the socket was bound: stop listening and remove the socket file, which
        /// is ours.
        func abandonSocket() {
            server?.finish()
            ownedSocket?.removeIfStillOurs()
        }
    }

    /// Opens the socket (`cameras` answer its clients' snapshots), then makes the MQTT client (its connection
    /// changes published on `bus`) and the HTTP server (its event hub subscribed to `bus`).
    /// - Throws: ``DaemonRunError`` (a usage error for the HTTP or MQTT settings, exit 1 when the socket
    ///   cannot be opened), the socket abandoned.
    static func makeOutputs(
        _ plan: DaemonPlan, bus: EventFanOut, cameras: CameraSet, banner: ServerBanner, metrics: ScandMetrics?,
        logger: Logger
    ) throws -> Outputs {
        var outputs = Outputs()
        do {
            let opened = try DaemonSocket.open(
                path: plan.socketPath, group: plan.socketGroup, configuration: plan.server,
                banner: banner, state: cameras, logger: logger)
            outputs.server = opened?.server
            outputs.ownedSocket = opened?.ownedSocket
        } catch let error as ScanError {
            logger.critical("\(error)")
            throw DaemonRunError.exit(ExitStatus.failure)
        }
        if let server = outputs.server { _ = bus.subscribe(server) }
        do {
            let httpConfiguration = try DaemonHTTP.configuration(
                address: plan.httpAddress, tokenPath: plan.httpTokenPath, output: plan.daemon.output,
                clientQueue: plan.server.clientQueueLimit, logger: logger)
            // MQTT: the client queues in its own outbox and owns its libmosquitto handle on its own thread.
            if let config = plan.mqtt {
                let broker = config.endpoint.description
                outputs.mqtt = try MQTTClient(configuration: config, logger: logger) { event in
                    bus.emit([.device(MQTTService.deviceEvent(event, broker: broker))])
                }
            }
            if let httpConfiguration, let metrics {
                let http = DaemonHTTP.makeServer(
                    configuration: httpConfiguration, maxFps: plan.httpMaxFps, banner: banner, metrics: metrics,
                    state: cameras,
                    outputs: { [weak cameras] in
                        cameras?.daemons.map { ($0.camera ?? CameraPlan.defaultName, $0.frameOutput) } ?? []
                    },
                    setRectOfInterest: { [weak cameras] rect, camera in
                        guard let cameras else { throw ScanError.invalidArgument("the pipeline is not running") }
                        try cameras.setRectOfInterest(rect, origin: "http", camera: camera)
                    },
                    socket: outputs.server, mqtt: outputs.mqtt, logger: logger)
                _ = bus.subscribe(http.events)
                // A camera a reload adds gets its preview; one it removes loses it.
                cameras.observeMembers { [weak http] name, daemon in
                    if let daemon {
                        http?.attach(camera: name, output: daemon.frameOutput)
                    } else {
                        http?.detach(camera: name)
                    }
                }
                outputs.http = http
            }
        } catch let error as ScanError {
            outputs.abandonSocket()
            throw DaemonRunError.usage(error.description)
        }
        return outputs
    }

    /// A camera's frame source: its camera session, or its file (or stdin) replayed.
    private static func makeSource(_ plan: CameraPlan, limits: DecoderLimits, session: CaptureSession?) throws
        -> DaemonSource
    {
        if let session { return openDeviceSource(session) }
        guard let input = plan.input else {
            throw ScanError.invalidArgument("no source: give --input FILE (or '-') or --device PATH")
        }
        if NetworkCameraConfiguration.isStreamURL(input) { return try networkSource(plan, url: input, limits: limits) }
        if plan.daemon.loop && input == "-" { throw ScanError.invalidArgument("--loop cannot repeat stdin") }
        let path = plan.inputPath ?? (input == "-" ? InputPath.standardInput : InputPath(input))
        let stallTimeout = isPipe(path) ? plan.pipeStallTimeout : nil
        var source = DaemonSource(name: path.displayName, canReopen: !path.isStandardInput) {
            try openFileSource(path: path, limits: limits)
        }
        source.stallTimeout = stallTimeout
        return source
    }

    /// True for a FIFO or a socket (stdin from another program, a named pipe): a writer that may stop sending.
    static func isPipe(_ path: InputPath) -> Bool {
        var st = stat()
        let rc =
            path.isStandardInput
            ? fstat(0, &st)
            : (path.bytes + [0]).withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { stat($0.baseAddress!, &st) }
            }
        return rc == 0 && [S_IFIFO, S_IFSOCK].contains(st.st_mode & S_IFMT)
    }
}

/// `scand run`'s control loop: what each command means for this run, and the exit status it leads to.
actor RunControl {
    private var plan: DaemonPlan
    private let options: DaemonRunOptions
    private let cameras: CameraSet
    private let server: SocketServer?
    /// The camera sessions of the cameras that read a device, by camera name (a reload adds and removes).
    private var sessions: [String: CaptureSession]
    private let notifier: SystemdNotifier
    private let logger: Logger
    /// An MQTT broker is served too (it keeps being served when stdout fails).
    private let mqtt: Bool
    private(set) var status = ExitStatus.success
    private var completed = false
    /// With `--raw`/`--raw-bytes`: how many values stdout has printed (none at the input's end: exit 4).
    private let rawPrinted: (@Sendable () -> Int)?

    init(
        plan: DaemonPlan, options: DaemonRunOptions, cameras: CameraSet, server: SocketServer?,
        sessions: [String: CaptureSession],
        notifier: SystemdNotifier, logger: Logger, mqtt: Bool = false, rawPrinted: (@Sendable () -> Int)? = nil
    ) {
        self.plan = plan
        self.options = options
        self.cameras = cameras
        self.server = server
        self.sessions = sessions
        self.notifier = notifier
        self.logger = logger
        self.mqtt = mqtt
        self.rawPrinted = rawPrinted
    }

    func handle(_ command: DaemonCommand) -> DaemonDecision {
        switch command {
        case .reload:
            notifier.notify("RELOADING=1")
            DaemonRunner.reload(
                cameras: cameras, server: server, sessions: &sessions, current: &plan, options: options, logger: logger)
            notifier.notify("READY=1")
            return .keepRunning
        case .ended(.outputClosed):
            logger.notice("stdout reader went away; stopping")
            return .stop
        case .ended(.outputFailed(let message)):
            // A full disk or an I/O error: never a success. The other sinks are told and keep being
            // served; with no other sink there is nothing left to do.
            logger.error("\(message)")
            cameras.outputFailed(output: "stdout", reason: message)
            status = ExitStatus.failure
            if server == nil && !mqtt { return .stop }
            notifier.notify("STATUS=stdout failed: \(message); serving the socket")
            return .keepRunning
        case .ended(.completed):
            logger.notice("--oneshot: first object delivered; stopping")
            completed = true
            return .stop
        case .ended(.sourceEnded):
            if plan.exitAtEnd {
                if plan.script.oneshot && !completed { status = ExitStatus.nothingFound }
                if let rawPrinted, rawPrinted() == 0, status == ExitStatus.success {
                    logger.warning(
                        "--raw: the input ended and no value was printed; exiting \(ExitStatus.nothingFound)")
                    status = ExitStatus.nothingFound
                }
                return .stop
            }
            logger.notice("source ended; serving clients until stopped")
            notifier.notify("STATUS=source ended; serving clients until stopped")
            return .keepRunning
        case .ended(.sourceFailed(let message)):
            notifier.notify("STATUS=source failed: \(message)")
            if plan.exitAtEnd {
                status = max(status, ExitStatus.inputFailed)
                return .stop
            }
            return .keepRunning
        case .ended(.stopped):
            return .keepRunning
        case .timedOut(let seconds):
            if completed { return .keepRunning }
            logger.warning("--timeout: no object within \(seconds) s; exiting \(ExitStatus.nothingFound)")
            status = ExitStatus.nothingFound
            return .stop
        }
    }
}

/// Unblocks SIGTERM, SIGINT and SIGHUP in this thread's mask (inherited by every thread started later).
public func unblockControlSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, s) }
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}

/// `--device PATH`: a V4L2 `CaptureSession` is the frame source and, through ``SessionEvents``, the source
/// of the daemon's `device` events (connected, disconnected, interrupted, resumed, runtime errors).
func openDeviceSource(_ session: CaptureSession) -> DaemonSource {
    DaemonSource(name: session.configuration.device, canReopen: false, deviceEvents: SessionEvents(session)) {
        try session.startRunning()
        return session
    }
}
