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
        var lastCaptured = 0, lastProcessed = 0, lastDropped = 0
        var detections: [MetadataObjectType: Metrics.Counter] = [:]
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

    let framesCaptured: Metrics.Counter
    let framesProcessed: Metrics.Counter
    let framesDropped: Metrics.Counter
    let stageBarcode: Metrics.Timer
    let stageFace: Metrics.Timer
    let stageTracking: Metrics.Timer
    let latency: Metrics.Timer
    let overflows: Metrics.Counter
    let socketOverflows: Metrics.Counter
    let reconnects: Metrics.Counter
    let jpegEncodes: Metrics.Counter
    let socketClients: Metrics.Gauge
    let webSocketClients: Metrics.Gauge
    let streamViewers: Metrics.Gauge
    let deviceUp: Metrics.Gauge

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
        framesCaptured = Metrics.Counter(label: "scand_frames_captured_total", factory: f)
        framesProcessed = Metrics.Counter(label: "scand_frames_processed_total", factory: f)
        framesDropped = Metrics.Counter(label: "scand_frames_dropped_total", factory: f)
        stageBarcode = Metrics.Timer(
            label: "scand_stage_duration_seconds", dimensions: [("stage", "barcode")], factory: f)
        stageFace = Metrics.Timer(label: "scand_stage_duration_seconds", dimensions: [("stage", "face")], factory: f)
        stageTracking = Metrics.Timer(
            label: "scand_stage_duration_seconds", dimensions: [("stage", "tracking")], factory: f)
        latency = Metrics.Timer(label: "scand_frame_latency_seconds", factory: f)
        overflows = Metrics.Counter(
            label: "scand_event_overflows_total", dimensions: [("transport", "websocket")], factory: f)
        socketOverflows = Metrics.Counter(
            label: "scand_event_overflows_total", dimensions: [("transport", "socket")], factory: f)
        reconnects = Metrics.Counter(label: "scand_device_reconnects_total", factory: f)
        jpegEncodes = Metrics.Counter(label: "scand_jpeg_encodes_total", factory: f)
        socketClients = Metrics.Gauge(label: "scand_socket_clients", factory: f)
        webSocketClients = Metrics.Gauge(label: "scand_websocket_clients", factory: f)
        streamViewers = Metrics.Gauge(label: "scand_stream_viewers", factory: f)
        deviceUp = Metrics.Gauge(label: "scand_device_up", factory: f)
        socketClients.record(0)
        webSocketClients.record(0)
        streamViewers.record(0)
        deviceUp.record(0)
        Metrics.Gauge(label: "scand_build_info", dimensions: buildInfo, factory: f).record(1)
    }

    /// At each `/metrics` request: the source's state (the `kind` of its last `device` event; nil before the
    /// first) sets `scand_device_up`.
    public func recordDevice(state: String?) {
        deviceUp.record(state == "started" || state == "interruptionEnded" ? 1 : 0)
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

    /// Pipeline thread, once per processed frame: the frame counters (cumulative `captured`, `processed`,
    /// `dropped` since start), the stage times (seconds), the capture → publish latency (seconds), and the
    /// objects found.
    public func recordFrame(
        captured: Int, processed: Int, dropped: Int, barcodeSeconds: Double, faceSeconds: Double,
        trackingSeconds: Double, latencySeconds: Double?, objects: [MetadataObject]
    ) {
        let (dc, dp, dd, counters) = state.withLock { s -> (Int, Int, Int, [Metrics.Counter]) in
            defer {
                s.lastCaptured = captured
                s.lastProcessed = processed
                s.lastDropped = dropped
            }
            let counters = objects.map { o -> Metrics.Counter in
                if let c = s.detections[o.type] { return c }
                let c = Metrics.Counter(
                    label: "scand_detections_total", dimensions: [("type", o.type.rawValue)], factory: factory)
                s.detections[o.type] = c
                return c
            }
            return (captured - s.lastCaptured, processed - s.lastProcessed, dropped - s.lastDropped, counters)
        }
        if dc > 0 { framesCaptured.increment(by: dc) }
        if dp > 0 { framesProcessed.increment(by: dp) }
        if dd > 0 { framesDropped.increment(by: dd) }
        // A stage that did not run (faces off, no code types) takes 0 s and is not recorded.
        if barcodeSeconds > 0 { stageBarcode.recordNanoseconds(Int64(barcodeSeconds * 1e9)) }
        if faceSeconds > 0 { stageFace.recordNanoseconds(Int64(faceSeconds * 1e9)) }
        if trackingSeconds > 0 { stageTracking.recordNanoseconds(Int64(trackingSeconds * 1e9)) }
        if let latencySeconds, latencySeconds >= 0 { latency.recordNanoseconds(Int64(latencySeconds * 1e9)) }
        for c in counters { c.increment() }
    }

    /// Counts device reconnects from the published `device` events.
    func observe(_ event: EncodedEvent) {
        guard event.name == "device" else { return }
        let needle = Array(#""kind":"deviceConnected""#.utf8)
        if event.line.count >= needle.count,
            event.line.indices.dropLast(needle.count - 1).contains(where: {
                event.line[$0..<$0 + needle.count].elementsEqual(needle)
            })
        {
            reconnects.increment()
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
