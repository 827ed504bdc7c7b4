import FoundationEssentials
import ScanCapture
public import ScanCore
import ScanDetection
public import ScanKit
import ScanOutput

#if canImport(Glibc)
    import Glibc
#endif

/// One benchmark run's settings: a Y4M clip with ground truth, what to detect, and how frames arrive.
public struct BenchmarkCase: Sendable {
    public var name: String
    /// A Y4M clip made by bench/pipeline/make_clips.py.
    public var clip: String
    /// Its `.truth.json` (per frame: code values, face boxes in pixels).
    public var truth: String
    public var types: Set<MetadataObjectType>
    /// Frames arrive at the clip's rate and late ones are dropped (as from a camera); false: as fast as possible.
    public var live: Bool
    /// Repeat the clip until this many frames were offered (nil: once).
    public var frames: Int?
    public init(
        name: String, clip: String, truth: String, types: Set<MetadataObjectType>, live: Bool, frames: Int? = nil
    ) {
        self.name = name
        self.clip = clip
        self.truth = truth
        self.types = types
        self.live = live
        self.frames = frames
    }
}

/// What one run measured. Times in milliseconds unless named otherwise.
public struct BenchmarkResult: Sendable, Codable {
    public var name: String
    public var pipeline: String
    public var framesOffered: Int
    public var framesProcessed: Int
    public var framesDropped: Int
    public var seconds: Double
    public var fps: Double
    public var cpuSecondsPerFrame: Double
    public var latencyP50: Double
    public var latencyP99: Double
    /// Median per-frame milliseconds by stage: decode, barcode, face, tracking, encode.
    public var stages: [String: Double]
    /// 99th-percentile per-frame milliseconds by stage (the same keys as ``stages``).
    public var stagesP99: [String: Double]
    /// VmHWM over this run alone (the peak is reset before each run, see ``ProcessStats/resetPeak()``):
    /// the process's baseline (code, libraries, models loaded so far) plus what this pipeline used.
    public var peakRSSMB: Double
    public var startRSSMB: Double
    public var endRSSMB: Double
    public var codeRecall: Double?
    public var faceRecall: Double?
    /// Unpaced runs: per frame of the clip, the codes read (`type:value`, sorted), for the recall against the
    /// naive pass (``naiveRecall(of:baseline:)``). Empty for live runs, whose frames depend on timing.
    public var frameCodes: [[String]] = []

    /// Of the codes `baseline` (an unpaced run of the naive pipeline) read on each frame, the fraction `scand`
    /// (an unpaced run over the same frames) read on that frame; nil when the baseline read none or a run
    /// holds no per-frame codes.
    public static func naiveRecall(of scand: BenchmarkResult, baseline: BenchmarkResult) -> Double? {
        guard !scand.frameCodes.isEmpty, scand.frameCodes.count == baseline.frameCodes.count else { return nil }
        var read = 0
        var total = 0
        for (mine, naive) in zip(scand.frameCodes, baseline.frameCodes) {
            total += naive.count
            read += naive.filter(mine.contains).count
        }
        return total > 0 ? Double(read) / Double(total) : nil
    }
}

/// Runs the real pipeline (``MetadataOutput`` + encoder) or the naive baseline over a clip and measures it.
public enum Benchmark {
    public enum Pipeline: String, Sendable {
        /// scand as configured (the levers on).
        case scand
        /// The naive baseline a user would write (``NaiveBaseline``).
        case baseline
        /// scand with every lever off: zbar at density 1 with every pass on every frame, the whole frame
        /// searched for faces on every frame at full resolution, detectors one after the other. The
        /// reference for "no reads lost".
        case fullFrame = "full-frame"
    }

    /// `configuration` with every speed lever turned off (see ``Pipeline/fullFrame``).
    public static func fullFrameConfiguration(_ configuration: OutputConfiguration) -> OutputConfiguration {
        var c = configuration
        c.barcode.streamScanDensity = 1
        c.barcode.largeFrameStepSpacing = 1
        c.barcode.streamStepsPerFrame = nil
        c.barcode.scanDensity = 1
        c.face.detectionInterval = 1
        c.face.analysisShortSide = nil
        c.parallelDetectors = false
        return c
    }

    /// A frame's codes as `type:text`, sorted (``BenchmarkResult/frameCodes``).
    static func codeTexts(_ objects: [MetadataObject]) -> [String] {
        objects.filter(\.type.isMachineReadableCode).map { "\($0.type.rawValue):\($0.stringValue ?? "")" }.sorted()
    }

