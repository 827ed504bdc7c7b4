import CoreMetrics
import Prometheus
import ScanCore

/// One camera's series in `/metrics`, each labelled `camera="NAME"` (issue 49): frames captured, processed and
/// dropped, the stage and latency histograms, detections by type, `scand_device_up` and reconnects.
final class CameraSeries: Sendable {
    let framesCaptured, framesProcessed, framesDropped, reconnects: CoreMetrics.Counter
    let stageBarcode, stageFace, stageTracking, latency: CoreMetrics.Timer
    let deviceUp: CoreMetrics.Gauge
    private let camera: String
    private let factory: PrometheusMetricsFactory
    /// The cumulative counts last recorded (counters take the increments) and the detection counters made.
    private let state = Locked<
        (captured: Int, processed: Int, dropped: Int, detections: [MetadataObjectType: CoreMetrics.Counter])
    >(
        (0, 0, 0, [:]))

    init(camera: String, factory f: PrometheusMetricsFactory) {
        self.camera = camera
        factory = f
        let c = ("camera", camera)
        framesCaptured = CoreMetrics.Counter(label: "scand_frames_captured_total", dimensions: [c], factory: f)
        framesProcessed = CoreMetrics.Counter(label: "scand_frames_processed_total", dimensions: [c], factory: f)
        framesDropped = CoreMetrics.Counter(label: "scand_frames_dropped_total", dimensions: [c], factory: f)
        reconnects = CoreMetrics.Counter(label: "scand_device_reconnects_total", dimensions: [c], factory: f)
        stageBarcode = CoreMetrics.Timer(
            label: "scand_stage_duration_seconds", dimensions: [c, ("stage", "barcode")], factory: f)
        stageFace = CoreMetrics.Timer(
            label: "scand_stage_duration_seconds", dimensions: [c, ("stage", "face")], factory: f)
        stageTracking = CoreMetrics.Timer(
            label: "scand_stage_duration_seconds", dimensions: [c, ("stage", "tracking")], factory: f)
        latency = CoreMetrics.Timer(label: "scand_frame_latency_seconds", dimensions: [c], factory: f)
        deviceUp = CoreMetrics.Gauge(label: "scand_device_up", dimensions: [c], factory: f)
        deviceUp.record(0)
    }

    /// One processed frame (see ``ScandMetrics/recordFrame(camera:captured:processed:dropped:barcodeSeconds:faceSeconds:trackingSeconds:latencySeconds:objects:)``).
    func record(
        captured: Int, processed: Int, dropped: Int, barcodeSeconds: Double, faceSeconds: Double,
        trackingSeconds: Double, latencySeconds: Double?, objects: [MetadataObject]
    ) {
        let (dc, dp, dd, counters) = state.withLock { s -> (Int, Int, Int, [CoreMetrics.Counter]) in
            defer { (s.captured, s.processed, s.dropped) = (captured, processed, dropped) }
            let counters = objects.map { o -> CoreMetrics.Counter in
                if let c = s.detections[o.type] { return c }
                let c = CoreMetrics.Counter(
                    label: "scand_detections_total", dimensions: [("camera", camera), ("type", o.type.rawValue)],
                    factory: factory)
                s.detections[o.type] = c
                return c
            }
            return (captured - s.captured, processed - s.processed, dropped - s.dropped, counters)
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
}
