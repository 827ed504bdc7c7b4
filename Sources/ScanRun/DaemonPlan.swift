public import Logging
public import ScanCapture
public import ScanCore
public import ScanDaemon
public import ScanKit
public import ScanMQTT
public import ScanOutput

/// What `--raw`, `--raw-bytes` and `--oneshot` resolved to (flags, or `run`'s config file).
public struct ScriptSettings: Sendable, Equatable {
    /// Print each appeared code's value as text, one per line, instead of JSON lines.
    public var raw = false
    /// Print each appeared code's exact payload bytes, then a newline.
    public var rawBytes = false
    /// Stop after the first object delivered.
    public var oneshot = false
    /// With ``oneshot``: give up after this many seconds without one (exit 4; nil: wait for ever).
    public var timeout: Double?
    /// How stdout is written.
    public var mode: ScanOutputMode { (raw || rawBytes) ? .raw(bytes: rawBytes) : .json }

    public init(raw: Bool = false, rawBytes: Bool = false, oneshot: Bool = false, timeout: Double? = nil) {
        self.raw = raw
        self.rawBytes = rawBytes
        self.oneshot = oneshot
        self.timeout = timeout
    }
}

/// Everything `scand run` runs, after merging defaults ← config file ← flags (the executable merges them;
/// ``DaemonRunner`` runs it). Every field has its default.
public struct DaemonPlan: Sendable {
    /// `--input` / `input`: a file path, "-" for Y4M on stdin, or a network camera's stream URL (exclusive with
    /// ``device``).
    public var input: String?
    /// `--device` / `device`: a V4L2 node or by-id name.
    public var device: String?
    /// The camera's settings (with ``device``).
    public var capture: CaptureConfiguration?
    /// `--stdout`: JSON lines (or `--raw` values) on stdout.
    public var stdout = false
    /// Events kept for a slow stdout reader before the oldest are dropped.
    public var stdoutQueue = 1024
    /// Decoder limits for file inputs (pixels per image).
    public var limits = DecoderLimits()
    /// `--socket`: the Unix socket to serve on, and its group.
    public var socketPath: String?
    public var socketGroup: String?
    /// Socket client queue, stall timeout and send buffer.
    public var server = SocketServerConfiguration()
    /// The pipeline: detectors, presence, pacing, loop.
    public var daemon = DaemonConfiguration()
    /// End the run when the file or stdin ends (else keep serving until stopped).
    public var exitAtEnd = false
    public var logLevel = Logger.Level.warning
    public var script = ScriptSettings()
    /// Camera controls (config file `controls`, then the flags).
    public var deviceControls = ControlConfiguration()
    public var mqtt: MQTTConfiguration?
    /// `--http` / `http`: the address to serve HTTP on, and `--http-token` / `httpToken`: its token file.
    public var httpAddress: String?
    public var httpTokenPath: String?
    /// `--http-max-fps` / `httpMaxFps`: the preview's encoding cap (frames per second; 0: none).
    public var httpMaxFps = DaemonHTTP.defaultMaxFps
    /// `--fail-fast` / `failFast`: an absent camera is an error at once instead of being waited for.
    public var failFast = false
    /// `--camera NAME=SOURCE` / `cameras`: the cameras of a multi-camera run, each with its own settings
    /// (empty: one camera, ``CameraPlan/defaultName``, from ``input``/``device``, ``capture`` and ``daemon``).
    public var cameras: [CameraPlan] = []
    /// `--stall-timeout` / `stallTimeout` for a pipe (a FIFO or stdin from a program): seconds without a frame
    /// before it is reported stalled (`wasInterrupted`). A camera's is in ``capture``.
    public var pipeStallTimeout = 2.0
    /// `--camera-ca` / `cameraCa`: the PEM file network cameras' TLS servers are checked against (nil: the
    /// system's CAs).
    public var cameraCa: String?

    /// The cameras to run: ``cameras``, or the one the top-level settings describe.
    public var cameraPlans: [CameraPlan] {
        if !cameras.isEmpty { return cameras }
        return [
            CameraPlan(
                name: CameraPlan.defaultName, input: input, device: device, capture: capture, daemon: daemon,
                deviceControls: deviceControls, pipeStallTimeout: pipeStallTimeout)
        ]
    }

    /// Every camera's `metadataObjectTypes` (the banner's `types`).
    public var allMetadataObjectTypes: Set<MetadataObjectType> {
        cameraPlans.reduce(into: Set<MetadataObjectType>()) { $0.formUnion($1.daemon.output.metadataObjectTypes) }
    }

    /// The plan as if `camera` were its only camera (its source and pipeline settings in the top-level fields).
    public func only(_ camera: CameraPlan) -> DaemonPlan {
        var p = self
        p.input = camera.input
        p.device = camera.device
        p.capture = camera.capture
        p.daemon = camera.daemon
        p.deviceControls = camera.deviceControls
        p.pipeStallTimeout = camera.pipeStallTimeout
        p.cameras = []
        return p
    }

    public init() {}
}

/// One camera of `scand run`: its name (the `camera` key of its events) and what it reads and runs. What its
/// `cameras` entry does not set comes from the top level of the config file; the flags apply to every camera.
public struct CameraPlan: Sendable {
    /// The name of the camera of a run that names none (`--input`/`--device`).
    public static let defaultName = "default"

    /// Letters, digits, `-` and `_`, 1 to 64 of them (it goes into MQTT topics and URLs).
    public var name: String
    /// A file path, "-" for Y4M on stdin, or a network camera's stream URL (exclusive with ``device``).
    public var input: String?
    /// The input path with its exact bytes, when it came from argv (a name that is not UTF-8).
    public var inputPath: InputPath?
    /// A V4L2 node or by-id name.
    public var device: String?
    /// The camera's settings (with ``device``).
    public var capture: CaptureConfiguration?
    /// The pipeline: detectors, presence, pacing, loop.
    public var daemon: DaemonConfiguration
    public var deviceControls: ControlConfiguration
    /// Seconds without a frame before a pipe source is reported stalled.
    public var pipeStallTimeout: Double

    public init(
        name: String, input: String? = nil, device: String? = nil, capture: CaptureConfiguration? = nil,
        daemon: DaemonConfiguration = DaemonConfiguration(),
        deviceControls: ControlConfiguration = ControlConfiguration(),
        pipeStallTimeout: Double = 2
    ) {
        self.pipeStallTimeout = pipeStallTimeout
        self.name = name
        self.input = input
        self.device = device
        self.capture = capture
        self.daemon = daemon
        self.deviceControls = deviceControls
    }
}