    public static func run(
        _ c: BenchmarkCase, pipeline: Pipeline, configuration: OutputConfiguration,
        faceCascade: String?
    ) throws -> BenchmarkResult {
        let truth = try Truth.load(c.truth)
        var config = pipeline == .fullFrame ? fullFrameConfiguration(configuration) : configuration
        config.metadataObjectTypes = c.types
        let output = pipeline != .baseline ? try MetadataOutput(configuration: config) : nil
        let baseline =
            pipeline == .baseline
            ? try NaiveBaseline(
                codes: c.types.contains { $0.isMachineReadableCode },
                faceCascadePath: c.types.contains(.face) ? faceCascade : nil) : nil
        let encoder = JSONLinesEncoder()
        var decode = SampleSeries()
        var barcode = SampleSeries()
        var face = SampleSeries()
        var tracking = SampleSeries()
        var encode = SampleSeries()
        var latency = SampleSeries()
        var recall = RecallCount()
        let total = c.frames ?? truth.frames.count
        ProcessStats.resetPeak()
        let startRSS = ProcessStats.residentBytes()
        let feeder = FrameFeeder(clip: c.clip, total: total, live: c.live)
        let cpu0 = ProcessStats.cpuSeconds()
        let t0 = monotonicSeconds()
        var processed = 0
        var sink = 0
        var frameCodes: [[String]] = []
        while let (frame, index, decodeSeconds) = try feeder.next() {
            decode.add(decodeSeconds)
            let objects: [MetadataObject]
            var event: MetadataEvent
            if let output {
                let result = try output.processFrame(
                    frame, source: SourceInfo(name: c.clip, frameRate: Double(truth.fps), isLive: c.live))
                event = result.event
                objects = event.objects
                barcode.add(result.timings.barcode)
                face.add(result.timings.face)
                tracking.add(result.timings.tracking)
            } else {
                let result = try baseline!.process(frame)
                objects = result.objects
                barcode.add(result.codeSeconds)
                face.add(result.faceSeconds)
                event = MetadataEvent(
                    source: c.clip, frame: frame.index, time: frame.time, width: frame.width, height: frame.height,
                    objects: objects)
            }
            let e0 = monotonicSeconds()
            sink &+= encoder.encode(.metadata(event)).line.count
            let e1 = monotonicSeconds()
            encode.add(e1 - e0)
            if let arrived = frame.captureClock { latency.add(e1 - arrived) }
            processed += 1
            if !c.live { frameCodes.append(codeTexts(objects)) }
            recall.score(objects, truth: truth.frames[index % truth.frames.count], types: c.types, frame: frame)
        }
        let seconds = monotonicSeconds() - t0
        let cpu = ProcessStats.cpuSeconds() - cpu0
        precondition(sink > 0 || processed == 0)
        let stageSeries = ["decode": decode, "barcode": barcode, "face": face, "tracking": tracking, "encode": encode]
        var result = BenchmarkResult(
            name: c.name, pipeline: pipeline.rawValue, framesOffered: feeder.offered, framesProcessed: processed,
            framesDropped: feeder.dropped, seconds: seconds, fps: Double(processed) / seconds,
            cpuSecondsPerFrame: cpu / Double(max(1, processed)),
            latencyP50: latency.percentile(50) * 1000, latencyP99: latency.percentile(99) * 1000,
            stages: stageSeries.mapValues { $0.median * 1000 },
            stagesP99: stageSeries.mapValues { $0.percentile(99) * 1000 },
            peakRSSMB: Double(ProcessStats.peakResidentBytes()) / 1e6, startRSSMB: Double(startRSS) / 1e6,
            endRSSMB: Double(ProcessStats.residentBytes()) / 1e6,
            codeRecall: recall.codes, faceRecall: recall.faces)
        result.frameCodes = frameCodes
        return result
    }
}

/// Recall against the clip's ground truth: codes by type and text, faces by IoU ≥ 0.3 with a true box.
struct RecallCount {
    var codeHits = 0
    var codeTotal = 0
    var faceHits = 0
    var faceTotal = 0
    /// Codes found of those in view (nil when none was in view).
    var codes: Double? { codeTotal > 0 ? Double(codeHits) / Double(codeTotal) : nil }
    /// Faces found of those in view (nil when none was in view).
    var faces: Double? { faceTotal > 0 ? Double(faceHits) / Double(faceTotal) : nil }

