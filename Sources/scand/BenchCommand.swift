import ArgumentParser
import FoundationEssentials
import Logging
import ScanBenchmark
import ScanCore
import ScanKit
import ScanOutput

#if canImport(Glibc)
    import Glibc
#endif

/// `scand bench`: the real pipeline against the naive baseline on generated camera-like clips.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark the pipeline against the naive baseline (see docs/performance.md).",
        discussion: """
            Clips come from bench/pipeline/make_clips.py (640x480, 1280x720, 1920x1080 and 3840x2160, --sizes; codes, \
            faces, both, and idle: the \
            faces clip, which shows no code, with every detector on). For each case it runs, in the same process, \
            the naive baseline (every full frame through default zbar, plus the Haar default cascade at 1.1/3/30 px) \
            and scand, each unpaced (throughput, CPU, stages, recall) and live (--live-frames frames offered at the \
            clip's rate, newest wins, as a camera delivers them: live fps, drops, latency), --runs times; then once \
            the full-frame reference (every lever off). Prints each figure for scand, the baseline and their ratio \
            (medians of the runs); --json writes every run.

            EXAMPLES:
              bench/pipeline/make_clips.py --frames 150 && scand bench   # every case, 3 runs each
              scand bench --only 640x480-codes --runs 5 --json out.json
              scand bench --only both --engine zbar --no-reference  # one lever changed
              bench/reader/phone_photos.py && scand bench --stills bench/out/reader/phone --runs 3
            """)

    @Option(help: ArgumentHelp("Directory with the clips and their .truth.json files.", valueName: "dir"))
    var clips: String = "bench/out"

    @Option(help: ArgumentHelp("Runs per measurement; medians are reported.", valueName: "n"))
    var runs: Int = 3

    @Option(help: ArgumentHelp("Only cases whose name contains this (e.g. 1280x720-both).", valueName: "text"))
    var only: String?

    @Option(help: ArgumentHelp("Frame sizes to run, comma-separated.", valueName: "WxH,..."))
    var sizes: String = "640x480,1280x720,1920x1080,3840x2160"

    @Option(
        help: ArgumentHelp("Frames offered to each live run (the clip repeated; 30 fps: 450 = 15 s).", valueName: "n"))
    var liveFrames: Int = 450

    @Option(help: ArgumentHelp("Write the results as JSON to this file.", valueName: "file"))
    var json: String?

    @Option(
        help: ArgumentHelp(
            "Also run scand unpaced for this many frames (clip repeated) and report start/end RSS.", valueName: "n"))
    var longFrames: Int?

    @Option(
        help: ArgumentHelp(
            "Measure only the code tracker (trackID) with this many identical codes in view a frame, beside encoding the frame's JSON line (the same run's baseline).",
            valueName: "codes"))
    var tracking: Int?

    @Option(
        help: ArgumentHelp(
            "Several cameras: run this many copies of each live case at once, each its own pipeline (as scand run --camera does), and report each camera's live rate and latency beside one camera alone in the same run.",
            valueName: "n"))
    var cameras: Int = 1

    @Option(
        help: ArgumentHelp(
            "Stills instead of clips: read every photo of this set (bench/reader/make_set.py's layout: truth.json and the images) with scand and with zxing-cpp's defaults, runs alternated, and report CPU and wall time per photo, reads, misreads and reports on code-free photos.",
            valueName: "dir"))
    var stills: String?

    @Flag(
        help:
            "Skip the full-frame reference (scand with every lever off, one run per case; it gives the recall the levers must not lose)."
    )
    var noReference = false

    @OptionGroup(title: "Reader tuning") var detection: DetectionOptions
    @OptionGroup(title: "Face tuning") var faces: FaceOptions

    func run() throws {
        if let tracking { return try measureTracking(tracking) }
        // What libzbar prints on stderr while the clips run becomes log lines (LibraryStderr).
        var logger = Logger(label: "scand") { StderrLogHandler(label: $0) }
        logger.logLevel = .warning
        LibraryStderr.route(to: logger)
        defer { LibraryStderr.stopRouting() }
        if let stills { return try measureStills(stills) }
        var configuration = OutputConfiguration()
        try detection.apply(to: &configuration)
        faces.apply(to: &configuration.face)
        do {
            try configuration.barcode.validate()
            try configuration.face.validate()
        } catch {
            throw ValidationError(error.description)
        }
        let cascade = try ModelLocator.file("haarcascade_frontalface_default.xml", in: configuration.models)
        let codes = Set(MetadataOutput.availableMetadataObjectTypes.filter(\.isMachineReadableCode))
        let cases = benchCases(codes: codes)
        if cameras > 1 {
            return try measureCameras(cases, configuration: configuration, cascade: cascade)
        }
        var rows: [[String: BenchmarkResult]] = []
        var all: [BenchmarkResult] = []
        for (name, clipName, types) in cases where only.map({ name.contains($0) }) ?? true {
            let clip = "\(clips)/clip-\(clipName).y4m"
            let truth = "\(clips)/clip-\(clipName).truth.json"
            guard access(clip, R_OK) == 0 else {
                throw ValidationError(
                    "\(clip) is missing: run bench/pipeline/make_clips.py --sizes \(name.split(separator: "-")[0]) first"
                )
            }
            var row: [String: BenchmarkResult] = [:]
            // (label, pipeline, live): throughput runs process every frame of the clip once; live runs are
            // offered --live-frames frames at the clip's rate (the clip repeated), as a camera delivers them.
            var plan: [(String, Benchmark.Pipeline, Bool)] = [
                ("baseline", .baseline, false), ("baseline-live", .baseline, true),
                ("scand", .scand, false), ("live", .scand, true),
            ]
            if !noReference { plan.append(("full-frame", .fullFrame, false)) }
            for (label, pipeline, live) in plan {
                var results: [BenchmarkResult] = []
                // The reference is deterministic in what it reads; one run gives its recall.
                for _ in 0..<(pipeline == .fullFrame ? 1 : max(1, runs)) {
                    let c = BenchmarkCase(
                        name: name, clip: clip, truth: truth, types: types, live: live,
                        frames: live ? liveFrames : nil)
                    var r = try Benchmark.run(c, pipeline: pipeline, configuration: configuration, faceCascade: cascade)
                    r.pipeline = label
                    results.append(r)
                }
                row[label] = Self.median(results)
                all += results
                writeStderr("\(name) \(label): \(fixed(row[label]!.fps, 1)) fps\n")
            }
            rows.append(row)
        }
        printTable(rows)
        if let longFrames {
            let c = BenchmarkCase(
                name: "640x480-codes", clip: "\(clips)/clip-640x480-codes.y4m",
                truth: "\(clips)/clip-640x480-codes.truth.json", types: codes, live: false, frames: longFrames)
            var r = try Benchmark.run(c, pipeline: .scand, configuration: configuration, faceCascade: cascade)
            r.pipeline = "long"
            print(
                "long run: \(r.framesProcessed) frames, \(fixed(r.fps, 1)) fps, RSS start \(fixed(r.startRSSMB, 1)) MB, end \(fixed(r.endRSSMB, 1)) MB, peak \(fixed(r.peakRSSMB, 1)) MB"
            )
            all.append(r)
        }
        if let json { try Self.writeJSON(all, to: json) }
    }

    /// `--json FILE`: every run, pretty-printed, keys sorted.
    static func writeJSON<T: Encodable>(_ runs: T, to path: String) throws {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try e.encode(runs)
        guard let f = fopen(path, "wb") else { throw ValidationError("cannot write \(path)") }
        _ = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
    }

    /// `--cameras N`: per case, one camera alone, then N cameras at once (live runs, --runs times each), in the
    /// same run; prints each camera's median live fps and p99 latency, the fairness (slowest ÷ fastest) and the
    /// CPU, and writes every run with --json.
    func measureCameras(
        _ cases: [(String, String, Set<MetadataObjectType>)], configuration: OutputConfiguration, cascade: String?
    ) throws {
        var all: [MultiCameraBench.Result] = []
        for (name, clipName, types) in cases where only.map({ name.contains($0) }) ?? true {
            let c = BenchmarkCase(
                name: name, clip: "\(clips)/clip-\(clipName).y4m", truth: "\(clips)/clip-\(clipName).truth.json",
                types: types, live: true, frames: liveFrames)
            guard access(c.clip, R_OK) == 0 else {
                throw ValidationError("\(c.clip) is missing: run bench/pipeline/make_clips.py first")
            }
            var alone: [MultiCameraBench.Result] = []
            var together: [MultiCameraBench.Result] = []
            for _ in 0..<max(1, runs) {
                alone.append(
                    try MultiCameraBench.run(c, cameras: 1, configuration: configuration, faceCascade: cascade))
                together.append(
                    try MultiCameraBench.run(c, cameras: cameras, configuration: configuration, faceCascade: cascade))
                writeStderr(
                    "\(name): 1 camera \(fixed(alone.last!.perCamera[0].fps, 1)) fps; \(cameras) cameras \(together.last!.perCamera.map { fixed($0.fps, 1) }.joined(separator: "/")) fps\n"
                )
            }
            all += alone + together
            func med(_ v: [Double]) -> Double {
                let s = v.sorted()
                return s.isEmpty ? 0 : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
            }
            let one = alone.map { $0.perCamera[0] }
            print("\n\(name), live, \(liveFrames) frames offered per camera (medians of \(max(1, runs)) runs)")
            print(
                "  1 camera alone:  \(fixed(med(one.map(\.fps)), 1)) fps, p99 \(fixed(med(one.map(\.latencyP99)), 1)) ms, CPU \(fixed(med(alone.map(\.cpuSecondsPerFrame)) * 1000, 1)) ms a frame"
            )
            for i in 0..<cameras {
                let cam = together.map { $0.perCamera[i] }
                print(
                    "  camera \(i + 1) of \(cameras): \(fixed(med(cam.map(\.fps)), 1)) fps (dropped \(fixed(med(cam.map { Double($0.framesDropped) }), 0))), p99 \(fixed(med(cam.map(\.latencyP99)), 1)) ms"
                )
            }
            print(
                "  fairness (slowest ÷ fastest camera): \(fixed(med(together.map(\.fairness)), 2)); CPU \(fixed(med(together.map(\.cpuSecondsPerFrame)) * 1000, 1)) ms a frame; peak RSS \(fixed(med(together.map { $0.perCamera.map(\.peakRSSMB).max() ?? 0 }), 0)) MB"
            )
        }
        if let json { try Self.writeJSON(all, to: json) }
    }

    /// `--tracking N`: the code tracker alone (``TrackingCost``), printed on one line.
    func measureTracking(_ codes: Int) throws {
        guard codes > 0 else { throw ValidationError("--tracking must be at least 1") }
        let r = TrackingCost.measure(codes: codes, runs: max(1, runs))
        let ratio = r.trackerMicroseconds / max(r.encodeMicroseconds, 0.001)
        print(
            "tracking \(r.codes) codes, \(r.frames) frames, median of \(max(1, runs)) runs: tracker \(fixed(r.trackerMicroseconds, 1)) µs a frame, JSON line \(fixed(r.encodeMicroseconds, 1)) µs a frame (ratio \(fixed(ratio, 2))x), \(r.tracks) tracks at the end"
        )
    }

    /// The cases of `--sizes`, each (case name, clip, types). "idle": the faces clip (no code in it) with every
    /// detector on, as a kiosk camera sees most of the time: every frame pays the reader's extra steps.
    func benchCases(codes: Set<MetadataObjectType>) -> [(String, String, Set<MetadataObjectType>)] {
        var cases: [(String, String, Set<MetadataObjectType>)] = []
        for size in sizes.split(separator: ",").map(String.init) {
            cases.append(("\(size)-codes", "\(size)-codes", codes))
            cases.append(("\(size)-faces", "\(size)-faces", [.face]))
            cases.append(("\(size)-both", "\(size)-both", codes.union([.face])))
            cases.append(("\(size)-idle", "\(size)-faces", codes.union([.face])))
        }
        return cases
    }

    /// The run whose median figure is reported for each field: fps, CPU, latency and RSS each take their
    /// own median over the runs (recall and drops follow the median-fps run).
    static func median(_ results: [BenchmarkResult]) -> BenchmarkResult {
        func med(_ key: (BenchmarkResult) -> Double) -> Double {
            let v = results.map(key).sorted()
            return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
        }
        var m = results.sorted { $0.fps < $1.fps }[results.count / 2]
        m.fps = med(\.fps)
        m.cpuSecondsPerFrame = med(\.cpuSecondsPerFrame)
        m.latencyP50 = med(\.latencyP50)
        m.latencyP99 = med(\.latencyP99)
        m.peakRSSMB = med(\.peakRSSMB)
        for k in m.stages.keys { m.stages[k] = med { $0.stages[k] ?? 0 } }
        for k in m.stagesP99.keys { m.stagesP99[k] = med { $0.stagesP99[k] ?? 0 } }
        return m
    }

    /// One block per case: each figure for scand, the naive baseline, and scand ÷ baseline.
    func printTable(_ rows: [[String: BenchmarkResult]]) {
        func f(_ v: Double, _ d: Int = 1) -> String { fixed(v, d) }
        func pct(_ v: Double?) -> String { v.map { f($0 * 100) + " %" } ?? "-" }
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
        func ratio(_ a: Double, _ b: Double) -> String { b > 0 && a.isFinite ? f(a / b, 2) + "x" : "-" }
        for row in rows {
            guard let b = row["baseline"], let bl = row["baseline-live"], let s = row["scand"], let l = row["live"]
            else { continue }
            let r = row["full-frame"]
            print("\n\(s.name)  (medians of \(runs) runs; live: \(l.framesOffered) frames offered at the clip's rate)")
            print(
                pad("", 30) + pad("scand", 16) + pad("baseline", 16) + pad("scand/baseline", 16)
                    + (r != nil ? "full-frame" : ""))
            func line(_ label: String, _ sv: String, _ bv: String, _ rv: String, _ fv: String = "") {
                print(pad(label, 30) + pad(sv, 16) + pad(bv, 16) + pad(rv, 16) + (r != nil ? fv : ""))
            }
            line("throughput fps", f(s.fps), f(b.fps), ratio(s.fps, b.fps), r.map { f($0.fps) } ?? "")
            line(
                "live fps (dropped)", "\(f(l.fps)) (\(l.framesDropped))", "\(f(bl.fps)) (\(bl.framesDropped))",
                ratio(l.fps, bl.fps))
            line("latency p50 ms (live)", f(l.latencyP50), f(bl.latencyP50), ratio(l.latencyP50, bl.latencyP50))
            line("latency p99 ms (live)", f(l.latencyP99), f(bl.latencyP99), ratio(l.latencyP99, bl.latencyP99))
            line(
                "cpu ms/frame", f(s.cpuSecondsPerFrame * 1000), f(b.cpuSecondsPerFrame * 1000),
                ratio(s.cpuSecondsPerFrame, b.cpuSecondsPerFrame), r.map { f($0.cpuSecondsPerFrame * 1000) } ?? "")
            line(
                "peak RSS MB", f(s.peakRSSMB), f(b.peakRSSMB), ratio(s.peakRSSMB, b.peakRSSMB),
                r.map { f($0.peakRSSMB) } ?? "")
            for stage in ["decode", "barcode", "face", "tracking", "encode"] {
                let sv = s.stages[stage] ?? 0
                let bv = b.stages[stage] ?? 0
                guard sv > 0 || bv > 0 else { continue }
                line(
                    "\(stage) ms p50/p99", "\(f(sv, 2))/\(f(s.stagesP99[stage] ?? 0, 2))",
                    "\(f(bv, 2))/\(f(b.stagesP99[stage] ?? 0, 2))",
                    ratio(sv, bv), r.map { "\(f($0.stages[stage] ?? 0, 2))/\(f($0.stagesP99[stage] ?? 0, 2))" } ?? "")
            }
            if let naive = BenchmarkResult.naiveRecall(of: s, baseline: b) {
                line(
                    "codes the naive pass read", pct(naive), "100.0 %", "",
                    r.flatMap { BenchmarkResult.naiveRecall(of: $0, baseline: b) }.map(pct) ?? "")
            }
            if s.codeRecall != nil {
                line(
                    "code recall", pct(s.codeRecall), pct(b.codeRecall),
                    s.codeRecall.flatMap { sc in b.codeRecall.map { f((sc - $0) * 100) + " pts" } } ?? "-",
                    pct(r?.codeRecall))
            }
            if s.faceRecall != nil {
                line(
                    "face recall", pct(s.faceRecall), pct(b.faceRecall),
                    s.faceRecall.flatMap { sc in b.faceRecall.map { f((sc - $0) * 100) + " pts" } } ?? "-",
                    pct(r?.faceRecall))
            }
            line(
                "live code/face recall", "\(pct(l.codeRecall))/\(pct(l.faceRecall))",
                "\(pct(bl.codeRecall))/\(pct(bl.faceRecall))", "")
        }
    }
}

/// `v` with exactly `digits` decimals (no Foundation formatting needed).
func fixed(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let n = (abs(v) * scale).rounded()
    let whole = Int(n / scale)
    let frac = Int(n - Double(whole) * scale)
    let sign = v < 0 && n > 0 ? "-" : ""
    guard digits > 0 else { return sign + String(whole) }
    let f = String(frac)
    return sign + String(whole) + "." + String(repeating: "0", count: digits - f.count) + f
}
