import ArgumentParser
import Logging
import ScanCore
import ScanKit
import ScanOutput
import ScanCapture
import ScanDaemon
import ScanMQTT
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run as a service: read a camera or a file, publish events on stdout and/or a Unix socket.",
        discussion: """
        Events are JSON lines with a monotonically increasing 'seq' and a wall-clock 'timestamp': \
        metadata (per frame), appeared/lost (presence of each code value and face), device. Socket clients \
        get a hello banner first, then what is in view now (appeared events marked "snapshot":true), and may \
        send {"subscribe":{"types":[...],"events":[...]}}, {"poll":{}} or {"devices":{}}. A file or stdin \
        ends the run at its end (exit 0) unless --loop or --keep-running; a camera runs until stopped. \
        --oneshot prints the first object that appears (its appeared event, or its value with --raw) and \
        exits 0 (4 if the input ended first). SIGHUP reloads --config, SIGTERM/SIGINT drain and exit 0. \
        See docs/daemon.md.
        """)

    @Option(name: .long, help: ArgumentHelp("Replay this file (Y4M, video, image) or '-' for Y4M on stdin.", valueName: "file"))
    var input: String?

    @Option(name: .long, help: ArgumentHelp("JSON configuration file (see docs/daemon.md); flags override it; SIGHUP reloads it.", valueName: "file"))
    var config: String?

    @Flag(inversion: .prefixedNo, help: "Write events to stdout as JSON lines.")
    var stdout: Bool?

    @Option(name: .long, help: ArgumentHelp("Serve events on this Unix socket (created 0660).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Group owning the socket file (name or number).", valueName: "group"))
    var socketGroup: String?

    @Flag(inversion: .prefixedNo, help: "Publish a metadata event per frame (--no-metadata: only appeared/lost/device).")
    var metadata: Bool?

    @Flag(inversion: .prefixedNo, help: "Replay files at their frame rate (--no-pacing: as fast as possible, no frame dropped).")
    var pacing: Bool?

    @Flag(inversion: .prefixedNo, help: "Start the file again when it ends.")
    var loop: Bool?

    @Flag(inversion: .prefixedNo, help: "Exit when the file or stdin ends (the default for files; --no-exit-at-end is --keep-running).")
    var exitAtEnd: Bool?

    @Flag(name: .long, help: "When the file or stdin ends, keep serving socket clients until stopped (SIGTERM/SIGINT).")
    var keepRunning = false

    @OptionGroup(title: "Script output (stdout)") var script: ScriptOutputOptions

    @Flag(inversion: .prefixedNo, help: "Publish appeared/lost presence events.")
    var presence: Bool?

    @Option(name: .long, help: ArgumentHelp("Seconds a code value must be absent before 'lost' (grace period; default 1.0).", valueName: "s"))
    var lostAfter: Double?

    @Option(name: .long, help: ArgumentHelp("Seconds after 'lost' before the same value can appear again (default 0.5).", valueName: "s"))
    var cooldown: Double?

    @Option(name: .long, help: ArgumentHelp("Frames a value must be seen in before 'appeared' (default 1).", valueName: "n"))
    var appearAfter: Int?

    @Option(name: .long, help: ArgumentHelp("Seconds a face (faceID) must be absent before 'lost' (default 0.5).", valueName: "s"))
    var faceLostAfter: Double?

    @Option(name: .long, help: ArgumentHelp("Events queued per slow socket client before its oldest are dropped (default 1024).", valueName: "n"))
    var clientQueue: Int?

    @Option(name: .long, help: ArgumentHelp("Disconnect a socket client stuck this many seconds while dropping events (default 10).", valueName: "s"))
    var clientStallTimeout: Double?

    @Option(name: .long, help: ArgumentHelp("Events kept waiting for a slow stdout reader before its oldest are dropped with an 'overflow' line (default 1024); stdout never slows the pipeline or the socket clients.", valueName: "n"))
    var stdoutQueue: Int?

    @OptionGroup var limits: DecoderLimitOptions

    @OptionGroup var detection: DetectionOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup(title: "Live capture") var capture: CaptureOptions
    @OptionGroup(title: "Camera controls (with --device)") var cameraControls: ControlOptions
    @OptionGroup(title: "Preview (view coordinates)") var preview: PreviewOptions
    @OptionGroup(title: "Face options") var face: FaceOptions
    @OptionGroup(title: "MQTT (publish events to a broker)") var mqtt: MQTTOptions

    /// The device from `--device` (the shared capture option group).
    var device: String? { capture.device }

    func validate() throws {
        if input != nil && device != nil { throw ValidationError("give --input or --device, not both") }
        if input != nil && !cameraControls.isEmpty { throw ValidationError("camera controls (--control, --*-mode, --exposure-*) need --device, not --input") }
        if capture.frames != nil || capture.duration != nil {
            throw ValidationError("--frames and --duration belong to 'scand scan'; 'scand run' serves until stopped")
        }
        if let clientQueue, clientQueue < 1 || clientQueue > 1_000_000 { throw ValidationError("--client-queue must be 1...1000000") }
        if let clientStallTimeout, !(clientStallTimeout > 0 && clientStallTimeout <= 86_400) {
            throw ValidationError("--client-stall-timeout must be more than 0 and at most 86400 seconds")
        }
        if let stdoutQueue, stdoutQueue < 1 || stdoutQueue > 1_000_000 { throw ValidationError("--stdout-queue must be 1...1000000") }
        if keepRunning && exitAtEnd == true { throw ValidationError("give --keep-running or --exit-at-end, not both") }
        if (script.raw || script.rawBytes || script.oneshot) && presence == false {
            throw ValidationError("--raw and --oneshot print appeared events: they need presence (drop --no-presence)")
        }
        if (script.raw || script.rawBytes || script.oneshot) && stdout == false {
            throw ValidationError("--raw and --oneshot write to stdout: drop --no-stdout")
        }
    }

    /// Everything `run` needs, after merging defaults ← config file ← flags.
    struct Resolved {
        var input: String?
        var device: String?
        var stdout = false
        var stdoutQueue = 1024
        var limits = DecoderLimits()
        var socketPath: String?
        var socketGroup: String?
        var server = SocketServerConfiguration()
        var daemon = DaemonConfiguration()
        var exitAtEnd = false
        var logLevel = "warning"
        /// Camera controls (config file `controls`, then the flags).
        var deviceControls = ControlConfiguration()
        var mqtt: MQTTConfiguration?
    }

    func resolve() throws -> Resolved {
        let file = try config.map { try DaemonConfigFile.load(path: $0) } ?? DaemonConfigFile()
        var r = Resolved()
        r.input = input ?? (device == nil ? file.input : nil)
        r.device = device ?? (input == nil ? file.device : nil)
        if r.input != nil && r.device != nil { throw ScanError.invalidArgument("\(config ?? "config"): give input or device, not both") }
        r.stdout = stdout ?? file.stdout ?? false
        if script.raw || script.rawBytes || script.oneshot { r.stdout = true }
        r.stdoutQueue = stdoutQueue ?? file.stdoutQueue ?? r.stdoutQueue
        r.limits = try limits.decoderLimits(fileValue: file.maxPixels)
        r.socketPath = socket ?? file.socket.path
        r.socketGroup = socketGroup ?? file.socket.group
        if let q = clientQueue ?? file.socket.clientQueue {
            guard q >= 1 else { throw ScanError.invalidArgument("socket.clientQueue must be at least 1") }
            r.server.clientQueueLimit = q
        }
        if let t = clientStallTimeout ?? file.socket.stallTimeout {
            guard t > 0 else { throw ScanError.invalidArgument("socket.stallTimeout must be positive") }
            r.server.clientStallTimeout = t
        }
        if let b = file.socket.sendBuffer {
            guard b >= 1024 else { throw ScanError.invalidArgument("socket.sendBuffer must be at least 1024 bytes") }
            r.server.clientSendBufferBytes = b
        }

        // Detection: config file first, then flags (flags at their defaults do not override the file).
        // Every detection flag first (engine, passes, misread filters, …), then the file where a flag was not given.
        var output = try detection.outputConfiguration()
        if let types = detection.types ?? file.types {
            output.metadataObjectTypes = try MetadataObjectType.parseList(types, available: MetadataOutput.availableMetadataObjectTypes)
        }
        if let roi = detection.rectOfInterest {
            output.rectOfInterest = try parseRect(roi, name: "--rect-of-interest")
        } else if let roi = file.rectOfInterest {
            output.rectOfInterest = roi
        }
        output.barcode.tryInverted = detection.noInverted ? false : (file.tryInverted ?? true)
        output.barcode.code39FullASCII = detection.code39FullASCII || (file.code39FullASCII ?? false)
        let density = detection.scanDensity != 1 ? detection.scanDensity : (file.scanDensity ?? 1)
        guard density >= 1 && density <= 16 else { throw ScanError.invalidArgument("scan density must be 1...16") }
        output.barcode.scanDensity = density
        output.models = ModelConfiguration(directory: detection.models ?? file.models)
        try preview.apply(to: &output, detection: detection)
        output.face = try face.configuration()
        r.daemon.output = output
        if r.device != nil { r.deviceControls = try cameraControls.configuration(file: file.controls, rectOfInterest: output.rectOfInterest) }

        var p = PresenceConfiguration()
        p.enabled = presence ?? file.presence.enabled ?? p.enabled
        p.appearAfterFrames = appearAfter ?? file.presence.appearAfterFrames ?? p.appearAfterFrames
        p.lostAfter = lostAfter ?? file.presence.lostAfter ?? p.lostAfter
        p.cooldown = cooldown ?? file.presence.cooldown ?? p.cooldown
        p.faceLostAfter = faceLostAfter ?? file.presence.faceLostAfter ?? p.faceLostAfter
        try p.validate()
        r.daemon.presence = p
        r.daemon.emitMetadata = metadata ?? file.metadata ?? true
        r.daemon.pacing = pacing ?? file.pacing ?? true
        r.daemon.loop = loop ?? file.loop ?? false
        // A file or stdin ends the run at its end unless told to keep serving; a camera runs until stopped.
        r.exitAtEnd = keepRunning ? false : (exitAtEnd ?? file.exitAtEnd ?? (r.device == nil))
        r.logLevel = logging.logLevel != "warning" ? logging.logLevel : (file.logLevel ?? "warning")
        guard Logger.Level(rawValue: r.logLevel) != nil else { throw ScanError.invalidArgument("unknown log level '\(r.logLevel)'") }
        r.mqtt = try mqtt.configuration(file: file.mqtt, device: r.device ?? r.input ?? "-")
        return r
    }

    func run() async throws {
        // A parent may have started us with these signals blocked (the mask is inherited across exec);
        // unblock them first, before any thread exists, so every thread inherits the open mask. Until the
        // service group runs, SIGTERM/SIGINT end the process at once (nothing to drain yet).
        unblockControlSignals()
        let mailbox = DaemonMailbox()
        var baseLogger = try logging.makeLogger()
        var resolved: Resolved
        do {
            resolved = try resolve()
        } catch let error as ScanError {
            throw ValidationError(error.description)
        }
        baseLogger.logLevel = Logger.Level(rawValue: resolved.logLevel) ?? .warning
        let logger = baseLogger
        // OpenCV's own size cap is an environment variable it reads once; set it before any decoding
        // (no other thread exists yet).
        ImageDecoder.prepareCodecsPlugin(limits: resolved.limits)

        let source: DaemonSource
        do {
            source = try makeSource(resolved)
        } catch let error as ScanError {
            if case .invalidArgument(let m) = error { throw ValidationError(m) }
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }

        var sinks: [any EventSink] = []
        if resolved.stdout {
            // stdout gets a bounded queue and a thread of its own: a stalled reader loses its oldest events
            // (with an `overflow` line), never slows the pipeline, a camera or the socket clients.
            let stdoutSink = FileDescriptorSink(fd: 1, name: "stdout") { failure in
                mailbox.post(.ended(failure == .readerGone ? .outputClosed : .outputFailed(failure.description)))
            }
            let queued = QueuedSink(target: stdoutSink, capacity: resolved.stdoutQueue)
            if script.raw || script.rawBytes || script.oneshot {
                sinks.append(ScriptStdoutSink(target: queued, mode: script.mode, oneshot: script.oneshot, logger: logger) {
                    mailbox.post(.ended(.completed))
                })
            } else {
                sinks.append(queued)
            }
        }
        let ownedSinks = sinks

        var server: SocketServer?
        var ownedSocket: BoundSocket?
        do {
            let activated = try UnixSocketListener.activatedSockets()
            var fds: [Int32] = activated
            if !activated.isEmpty {
                let where_ = activated.compactMap(UnixSocketListener.boundPath(of:)).joined(separator: ", ")
                logger.notice("using socket(s) passed by systemd", metadata: ["fds": "\(activated)", "path": "\(where_)"])
                if resolved.socketPath != nil { logger.info("--socket ignored: the socket comes from socket activation") }
            } else if let path = resolved.socketPath {
                let bound = try UnixSocketListener.bind(path: path, group: resolved.socketGroup)
                if bound.preparation == .replacedStale { logger.notice("replaced stale socket file (nobody was listening)", metadata: ["path": "\(path)"]) }
                ownedSocket = bound
                fds = [bound.fd]
            }
            if !fds.isEmpty {
                let s = SocketServer(configuration: resolved.server,
                                     banner: ServerBanner(version: Scand.version, types: resolved.daemon.output.metadataObjectTypes.sorted()),
                                     logger: logger)
                for fd in fds { try s.listen(fd: fd) }
                server = s
                sinks.append(s)
                logger.notice("listening", metadata: ["socket": "\(ownedSocket?.path ?? "socket activation")"])
            }
        } catch let error as ScanError {
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        // MQTT: the client queues in its own outbox and owns its libmosquitto handle on its own thread.
        var mqttClient: MQTTClient?
        let mqttRelay = MQTTConnectionRelay(broker: resolved.mqtt?.endpoint.description ?? "mqtt")
        if let config = resolved.mqtt {
            do {
                mqttClient = try MQTTClient(configuration: config, logger: logger) { mqttRelay.report($0) }
            } catch let error as ScanError {
                server?.finish()
                ownedSocket?.removeIfStillOurs()
                throw ValidationError(error.description)
            }
        }
        guard !sinks.isEmpty || mqttClient != nil else {
            throw ValidationError("nothing to deliver to: give --stdout, --socket PATH and/or --mqtt URL (or start by socket activation)")
        }

        let daemon = Daemon(configuration: resolved.daemon, source: source, sinks: sinks, logger: logger,
                            onEnd: { mailbox.post(.ended($0)) })
        server?.setStateProvider(daemon)
        mqttRelay.attach(daemon)
        // Subscribes to the fan-out now, before the first event.
        let mqttService = mqttClient.map { MQTTService(client: $0, events: daemon.events, logger: logger) }
        do {
            try daemon.start()
        } catch {
            logger.critical("\(error)")
            server?.finish()
            ownedSocket?.removeIfStillOurs()
            throw ExitCode(ExitStatus.failure)
        }

        // The services: the socket server (and, later, HTTP and MQTT) serve until the group shuts down;
        // the pipeline is last so it stops first. Its control loop below decides the exit status.
        let notifier = SystemdNotifier()
        let control = RunControl(command: self, resolved: resolved, daemon: daemon, server: server,
                                 notifier: notifier, logger: logger, mqtt: mqttClient != nil)
        let pipeline = PipelineService(
            daemon: daemon, mailbox: mailbox, ownedSinks: ownedSinks, logger: logger,
            onReady: {
                notifier.notify("READY=1\nSTATUS=serving \(source.name)")
                logger.notice("ready", metadata: ["source": "\(source.name)"])
            },
            onStopping: { notifier.notify("STOPPING=1") },
            handle: { await control.handle($0) })
        var others: [any Service] = []
        if let server { others.append(SocketServerService(server: server, ownedSocket: ownedSocket, logger: logger)) }
        if let mqttService { others.append(mqttService) }
        let group = ServiceGroup(configuration: .daemon(pipeline: pipeline, otherServices: others,
                                                        stopTimeout: resolved.daemon.stopTimeout, logger: logger))
        try await group.run()

        let stats = daemon.statistics
        logger.notice("stopped", metadata: ["frames": "\(stats.framesProcessed)", "dropped": "\(stats.framesDropped)",
                                            "events": "\(stats.events)"])
        let status = await control.status
        if status != ExitStatus.success { throw ExitCode(status) }
    }

    /// SIGHUP: re-reads the config file and applies what can change while running.
    func reload(daemon: Daemon, server: SocketServer?, current: inout Resolved, logger: Logger) {
        guard config != nil else {
            logger.notice("SIGHUP: no --config file to reload")
            return
        }
        do {
            let next = try resolve()
            try daemon.reload(next.daemon)
            if next.daemon.output.metadataObjectTypes != current.daemon.output.metadataObjectTypes {
                server?.updateBanner(ServerBanner(version: Scand.version, types: next.daemon.output.metadataObjectTypes.sorted()))
            }
            var needsRestart: [String] = []
            if next.input != current.input || next.device != current.device { needsRestart.append("input/device") }
            if next.socketPath != current.socketPath || next.socketGroup != current.socketGroup { needsRestart.append("socket") }
            if next.stdout != current.stdout { needsRestart.append("stdout") }
            if next.server != current.server { needsRestart.append("socket client limits") }
            if next.daemon.pacing != current.daemon.pacing || next.daemon.loop != current.daemon.loop { needsRestart.append("pacing/loop") }
            if next.logLevel != current.logLevel { needsRestart.append("logLevel") }
            if !needsRestart.isEmpty {
                logger.warning("SIGHUP: these settings take effect only after a restart: \(needsRestart.joined(separator: ", "))")
            }
            current.daemon = next.daemon
            current.exitAtEnd = next.exitAtEnd
            logger.notice("SIGHUP: configuration reloaded", metadata: ["config": "\(config!)"])
        } catch {
            logger.error("SIGHUP: configuration not reloaded, keeping the running one: \(error)")
        }
    }

    private func makeSource(_ r: Resolved) throws -> DaemonSource {
        if let device = r.device {
            var configuration = capture.captureConfiguration() ?? CaptureConfiguration(device: device)
            configuration.device = device
            configuration.controls = r.deviceControls
            return openDeviceSource(configuration)
        }
        guard let input = r.input else {
            throw ScanError.invalidArgument("no source: give --input FILE (or '-') or --device PATH")
        }
        if r.daemon.loop && input == "-" { throw ScanError.invalidArgument("--loop cannot repeat stdin") }
        let path = input == "-" ? InputPath.standardInput : RawArguments.path(input)
        let limits = r.limits
        return DaemonSource(name: path.displayName, canReopen: !path.isStandardInput) {
            try openFileSource(path: path, limits: limits)
        }
    }
}