    /// Counts what `objects` (found on `frame`) got of `truth`'s codes and faces of `types`.
    mutating func score(
        _ objects: [MetadataObject], truth: Truth.FrameTruth, types: Set<MetadataObjectType>, frame: Frame
    ) {
        for code in truth.codes where types.contains(code.type) {
            codeTotal += 1
            if objects.contains(where: { $0.type == code.type && $0.stringValue == code.value }) { codeHits += 1 }
        }
        guard types.contains(.face) else { return }
        for box in truth.faces {
            faceTotal += 1
            let r = NormalizedRect(
                x: box[0] / Double(frame.width), y: box[1] / Double(frame.height),
                width: box[2] / Double(frame.width), height: box[3] / Double(frame.height))
            if objects.contains(where: { $0.type == .face && $0.bounds.iou(r) >= 0.3 }) { faceHits += 1 }
        }
    }
}

/// Ground truth written by bench/pipeline/make_clips.py.
struct Truth: Decodable {
    struct Code: Decodable {
        var type: MetadataObjectType
        var value: String
    }
    struct FrameTruth: Decodable {
        var frame: Int
        var codes: [Code]
        var faces: [[Double]]
    }
    var width: Int, height: Int, fps: Int
    var frames: [FrameTruth]
    static func load(_ path: String) throws -> Truth {
        guard let f = fopen(path, "rb") else { throw ScanError.unreadableInput(input: path, reason: "cannot open") }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        do { return try JSONDecoder().decode(Truth.self, from: Data(bytes)) } catch {
            throw ScanError.undecodableInput(input: path, reason: "ground truth: \(error)")
        }
    }
}

/// Offers frames of a clip (repeated as needed). Live: a thread decodes at the clip's frame rate into a
/// one-slot hand-off where the newest frame wins, as a camera would deliver them; the consumer takes
/// whatever is newest. Otherwise: frames are decoded on demand, none dropped.
final class FrameFeeder: Sendable {
    private let clip: String
    private let total: Int
    private let live: Bool
    /// The decoder and how many frames it produced: used by one thread at a time (the decoding thread when
    /// live, the consumer otherwise), so its lock is never contended.
    private let decoder = Locked<(source: Y4MSource?, produced: Int)>((nil, 0))
    /// The live hand-off: the newest decoded frame, whether decoding ended, and the counts.
    private struct Handoff {
        var slot: (Frame, Int, Double)?
        var finished = false
        var offered = 0
        var dropped = 0
    }
    private let handoff = Locked(Handoff())
    var offered: Int { handoff.withLock { $0.offered } }
    var dropped: Int { handoff.withLock { $0.dropped } }

    init(clip: String, total: Int, live: Bool) {
        self.clip = clip
        self.total = total
        self.live = live
        if live {
            _ = WorkerThread(name: "scand-bench-src") { [self] in self.produce() }
        }
    }

    private func decodeNext() throws -> (Frame, Int, Double)? {
        try decoder.withLock { d in
            guard d.produced < total else { return nil }
            let t0 = monotonicSeconds()
            if d.source == nil { d.source = try Y4MSource(path: clip) }
            var frame = try d.source!.nextFrame()
            if frame == nil {
                d.source = try Y4MSource(path: clip)
                frame = try d.source!.nextFrame()
            }
            guard var f = frame else { return nil }
            let index = d.produced
            d.produced += 1
            f.captureClock = monotonicSeconds()
            return (f, index, f.captureClock! - t0)
        }
    }

    private func produce() {
        let fps = (try? Y4MSource(path: clip).info.frameRate ?? 30) ?? 30
        let start = monotonicSeconds()
        while true {
            let due = start + Double(decoder.withLock { $0.produced }) / fps
            let wait = due - monotonicSeconds()
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            guard let item = try? decodeNext() else { break }
            handoff.withLock {
                if $0.slot != nil { $0.dropped += 1 }
                $0.slot = item
                $0.offered += 1
            }
        }
        handoff.withLock { $0.finished = true }
    }

    func next() throws -> (Frame, Int, Double)? {
        if !live {
            let item = try decodeNext()
            if item != nil { handoff.withLock { $0.offered += 1 } }
            return item
        }
        while true {
            let (item, done) = handoff.withLock { h -> ((Frame, Int, Double)?, Bool) in
                defer { h.slot = nil }
                return (h.slot, h.finished)
            }
            if let item { return item }
            if done { return nil }
            usleep(500)
        }
    }
}
