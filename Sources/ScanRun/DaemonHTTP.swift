import Logging
import ScanCore
import ScanDaemon
import ScanDetection
import ScanHTTP
import ScanKit
import ScanMQTT
import ScanOutput

/// The HTTP service of `scand run --http` (issue 17, docs/http.md), made from a ``DaemonPlan``.
public enum DaemonHTTP {
    /// The preview's default encoding cap (frames per second): a preview at 15 fps looks live, and at 30 fps
    /// camera rate it halves the encoding cost (docs/http.md, "Cost").
    public static let defaultMaxFps = 15.0

    /// The HTTP settings `--http` asks for, or nil. The token file is read here.
    /// - Throws: `ScanError.invalidArgument` naming the address or the token file.
    static func configuration(
        address http: String?, tokenPath httpToken: String?, output: OutputConfiguration, clientQueue: Int,
        logger: Logger
    ) throws -> HTTPConfiguration? {
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
        return configuration
    }

    /// The metrics `/metrics` shows, with the build's versions.
    static func makeMetrics(banner: ServerBanner) -> ScandMetrics {
        ScandMetrics(buildInfo: [
            ("version", banner.version), ("zbar", LibraryVersions.zbar),
            ("opencv", LibraryVersions.openCV), ("zxing", LibraryVersions.zxing),
        ])
    }

    /// What the metrics see of each processed frame of `camera`: its stage times and the counters so far.
    static func frameObserver(_ metrics: ScandMetrics, camera: String) -> Daemon.FrameObserver {
        { frame, event, timings, stats in
            metrics.recordFrame(
                camera: camera, captured: stats.framesRead, processed: stats.framesProcessed,
                dropped: stats.framesDropped,
                barcodeSeconds: timings.barcode, faceSeconds: timings.face, trackingSeconds: timings.tracking,
                latencySeconds: frame.captureClock.map { $0.elapsed.inSeconds }, objects: event.objects)
        }
    }

    /// The HTTP server (not started yet): its event hub answers from `state`, its page shows each camera's
    /// frames from `outputs` (a camera name and its frame output, in order), and `/state` and `/metrics` see
    /// the socket server and the MQTT client; with a token, the page may set a camera's rect of interest
    /// through `setRectOfInterest`.
    static func makeServer(
        configuration: HTTPConfiguration, maxFps: Double = defaultMaxFps, banner: ServerBanner,
        metrics: ScandMetrics, state: any ServerStateProvider,
        outputs: @escaping @Sendable () -> [(camera: String, output: VideoDataOutput)],
        setRectOfInterest: @escaping @Sendable (NormalizedRect, String) throws -> Void, socket: SocketServer?,
        mqtt: MQTTClient?, logger: Logger
    ) -> HTTPServer {
        let previews = PreviewSet {
            PreviewFrames(maxFramesPerSecond: maxFps, onEncode: { metrics.recordJPEGEncode() })
        }
        let events = EventHub(
            banner: banner, queueLimit: configuration.clientQueueLimit, metrics: metrics, state: state)
        let hooks = HTTPDaemonHooks(
            state: { [weak state] in
                guard let state else { return (PresenceSnapshot(), []) }
                return (state.presenceSnapshot(), state.sourceStates())
            },
            socketClients: { socket?.clientCount ?? 0 },
            videoOutputs: outputs,
            // Only with a token: whoever can change what the camera scans must prove who they are.
            setRectOfInterest: configuration.token != nil ? setRectOfInterest : nil,
            socketOverflows: { socket?.droppedEvents ?? 0 },
            broker: { mqtt.map(brokerState) })
        return HTTPServer(
            configuration: configuration, previews: previews, events: events, metrics: metrics, hooks: hooks,
            logger: logger)
    }

    /// The MQTT sink as `/state` and `/metrics` show it.
    static func brokerState(_ client: MQTTClient) -> BrokerState {
        let s = client.statistics
        return BrokerState(
            broker: client.configuration.endpoint.description, connected: s.connected,
            connections: s.connections, lastError: s.lastError, queuedMessages: s.outbox.messages,
            queuedBytes: s.outbox.bytes, droppedMessages: s.outbox.dropped,
            acknowledgedMessages: s.outbox.acknowledged)
    }

    /// True for a host name or address that only this machine can reach.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