/// `scand run`'s control loop: what each command means for this run, and the exit status it leads to.
actor RunControl {
    private let command: RunCommand
    private var resolved: RunCommand.Resolved
    private let daemon: Daemon
    private let server: SocketServer?
    private let notifier: SystemdNotifier
    private let logger: Logger
    /// An MQTT broker is served too (it keeps being served when stdout fails).
    private let mqtt: Bool
    private(set) var status = ExitStatus.success
    private var completed = false

    init(command: RunCommand, resolved: RunCommand.Resolved, daemon: Daemon, server: SocketServer?,
         notifier: SystemdNotifier, logger: Logger, mqtt: Bool = false) {
        self.command = command; self.resolved = resolved; self.daemon = daemon; self.server = server
        self.notifier = notifier; self.logger = logger; self.mqtt = mqtt
    }

    func handle(_ command: DaemonCommand) -> DaemonDecision {
        switch command {
        case .reload:
            notifier.notify("RELOADING=1")
            self.command.reload(daemon: daemon, server: server, current: &resolved, logger: logger)
            notifier.notify("READY=1")
            return .keepRunning
        case .ended(.outputClosed):
            logger.notice("stdout reader went away; stopping")
            return .stop
        case .ended(.outputFailed(let message)):
            // A full disk or an I/O error: never a success. The other sinks are told and keep being
            // served; with no other sink there is nothing left to do.
            logger.error("\(message)")
            daemon.outputFailed(output: "stdout", reason: message)
            status = ExitStatus.failure
            if server == nil && !mqtt { return .stop }
            notifier.notify("STATUS=stdout failed: \(message); serving the socket")
            return .keepRunning
        case .ended(.completed):
            logger.notice("--oneshot: first object delivered; stopping")
            completed = true
            return .stop
        case .ended(.sourceEnded):
            if resolved.exitAtEnd {
                if self.command.script.oneshot && !completed { status = ExitStatus.nothingFound }
                return .stop
            }
            logger.notice("source ended; serving clients until stopped")
            notifier.notify("STATUS=source ended; serving clients until stopped")
            return .keepRunning
        case .ended(.sourceFailed(let message)):
            notifier.notify("STATUS=source failed: \(message)")
            if resolved.exitAtEnd { status = max(status, ExitStatus.inputFailed); return .stop }
            return .keepRunning
        case .ended(.stopped):
            return .keepRunning
        }
    }
}

