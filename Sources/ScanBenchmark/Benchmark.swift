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

    /// Runs `c` through the ``FramePipeline`` (``PipelineSettings/bench(live:frames:)``: a live case is a paced
    /// replay where the newest frame wins, as from a camera) with `pipeline`'s detectors, and measures it.
    public static func run(
        _ c: BenchmarkCase, pipeline: Pipeline, configuration: OutputConfiguration,
        faceCascade: String?, faceSearchOffset: Double = 0
    ) throws -> BenchmarkResult {
        let truth = try Truth.load(c.truth)
        var config = pipeline == .fullFrame ? fullFrameConfiguration(configuration) : configuration
        config.metadataObjectTypes = c.types
        // The clip stands in for a camera in a live case: the detectors are told the source is live.
        let info = SourceInfo(name: c.clip, frameRate: Double(truth.fps), isLive: c.live)
        let processor: BenchProcessor =
            pipeline != .baseline
            ? .scand(try MetadataOutput(configuration: config, faceSearchOffset: faceSearchOffset), info)
            : .baseline(
                try NaiveBaseline(
                    codes: c.types.contains { $0.isMachineReadableCode },
                    faceCascadePath: c.types.contains(.face) ? faceCascade : nil), info)
        ProcessStats.resetPeak()
        let startRSS = ProcessStats.residentBytes()
        let first = try Y4MSource(path: c.clip)
        let clip = c.clip
        let counts = Locked((offered: 0, dropped: 0))
        let observer = ReadObserver(frameRead: { dropped in
            counts.withLock {
                $0.offered += 1
                $0.dropped += dropped
            }
        })
        var frames = FramePipeline(
            settings: .bench(live: c.live, frames: c.frames), processor: processor)
        var m = Measurements(case: c, truth: truth)
        let cpu0 = ProcessStats.cpuSeconds()
        let started = MonotonicInstant.now
        if case .sourceFailed(_, let error) = try frames.run(
            source: first, reopen: { try Y4MSource(path: clip) }, observer: observer, consumer: &m)
        {
            throw error
        }
        let seconds = started.elapsed.inSeconds
        let cpu = ProcessStats.cpuSeconds() - cpu0
        precondition(m.encodedBytes > 0 || m.processed == 0)
        let (offered, dropped) = counts.withLock { ($0.offered, $0.dropped) }
        let stageSeries = [
            "decode": m.decode, "barcode": m.barcode, "face": m.face, "tracking": m.tracking, "encode": m.encode,
        ]
        var result = BenchmarkResult(
            name: c.name, pipeline: pipeline.rawValue, framesOffered: offered, framesProcessed: m.processed,
            framesDropped: dropped, seconds: seconds, fps: Double(m.processed) / seconds,
            cpuSecondsPerFrame: cpu / Double(max(1, m.processed)),
            latencyP50: m.latency.percentile(50) * 1000, latencyP99: m.latency.percentile(99) * 1000,
            stages: stageSeries.mapValues { $0.median * 1000 },
            stagesP99: stageSeries.mapValues { $0.percentile(99) * 1000 },
            peakRSSMB: Double(ProcessStats.peakResidentBytes()) / 1e6, startRSSMB: Double(startRSS) / 1e6,
            endRSSMB: Double(ProcessStats.residentBytes()) / 1e6,
            codeRecall: m.recall.codes, faceRecall: m.recall.faces)
        result.frameCodes = m.frameCodes
        return result
    }
}

/// The benchmark's detectors: scand's (``MetadataOutput``) or the naive baseline, each told `info` as the
/// source (live for a live case), with the seconds each stage took.
enum BenchProcessor: FrameProcessor {
    case scand(MetadataOutput, SourceInfo)
    case baseline(NaiveBaseline, SourceInfo)

    struct Result {
        var event: MetadataEvent
        var barcode: Double
        var face: Double
        var tracking: Double?
    }

    func processFrame(_ frame: Frame, source: SourceInfo) throws -> Result {
        switch self {
        case .scand(let output, let info):
            let r = try output.processFrame(frame, source: info)
            return Result(
                event: r.event, barcode: r.timings.barcode, face: r.timings.face, tracking: r.timings.tracking)
        case .baseline(let baseline, let info):
            let r = try baseline.process(frame)
            let event = MetadataEvent(
                source: info.name, frame: frame.index, time: frame.time, width: frame.width, height: frame.height,
                objects: r.objects)
            return Result(event: event, barcode: r.codeSeconds, face: r.faceSeconds, tracking: nil)
        }
    }
}

/// `scand bench`'s consumer: per-stage times, latency from capture to encoded line, recall against the
/// clip's truth, and (unpaced) each frame's codes.
struct Measurements: FrameConsumer {
    typealias Processor = BenchProcessor
    let c: BenchmarkCase
    let truth: Truth
    let encoder = JSONLinesEncoder()
    var decode = SampleSeries()
    var barcode = SampleSeries()
    var face = SampleSeries()
    var tracking = SampleSeries()
    var encode = SampleSeries()
    var latency = SampleSeries()
    var recall = RecallCount()
    var processed = 0
    var encodedBytes = 0
    var frameCodes: [[String]] = []

    init(case c: BenchmarkCase, truth: Truth) {
        self.c = c
        self.truth = truth
    }

    func processingFailed(_ item: PipelineFrame, error: any Error) throws { throw error }

    mutating func consume(_ item: PipelineFrame, _ result: BenchProcessor.Result) -> Bool {
        decode.add(item.readTook.inSeconds)
        barcode.add(result.barcode)
        face.add(result.face)
        if let t = result.tracking { tracking.add(t) }
        let encoding = MonotonicInstant.now
        encodedBytes &+= encoder.encode(.metadata(result.event)).line.count
        let encoded = MonotonicInstant.now
        encode.add(encoding.duration(to: encoded).inSeconds)
        if let arrived = item.frame.captureClock { latency.add(arrived.duration(to: encoded).inSeconds) }
        processed += 1
        let objects = result.event.objects
        if !c.live { frameCodes.append(Benchmark.codeTexts(objects)) }
        recall.score(
            objects, truth: truth.frames[item.number % truth.frames.count], types: c.types, frame: item.frame)
        return true
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
    static func load(_ path: String) throws -> Truth { try decodeJSONFile(Truth.self, at: path, what: "ground truth") }
}

/// The JSON file at `path` decoded as `T`.
/// - Throws: ``ScanError/unreadableInput(input:reason:)`` when it cannot be opened,
///   ``ScanError/undecodableInput(input:reason:)`` (the reason starting with `what`) when it is not a `T`.
func decodeJSONFile<T: Decodable>(_ type: T.Type, at path: String, what: String) throws -> T {
    let bytes = try readWholeFile(path)
    do { return try JSONDecoder().decode(T.self, from: Data(bytes)) } catch {
        throw ScanError.undecodableInput(input: path, reason: "\(what): \(error)")
    }
}

/// The bytes of the file at `path`.
/// - Throws: ``ScanError/unreadableInput(input:reason:)`` naming it when it cannot be opened.
func readWholeFile(_ path: String) throws -> [UInt8] {
    guard let f = fopen(path, "rb") else { throw ScanError.unreadableInput(input: path, reason: "cannot open") }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return bytes
}
