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
    /// `--input` / `input`: a file path, or "-" for Y4M on stdin (exclusive with ``device``).
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

    public init() {}
}