/// Unblocks SIGTERM, SIGINT and SIGHUP in this thread's mask (inherited by every thread started later).
func unblockControlSignals() {
    var set = sigset_t()
    sigemptyset(&set)
    for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, s) }
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}

/// `--device PATH`: a V4L2 `CaptureSession` is the frame source and, through ``SessionEvents``, the source
/// of the daemon's `device` events (connected, disconnected, interrupted, resumed, runtime errors).
func openDeviceSource(_ configuration: CaptureConfiguration) -> DaemonSource {
    let session = CaptureSession(configuration: configuration)
    return DaemonSource(name: configuration.device, canReopen: false, deviceEvents: SessionEvents(session)) {
        try session.startRunning()
        return session
    }
}

/// Adapts a `CaptureSession`'s event handlers to the daemon's ``DeviceEventSource``.
final class SessionEvents: DeviceEventSource, @unchecked Sendable {
    private let session: CaptureSession
    private let lock = Lock()
    private var handler: (@Sendable (DeviceEvent) -> Void)?
    private var registered = false

    init(_ session: CaptureSession) { self.session = session }

    func startReporting(_ handler: @escaping @Sendable (DeviceEvent) -> Void) {
        let register = lock.withLock { () -> Bool in
            self.handler = handler
            defer { registered = true }
            return !registered
        }
        if register {
            session.addEventHandler { [weak self] event in
                guard let self, let h = self.lock.withLock({ self.handler }) else { return }
                h(event)
            }
        }
    }

    func stopReporting() { lock.withLock { handler = nil } }
}
