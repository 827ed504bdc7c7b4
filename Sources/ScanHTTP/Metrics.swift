import Metrics
public import Prometheus
public import ScanCore
import ScanOutput

/// The daemon's figures for `GET /metrics`, kept with swift-metrics and exposed in the Prometheus text
/// format by swift-prometheus. Names follow Prometheus conventions: counters end in `_total`, durations are
/// histograms in seconds, every family has a `# HELP` line (``help``), and `scand_build_info` carries the
/// versions as labels with the value 1.
///
/// - `scand_build_info{version,zbar,opencv,zxing}` 1: the build
/// - `scand_device_up` (1/0): 1 while the source delivers frames (`started`), 0 while it is waiting, unplugged,
///   stalled (`wasInterrupted`) or stopped
/// - `scand_frames_captured_total`, `scand_frames_processed_total`, `scand_frames_dropped_total`
/// - `scand_stage_duration_seconds{stage="barcode"|"face"|"tracking"}`: detection time per frame and stage
/// - `scand_frame_latency_seconds`: capture (or decode) → events published
/// - `scand_detections_total{type="qr"|…|"face"}`: objects found, per frame they were found on
/// - `scand_socket_clients`, `scand_websocket_clients`, `scand_stream_viewers`: connected now
/// - `scand_event_overflows_total{transport="websocket"|"socket"}`: events dropped for slow clients
/// - `scand_mqtt_connected` (1/0), `scand_mqtt_outbox_messages`, `scand_mqtt_outbox_bytes`: the MQTT sink now
/// - `scand_mqtt_connections_total`, `scand_mqtt_dropped_total`, `scand_mqtt_acknowledged_total`
/// - `scand_device_reconnects_total`: a camera came back after a disconnect (`deviceConnected`)
/// - `scand_jpeg_encodes_total`: preview JPEGs encoded (0 while nobody watches)
public final class ScandMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// The cumulative counts last recorded (counters take the increments), and the series made on first use.
    private struct State {
        /// Each camera's series, made on first use (`camera="NAME"`; `default` for a one-camera run).
        var cameras: [String: CameraSeries] = [:]
        var lastSocketOverflows = 0
        var lastBroker: BrokerState?
        var brokerMetrics: BrokerMetrics?
    }
    private let state = Locked(State())

    /// The MQTT sink's series, made at the first scrape that has a broker (absent without `--mqtt`).
    private struct BrokerMetrics {
        let connected, queuedMessages, queuedBytes: Metrics.Gauge
        let connections, dropped, acknowledged: Metrics.Counter
    }

    let overflows: Metrics.Counter
    let socketOverflows: Metrics.Counter
    let jpegEncodes: Metrics.Counter
    let socketClients: Metrics.Gauge
    let webSocketClients: Metrics.Gauge
    let streamViewers: Metrics.Gauge

    /// The `# HELP` text of every family scand exposes (swift-metrics' Prometheus factory cannot carry help
    /// text, so ``exposition()`` adds it before each `# TYPE` line).
    static let help: [String: String] = [
        "scand_build_info":
            "scand's version and the versions of the zbar, OpenCV and zxing-cpp libraries it reads with; always 1.",
        "scand_device_up": "1 while the source delivers frames, 0 while it is waiting, unplugged, stalled or stopped.",
        "scand_frames_captured_total": "Frames read from the source since start.",
        "scand_frames_processed_total": "Frames run through the detectors since start.",
        "scand_frames_dropped_total": "Frames dropped because the pipeline was busy (newest wins) since start.",
        "scand_stage_duration_seconds": "Detection time per frame and stage (barcode, face, tracking), in seconds.",
        "scand_frame_latency_seconds":
            "Time from capture (or decode) to the frame's events being published, in seconds.",
        "scand_detections_total": "Objects found, counted per frame they were found on, by metadata object type.",
        "scand_socket_clients": "Unix-socket clients connected now.",
        "scand_websocket_clients": "WebSocket /events clients connected now.",
        "scand_stream_viewers": "Viewers of /stream.mjpg now.",
        "scand_event_overflows_total": "Events dropped for slow clients, by transport.",
        "scand_device_reconnects_total": "Times the camera came back after a disconnect (deviceConnected).",
        "scand_jpeg_encodes_total": "Preview JPEGs encoded (0 while nobody watches).",
        "scand_mqtt_connected": "1 while connected to the MQTT broker, else 0.",
        "scand_mqtt_outbox_messages": "Messages waiting for the MQTT broker (queued and in flight).",
        "scand_mqtt_outbox_bytes": "Bytes waiting for the MQTT broker.",
        "scand_mqtt_connections_total": "Successful connections to the MQTT broker since start.",
        "scand_mqtt_dropped_total": "Events dropped because the MQTT outbox was full.",
        "scand_mqtt_acknowledged_total": "Messages the MQTT broker acknowledged.",
    ]

    /// - Parameter buildInfo: the labels of `scand_build_info` (`version`, `zbar`, `opencv`, `zxing`).
    public init(buildInfo: [(String, String)] = []) {
        registry = PrometheusCollectorRegistry()
        var f = PrometheusMetricsFactory(registry: registry)
        let fast: [Duration] = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(20), .milliseconds(33), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1),
        ]
        f.defaultDurationHistogramBuckets = fast
        factory = f
        overflows = Metrics.Counter(
            label: "scand_event_overflows_total", dimensions: [("transport", "websocket")], factory: f)
        socketOverflows = Metrics.Counter(
            label: "scand_event_overflows_total", dimensions: [("transport", "socket")], factory: f)
        jpegEncodes = Metrics.Counter(label: "scand_jpeg_encodes_total", factory: f)
        socketClients = Metrics.Gauge(label: "scand_socket_clients", factory: f)
        webSocketClients = Metrics.Gauge(label: "scand_websocket_clients", factory: f)
        streamViewers = Metrics.Gauge(label: "scand_stream_viewers", factory: f)
        socketClients.record(0)
        webSocketClients.record(0)
        streamViewers.record(0)
        Metrics.Gauge(label: "scand_build_info", dimensions: buildInfo, factory: f).record(1)
    }

    /// Camera `name`'s series, made on first use.
    private func series(_ name: String) -> CameraSeries {
        state.withLock { s in
            if let c = s.cameras[name] { return c }
            let c = CameraSeries(camera: name, factory: factory)
            s.cameras[name] = c
            return c
        }
    }

    /// At each `/metrics` request: each camera's source state (the `kind` of its last `device` event; nil
    /// before the first) sets its `scand_device_up`.
    public func recordDevice(camera: String = "default", state: String?) {
        series(camera).deviceUp.record(state == "started" || state == "interruptionEnded" ? 1 : 0)
    }

    /// One preview JPEG was encoded (`scand_jpeg_encodes_total`); ``PreviewFrames``' `onEncode`.
    public func recordJPEGEncode() { jpegEncodes.increment() }

    /// At each `/metrics` request: the Unix socket's dropped events (cumulative since start) and the MQTT
    /// sink's state (cumulative counts since start), turned into counter increments and gauges.
    public func recordScrape(socketOverflows total: Int, broker: BrokerState?) {
        let (socketDelta, series, previous) = state.withLock { s -> (Int, BrokerMetrics?, BrokerState?) in
            defer {
                s.lastSocketOverflows = max(s.lastSocketOverflows, total)
                if let broker { s.lastBroker = broker }
            }
            if broker != nil && s.brokerMetrics == nil {
                s.brokerMetrics = BrokerMetrics(
                    connected: Metrics.Gauge(label: "scand_mqtt_connected", factory: factory),
                    queuedMessages: Metrics.Gauge(label: "scand_mqtt_outbox_messages", factory: factory),
                    queuedBytes: Metrics.Gauge(label: "scand_mqtt_outbox_bytes", factory: factory),
                    connections: Metrics.Counter(label: "scand_mqtt_connections_total", factory: factory),
                    dropped: Metrics.Counter(label: "scand_mqtt_dropped_total", factory: factory),
                    acknowledged: Metrics.Counter(label: "scand_mqtt_acknowledged_total", factory: factory))
            }
            return (total - s.lastSocketOverflows, s.brokerMetrics, s.lastBroker)
        }
        if socketDelta > 0 { socketOverflows.increment(by: socketDelta) }
        guard let broker, let series else { return }
        series.connected.record(broker.connected ? 1 : 0)
        series.queuedMessages.record(broker.queuedMessages)
        series.queuedBytes.record(broker.queuedBytes)
        let delta = { (now: Int, before: Int?) -> Int in max(0, now - (before ?? 0)) }
        if case let d = delta(broker.connections, previous?.connections), d > 0 { series.connections.increment(by: d) }
        if case let d = delta(broker.droppedMessages, previous?.droppedMessages), d > 0 {
            series.dropped.increment(by: d)
        }
        if case let d = delta(broker.acknowledgedMessages, previous?.acknowledgedMessages), d > 0 {
            series.acknowledged.increment(by: d)
        }
    }

    /// Pipeline thread, once per processed frame of `camera`: the frame counters (cumulative `captured`,
    /// `processed`, `dropped` since start), the stage times (seconds), the capture → publish latency (seconds),
    /// and the objects found.
    public func recordFrame(
        camera: String = "default", captured: Int, processed: Int, dropped: Int, barcodeSeconds: Double,
        faceSeconds: Double, trackingSeconds: Double, latencySeconds: Double?, objects: [MetadataObject]
    ) {
        series(camera).record(
            captured: captured, processed: processed, dropped: dropped, barcodeSeconds: barcodeSeconds,
            faceSeconds: faceSeconds, trackingSeconds: trackingSeconds, latencySeconds: latencySeconds,
            objects: objects)
    }

    /// Counts device reconnects from the published `device` events, by camera.
    func observe(_ event: EncodedEvent) {
        guard event.name == "device" else { return }
        let needle = Array(#""kind":"deviceConnected""#.utf8)
        if event.line.count >= needle.count,
            event.line.indices.dropLast(needle.count - 1).contains(where: {
                event.line[$0..<$0 + needle.count].elementsEqual(needle)
            })
        {
            series(event.camera ?? "default").reconnects.increment()
        }
    }

    /// The Prometheus text exposition, with a `# HELP` line before each `# TYPE` line.
    public func exposition() -> [UInt8] {
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        var out = ""
        out.reserveCapacity(text.utf8.count + 2048)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.dropFirst(7).split(separator: " ").first,
                let help = Self.help[String(name)]
            {
                out += "# HELP \(name) \(help)\n"
            }
            out += line
            out += "\n"
        }
        if out.hasSuffix("\n\n") { out.removeLast() }
        return Array(out.utf8)
    }
}
