import ArgumentParser
import FoundationEssentials
import Logging
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit
import ScanMQTT
import ScanOutput
import ScanRun
internal import SystemPackage

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
            exits 0 (4 if the input ended first, or --timeout ran out; --raw alone: 4 if the input ended with no \
            value printed). Every option has a --config key (the flag in camelCase: \
            --scan-density is "scanDensity"); a flag given on the command line wins over the file. SIGHUP \
            reloads --config, SIGTERM/SIGINT drain and exit 0. See docs/daemon.md and scand(1).

            EXAMPLES:
              # print every code in a clip as it appears, then exit at its end
              scand run --input demo/demo.y4m --stdout --no-metadata
              # a kiosk login: wait for one QR code, print its text, exit
              code=$(scand run --device /dev/video0 --types qr --oneshot --raw --timeout 30)
              # a service: camera events on a socket, settings from a file
              scand run --config /etc/scand/scand.json --socket /run/scand/scand.sock
              # check a config file (names the line and column of a mistake)
              scand run --check-config /etc/scand/scand.json
            """)

    @OptionGroup(title: "Sources") var sources: RunSourceOptions
    @OptionGroup(title: "Outputs") var outputs: RunOutputOptions
    @OptionGroup(title: "Outputs") var script: ScriptOutputOptions
    @OptionGroup(title: "Outputs") var oneshotTimeout: OneshotTimeoutOption
    @OptionGroup(title: "Outputs") var logging: LoggingOptions
    @OptionGroup(title: "MQTT (publish events to a broker)") var mqtt: MQTTOptions
    @OptionGroup(title: "HTTP (live page, snapshots, metrics, WebSocket events)") var httpOptions: HTTPOptions
    @OptionGroup(title: "Types") var types: TypeOptions
    @OptionGroup(title: "Presence (appeared/lost)") var presenceOptions: PresenceOptions
    @OptionGroup(title: "Preview (view coordinates)") var preview: PreviewOptions
    @OptionGroup(title: "Camera tuning (--device)") var capture: CaptureOptions
    @OptionGroup(title: "Camera controls (with --device)") var cameraControls: ControlOptions
    @OptionGroup(title: "Reader tuning") var detection: DetectionOptions
    @OptionGroup(title: "Face tuning (--types face)") var face: FaceOptions
    @OptionGroup(title: "Configuration file") var configOptions: ConfigFileOptions

    var input: String? { sources.input }
    var device: String? { sources.device }
    var config: String? { configOptions.config }

    func validate() throws {
        if configOptions.checkConfig != nil { return }
        if input != nil && device != nil { throw ValidationError("give --input or --device, not both") }
        if sources.input != nil && !cameraControls.isEmpty {
            throw ValidationError("camera controls (--control, --*-mode, --exposure-*) need --device, not --input")
        }
        if sources.keepRunning && sources.exitAtEnd == true {
            throw ValidationError("give --keep-running or --exit-at-end, not both")
        }
        if (script.raw || script.rawBytes || script.oneshot) && presenceOptions.presence == false {
            throw ValidationError("--raw and --oneshot print appeared events: they need presence (drop --no-presence)")
        }
        if (script.raw || script.rawBytes || script.oneshot) && outputs.stdout == false {
            throw ValidationError("--raw and --oneshot write to stdout: drop --no-stdout")
        }
        // Here, not in run(): a usage error then names 'scand run' and its usage.
        let r: Resolved
        do { r = try resolve() } catch let error as ScanError { throw ValidationError(error.description) }
        if r.input == nil && r.device == nil && r.cameras.isEmpty {
            throw ValidationError(
                "no source: give --input FILE (or '-') or --device PATH (or \"input\"/\"device\" in --config)")
        }
        if !r.stdout && r.socketPath == nil && r.mqtt == nil && r.httpAddress == nil && getenv("LISTEN_FDS") == nil {
            throw ValidationError(
                "nothing to deliver to: give --stdout, --socket PATH, --http HOST:PORT and/or --mqtt URL (or start by socket activation)"
            )
        }
    }

    /// Everything `run` needs, after merging defaults ← config file ← flags (ScanRun's DaemonRunner runs it).
    typealias Resolved = DaemonPlan

    /// Merges the defaults, the config file (`path`, else `--config`) and the flags given, in that order, and
    /// validates every configuration type.
    /// - Throws: `ScanError.invalidArgument` naming the file's line and column, or the flag and its value.
    func resolve(configPath: String? = nil) throws -> Resolved {
        let path = configPath ?? config
        let file = try path.map { try DaemonConfigFile.load(path: $0) } ?? DaemonConfigFile()
        let cameraFiles = try cameraSettings(file: file, path: path)
        if cameraFiles.isEmpty { return try resolve(file: file, path: path) }
        var r = try resolve(file: file, path: path, cameras: cameraFiles.map(\.0))
        r.cameras = try cameraFiles.map { name, settings in
            let one = try resolve(file: settings, path: path)
            return CameraPlan(
                name: name, input: one.input, device: one.device, capture: one.capture, daemon: one.daemon,
                deviceControls: one.deviceControls, pipeStallTimeout: one.pipeStallTimeout)
        }
        // A run of files ends at their end; one with a camera runs until stopped.
        r.exitAtEnd = exitAtEnd(file: file, files: r.cameras.allSatisfy { $0.device == nil })
        r.mqtt?.cameras = r.cameras.map(\.name)
        return r
    }

    /// Whether the run ends at the input's end: the flags, else the file, else when every source is a file.
    private func exitAtEnd(file: DaemonConfigFile, files: Bool) -> Bool {
        let keepRunning = sources.keepRunning || (sources.exitAtEnd == nil && file.keepRunning == true)
        return keepRunning ? false : (sources.exitAtEnd ?? file.exitAtEnd ?? files)
    }

    /// Merges `file` (the config file's top level, or one camera's settings) and the flags.
    /// - Parameter cameras: the top level of a multi-camera run: its cameras' names (they are resolved apart).
    private func resolve(file: DaemonConfigFile, path: String?, cameras: [String] = []) throws -> Resolved {
        var r = Resolved()
        r.input = input ?? (device == nil ? file.input : nil)
        r.device = device ?? (input == nil ? file.device : nil)
        if r.input != nil && r.device != nil {
            throw ScanError.invalidArgument("\(path ?? "config"): give input or device, not both")
        }
        // Flags that can only switch these on: the file's true adds to them.
        r.script = ScriptSettings(
            raw: script.raw || file.raw == true, rawBytes: script.rawBytes || file.rawBytes == true,
            oneshot: script.oneshot || file.oneshot == true, timeout: oneshotTimeout.timeout ?? file.timeout)
        try oneshotTimeout.check(oneshot: r.script.oneshot)
        let scripted = r.script.raw || r.script.rawBytes || r.script.oneshot
        r.stdout = outputs.stdout ?? file.stdout ?? false
        if scripted { r.stdout = true }
        r.stdoutQueue = outputs.stdoutQueue ?? file.stdoutQueue ?? r.stdoutQueue
        r.limits = try sources.limits.decoderLimits(fileValue: file.maxPixels)
        r.socketPath = outputs.socket ?? file.socket.path
        r.httpAddress = httpOptions.http ?? file.http
        r.httpTokenPath = httpOptions.httpToken ?? file.httpToken
        r.httpMaxFps = httpOptions.httpMaxFps ?? file.httpMaxFps ?? r.httpMaxFps
        if r.httpTokenPath != nil && r.httpAddress == nil {
            throw ScanError.invalidArgument("--http-token needs --http HOST:PORT (or \"http\" in the config file)")
        }
        r.socketGroup = outputs.socketGroup ?? file.socket.group
        try resolveServer(file: file, into: &r.server)
        try checked(.stdoutQueue, r.stdoutQueue)
        if let device = r.device {
            do { r.capture = try capture.captureConfiguration(device: device, file: file) } catch let e
                as ValidationError
            {
                throw ScanError.invalidArgument(e.message)
            }
        } else if capture.anyFormatGiven && cameras.isEmpty {
            throw ScanError.invalidArgument(
                "--preset, --size and --fps need --device (or \"device\" in the config file)")
        }

        do {
            r.daemon.output = try makeOutputConfiguration(
                types: types, detection: detection, preview: preview, face: face, file: file)
        } catch let e as ValidationError {
            throw ScanError.invalidArgument(e.message)
        }
        if r.device != nil {
            r.deviceControls = try cameraControls.configuration(
                file: file.controls, modes: file.cameraModes,
                rectOfInterest: r.daemon.output.rectOfInterest)
            r.capture?.controls = r.deviceControls
        }

        r.daemon.presence = try resolvePresence(file: file, face: &r.daemon.output.face, scripted: scripted)
        r.daemon.emitMetadata = outputs.metadata ?? file.metadata ?? true
        r.daemon.pacing = sources.pacing ?? file.pacing ?? true
        r.daemon.loop = sources.loop ?? file.loop ?? false
        // A file or stdin ends the run at its end unless told to keep serving; a camera runs until stopped.
        r.exitAtEnd = exitAtEnd(file: file, files: r.device == nil)
        if let level = logging.logLevel {
            r.logLevel = level
        } else if let text = file.logLevel, let level = Logger.Level(rawValue: text) {
            r.logLevel = level
        }
        if let t = capture.stallTimeout ?? file.stallTimeout {
            try checked(.stallTimeout, t)
            r.pipeStallTimeout = t
        }
        if let ca = sources.cameraCa ?? file.cameraCa {
            if let problem = NetworkCameraConfiguration.problem(withCAFile: ca) { throw ValidationError(problem) }
            r.cameraCa = ca
        }
        // Several cameras: the MQTT id's default names them all (`HOST-door_plate`).
        let mqttDevice = cameras.isEmpty ? (r.device ?? r.input ?? "-") : cameras.joined(separator: ",")
        r.mqtt = try mqtt.configuration(file: file.mqtt, device: mqttDevice)
        r.failFast = sources.failFast || file.failFast == true
        return r
    }

    /// The socket clients' limits: the flags, else the file's `socket` section.
    private func resolveServer(file: DaemonConfigFile, into server: inout SocketServerConfiguration) throws {
        if let q = outputs.clientQueue ?? file.socket.clientQueue {
            try checked(.clientQueue, q)
            server.clientQueueLimit = q
        }
        if let t = outputs.clientStallTimeout ?? file.socket.stallTimeout {
            try checked(.clientStallTimeout, t)
            server.clientStallTimeout = t
        }
        if let b = file.socket.sendBuffer { server.clientSendBufferBytes = b }
    }

    /// The presence rules: the file's, then the flags; the face grace (shared with the face tracker, `face`) as
    /// issue 14 set it. `scripted` (`--raw`, `--oneshot`) needs presence on.
    private func resolvePresence(
        file: DaemonConfigFile, face faceConfiguration: inout FaceConfiguration, scripted: Bool
    )
        throws -> PresenceConfiguration
    {
        var p = PresenceConfiguration()
        file.apply(to: &p)
        presenceOptions.apply(to: &p)
        // One face grace setting (issue 14): --face-grace, else its alias --face-lost-after, else the file's
        // faceGrace, else its alias presence.faceLostAfter; the presence stage and the face tracker share it.
        if face.faceGrace == nil, file.faceGrace == nil || presenceOptions.faceLostAfter != nil,
            let grace = presenceOptions.faceLostAfter ?? file.presence.faceLostAfter
        {
            faceConfiguration.presenceGrace = grace
        }
        p.faceLostAfter = faceConfiguration.presenceGrace
        do { try p.validate() } catch { throw ScanError.invalidArgument(error.description) }
        if scripted && !p.enabled {
            throw ScanError.invalidArgument(
                "--raw and --oneshot print appeared events: they need presence (the config file sets presence.enabled false)"
            )
        }
        return p
    }

    /// `--check-config FILE`: parses and validates the file with the flags given, reports on stderr, and exits
    /// 0 (valid) or 1 (the error names FILE:LINE:COLUMN).
    private func checkConfig(_ path: String) throws {
        do {
            let r = try resolve(configPath: path)
            _ = try MetadataOutput(configuration: r.daemon.output)
            // Files it names must exist; a camera may appear later (a warning).
            let named = r.checkNamedPaths()
            for w in named.warnings { writeStderr("\(path): warning: \(w)\n") }
            if !named.errors.isEmpty {
                throw ScanError.invalidArgument(named.errors.map { "\(path): \($0)" }.joined(separator: "; "))
            }
            writeStderr("\(path): valid configuration\n")
            // The settings that would run, as one JSON line (config-file keys), so a script or a test can see
            // which of the file and the flags won.
            let line = try effectiveSettingsJSON(r)
            let sink = FileDescriptorSink()
            sink.write(Array((line + "\n").utf8))
            try exitOnWriteError(sink, logger: logging.makeLogger())
        } catch let exit as ExitCode {
            throw exit
        } catch {
            writeStderr("scand run: \(error)\n")
            throw ExitCode(ExitStatus.inputFailed)
        }
    }

    func run() async throws {
        if let path = configOptions.checkConfig { return try checkConfig(path) }
        // A parent may have started us with these signals blocked (the mask is inherited across exec);
        // unblock them first, before any thread exists, so every thread inherits the open mask. Until the
        // service group runs, SIGTERM/SIGINT end the process at once (nothing to drain yet).
        unblockControlSignals()
        // SIGHUP's default action ends the process: trap it before the config is read and anything slow
        // starts, so a reload sent while scand starts is applied once it runs (HangupTrap).
        let hangups = await HangupTrap.install()
        var logger = logging.makeLogger()
        let resolved: Resolved
        do {
            resolved = try resolve()
        } catch let error as ScanError {
            throw ValidationError(error.description)
        }
        logger.logLevel = resolved.logLevel
        // What libzbar (or another C library) prints on stderr becomes log lines, not raw text (LibraryStderr).
        LibraryStderr.route(to: logger)
        defer { LibraryStderr.stopRouting() }
        let command = self
        let options = DaemonRunOptions(
            version: Scand.version, configPath: config, failFast: resolved.failFast,
            inputPath: resolved.input.map { $0 == "-" ? InputPath.standardInput : RawArguments.path($0) },
            hangups: hangups,
            replan: { try command.resolve() })
        do {
            try await DaemonRunner.run(resolved, options: options, logger: logger)
        } catch DaemonRunError.usage(let message) {
            throw ValidationError(message)
        } catch DaemonRunError.exit(let status) {
            throw ExitCode(status)
        }
    }
}

/// `run`'s sources: a file or stdin, or a camera, and how a file is replayed.
struct RunSourceOptions: ParsableArguments {
    @Option(name: .setting(.input), help: .setting(.input))
    var input: String?

    @Option(name: .setting(.device), help: .setting(.device))
    var device: String?

    @Option(name: .setting(.cameras), help: .setting(.cameras))
    var camera: [String] = []

    @Option(name: .setting(.cameraCa), help: .setting(.cameraCa))
    var cameraCa: String?

    @Flag(name: .setting(.pacing), inversion: .prefixedNo, help: .setting(.pacing))
    var pacing: Bool?

    @Flag(name: .setting(.loop), inversion: .prefixedNo, help: .setting(.loop))
    var loop: Bool?

    @Flag(name: .setting(.exitAtEnd), inversion: .prefixedNo, help: .setting(.exitAtEnd))
    var exitAtEnd: Bool?

    @Flag(name: .setting(.keepRunning), help: .setting(.keepRunning))
    var keepRunning = false

    @Flag(name: .setting(.failFast), help: .setting(.failFast))
    var failFast = false

    @OptionGroup var limits: DecoderLimitOptions
}

/// `run`'s outputs: stdout, the Unix socket and their queues.
struct RunOutputOptions: ParsableArguments {
    @Flag(name: .setting(.stdout), inversion: .prefixedNo, help: .setting(.stdout))
    var stdout: Bool?

    @Option(name: .setting(.socket), help: .setting(.socket))
    var socket: String?

    @Option(name: .setting(.socketGroup), help: .setting(.socketGroup))
    var socketGroup: String?

    @Flag(name: .setting(.metadata), inversion: .prefixedNo, help: .setting(.metadata))
    var metadata: Bool?

    @Option(name: .setting(.clientQueue), help: .setting(.clientQueue))
    var clientQueue: Int?

    @Option(name: .setting(.clientStallTimeout), help: .setting(.clientStallTimeout))
    var clientStallTimeout: Double?

    @Option(name: .setting(.stdoutQueue), help: .setting(.stdoutQueue))
    var stdoutQueue: Int?
}

/// Presence (`appeared`/`lost`) settings; each overrides the config file's `presence` object.
struct PresenceOptions: ParsableArguments {
    @Flag(name: .setting(.presence), inversion: .prefixedNo, help: .setting(.presence))
    var presence: Bool?

    @Option(name: .setting(.lostAfter), help: .setting(.lostAfter))
    var lostAfter: Double?

    @Option(name: .setting(.cooldown), help: .setting(.cooldown))
    var cooldown: Double?

    @Option(name: .setting(.appearAfter), help: .setting(.appearAfter))
    var appearAfter: Int?

    @Option(name: .setting(.faceLostAfter), help: .setting(.faceLostAfter))
    var faceLostAfter: Double?

    @Option(name: .setting(.presenceBy), help: .setting(.presenceBy))
    var presenceBy: PresenceBy?

    @Option(name: .setting(.duplicateFilter), help: .setting(.duplicateFilter))
    var duplicateFilter: DuplicateFilterArgument?

    func apply(to p: inout PresenceConfiguration) {
        if let presence { p.enabled = presence }
        if let appearAfter { p.appearAfterFrames = appearAfter }
        if let lostAfter { p.lostAfter = lostAfter }
        if let cooldown { p.cooldown = cooldown }
        if let faceLostAfter { p.faceLostAfter = faceLostAfter }
        if let presenceBy { p.by = presenceBy }
        if let duplicateFilter { p.duplicateFilter = duplicateFilter.value }
    }
}

/// `--duplicate-filter off|once|SECONDS`.
struct DuplicateFilterArgument: ExpressibleByArgument {
    let value: DuplicateFilter
    init?(argument: String) {
        guard let value = DuplicateFilter(parsing: argument) else { return nil }
        self.value = value
    }
}

/// `--config` and `--check-config`.
struct ConfigFileOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "JSON configuration file (see docs/daemon.md): every option has a key; a flag given on the command line wins; SIGHUP reloads it.",
            valueName: "file"))
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Check this configuration file (with the flags given) and exit: 0 valid, 1 invalid (the error names FILE:LINE:COLUMN).",
            valueName: "file"))
    var checkConfig: String?
}

/// Writes `text` to stderr (best effort: stderr is where errors are reported).
func writeStderr(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 {
            if n < 0 && Errno.last == .interrupted { continue }
            return
        }
        offset += n
    }
}

/// The resolved settings of `run` as one JSON object keyed like the config file (`--check-config` prints it).
func effectiveSettingsJSON(_ r: RunCommand.Resolved) throws -> String { try r.effectiveSettingsJSON() }
