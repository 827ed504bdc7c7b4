import Logging
import ScanCore
import ScanDaemon
import ScanDetection
import ScanHTTP
import ScanKit
import ScanMQTT
import ScanOutput

/// Lets the HTTP server reach the daemon and the socket server, which exist only after the sinks (the
/// server's event hub among them) were made.
final class DaemonLink: @unchecked Sendable {
    // Invariant for @unchecked Sendable: the three references are touched only under `lock`.
    private let lock = Lock()
    private weak var _daemon: Daemon?
    private weak var _socket: SocketServer?
    private weak var _mqtt: MQTTClient?
    var daemon: Daemon? { lock.withLock { _daemon } }
    var socket: SocketServer? { lock.withLock { _socket } }
    var mqtt: MQTTClient? { lock.withLock { _mqtt } }
    func set(daemon: Daemon, socket: SocketServer?, mqtt: MQTTClient?) {
        lock.withLock {
            _daemon = daemon
            _socket = socket
            _mqtt = mqtt
        }
    }

    /// The MQTT sink as `/state` and `/metrics` show it (nil without `--mqtt`).
    var brokerState: BrokerState? {
        guard let client = mqtt else { return nil }
        let s = client.statistics
        return BrokerState(
            broker: client.configuration.endpoint.description, connected: s.connected,
            connections: s.connections, lastError: s.lastError, queuedMessages: s.outbox.messages,
            queuedBytes: s.outbox.bytes, droppedMessages: s.outbox.dropped,
            acknowledgedMessages: s.outbox.acknowledged)
    }
}

/// The HTTP service of `scand run --http` (issue 17, docs/http.md), made from a ``DaemonPlan``.
public enum DaemonHTTP {
    /// The preview's default encoding cap (frames per second): a preview at 15 fps looks live, and at 30 fps
    /// camera rate it halves the encoding cost (docs/http.md, "Cost").
    public static let defaultMaxFps = 15.0

    /// The HTTP server `--http` asks for (not started yet), or nil. The token file is read here.
    /// - Throws: `ScanError.invalidArgument` naming the address or the token file.
    static func makeServer(
        address http: String?, tokenPath httpToken: String?, maxFps: Double = defaultMaxFps,
        output: OutputConfiguration,
        banner: ServerBanner, clientQueue: Int, link: DaemonLink, logger: Logger
    ) throws -> HTTPServer? {
        guard let http else { return nil }
        let (host, port) = try HTTPConfiguration.parseAddress(http)
        var configuration = HTTPConfiguration(host: host, port: port, clientQueueLimit: clientQueue)
        if let httpToken { configuration.token = try HTTPConfiguration.readToken(path: httpToken) }
        if let preview = output.preview {
            configuration.videoGravity = preview.videoGravity
            configuration.orientation = preview.orientation
            configuration.isMirrored = preview.isMirrored
        }
        if configuration.token == nil && !Self.isLoopback(host) {
            logger.warning(
                "--http listens beyond loopback without --http-token: anyone who can reach \(host):\(port) sees the camera"
            )
        }
        let metrics = ScandMetrics(buildInfo: [
            ("version", banner.version), ("zbar", LibraryVersions.zbar),
            ("opencv", LibraryVersions.openCV), ("zxing", LibraryVersions.zxing),
        ])
        let frames = PreviewFrames(maxFramesPerSecond: maxFps, onEncode: { metrics.recordJPEGEncode() })
        let events = EventHub(banner: banner, queueLimit: clientQueue, metrics: metrics)
        var roi: (@Sendable (NormalizedRect) throws -> Void)?
        if configuration.token != nil {
            // Only with a token: whoever can change what the camera scans must prove who they are.
            roi = { @Sendable (rect: NormalizedRect) throws -> Void in
                guard let daemon = link.daemon else { throw ScanError.invalidArgument("the pipeline is not running") }
                try daemon.setRectOfInterest(rect, origin: "http")
            }
        }
        let hooks = HTTPDaemonHooks(
            state: {
                guard let d = link.daemon else { return (PresenceSnapshot(), []) }
                return (d.presenceSnapshot(), d.sourceStates())
            },
            socketClients: { link.socket?.clientCount ?? 0 },
            videoOutput: { link.daemon?.frameOutput },
            setRectOfInterest: roi,
            socketOverflows: { link.socket?.droppedEvents ?? 0 },
            broker: { link.brokerState })
        return HTTPServer(
            configuration: configuration, frames: frames, events: events, metrics: metrics, hooks: hooks,
            logger: logger)
    }

    /// True for a host name or address that only this machine can reach.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

extension HTTPServer {
    /// Connects the server to the daemon before it starts: the page's frames come from the daemon's frame
    /// output (``VideoDataOutput``, subscribed while the server runs); the metrics see each frame's stage
    /// times and counters; `/state`, the WebSocket snapshot, `poll` and `devices` ask the daemon.
    func attach(daemon: Daemon, socket: SocketServer?, mqtt: MQTTClient?, link: DaemonLink) {
        link.set(daemon: daemon, socket: socket, mqtt: mqtt)
        events.setStateProvider(daemon)
        let metrics = self.metrics
        daemon.setFrameObserver { frame, event, timings, stats in
            metrics.recordFrame(
                captured: stats.framesRead, processed: stats.framesProcessed, dropped: stats.framesDropped,
                barcodeSeconds: timings.barcode, faceSeconds: timings.face, trackingSeconds: timings.tracking,
                latencySeconds: frame.captureClock.map { monotonicSeconds() - $0 }, objects: event.objects)
        }
    }
}
