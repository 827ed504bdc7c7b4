import ArgumentParser
import FoundationEssentials
import ScanCore
import ScanKit
#if canImport(Glibc)
import Glibc
#endif

/// `scand bench`: the real pipeline against the naive baseline on generated camera-like clips.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark the pipeline against the naive baseline (see docs/performance.md).",
        discussion: """
        Clips come from bench/pipeline/make_clips.py (640x480 and 1280x720; codes, faces, both, and idle: the \
        faces clip, which shows no code, with every detector on). For each case it \
        runs, in the same process: the naive baseline (every full frame through default zbar, plus the Haar \
        default cascade at 1.1/3/30 px), scand unpaced (throughput), and scand live (frames offered at the clip's \
        rate, newest wins, as a camera delivers them). Reports medians of --runs runs as a table, and as JSON \
        with --json.
        """)

    @Option(help: ArgumentHelp("Directory with the clips and their .truth.json files.", valueName: "dir"))
    var clips: String = "bench/out"

    @Option(help: ArgumentHelp("Runs per measurement; medians are reported.", valueName: "n"))
    var runs: Int = 3

    @Option(help: ArgumentHelp("Only cases whose name contains this (e.g. 1280x720-both).", valueName: "text"))
    var only: String?

    @Option(help: ArgumentHelp("Write the results as JSON to this file.", valueName: "file"))
    var json: String?

    @Option(help: ArgumentHelp("Also run scand unpaced for this many frames (clip repeated) and report start/end RSS.", valueName: "n"))
    var longFrames: Int?

    @Flag(help: "Skip the full-frame reference (scand with every lever off, one run per case; it gives the recall the levers must not lose).")
    var noReference = false

    @OptionGroup var detection: DetectionOptions
    @OptionGroup var faces: FaceOptions

    func run() throws {
        var configuration = try detection.outputConfiguration()
        configuration.face = try faces.configuration()
        let cascade = try ModelLocator.file("haarcascade_frontalface_default.xml", in: configuration.models)
        let codes = Set(MetadataOutput.availableMetadataObjectTypes.filter(\.isMachineReadableCode))
        // (case name, clip, types). "idle": the faces clip (no code in it) with every detector on, as a
        // kiosk camera sees most of the time: every frame pays the reader's extra steps.
        var cases: [(String, String, Set<MetadataObjectType>)] = []
        for size in ["640x480", "1280x720"] {
            cases.append(("\(size)-codes", "\(size)-codes", codes))
            cases.append(("\(size)-faces", "\(size)-faces", [.face]))
            cases.append(("\(size)-both", "\(size)-both", codes.union([.face])))
            cases.append(("\(size)-idle", "\(size)-faces", codes.union([.face])))
        }
        var rows: [[String: BenchmarkResult]] = []
        var all: [BenchmarkResult] = []
        for (name, clipName, types) in cases where only.map({ name.contains($0) }) ?? true {
            let clip = "\(clips)/clip-\(clipName).y4m", truth = "\(clips)/clip-\(clipName).truth.json"
            guard access(clip, R_OK) == 0 else {
                throw ValidationError("\(clip) is missing: run bench/pipeline/make_clips.py first")
            }
            var row: [String: BenchmarkResult] = [:]
            var plan: [(String, Benchmark.Pipeline, Bool)] = [("baseline", .baseline, false), ("scand", .scand, false), ("live", .scand, true)]
            if !noReference { plan.append(("full-frame", .fullFrame, false)) }
            for (label, pipeline, live) in plan {
                var results: [BenchmarkResult] = []
                // The reference is deterministic in what it reads; one run gives its recall.
                for _ in 0..<(pipeline == .fullFrame ? 1 : max(1, runs)) {
                    let c = BenchmarkCase(name: name, clip: clip, truth: truth, types: types, live: live)
                    results.append(try Benchmark.run(c, pipeline: pipeline, configuration: configuration, faceCascade: cascade))
                }
                let med = results.sorted { $0.fps < $1.fps }[results.count / 2]
                row[label] = med
                all += results
                FileHandleStderr.write("\(name) \(label): \(fixed(med.fps, 1)) fps\n")
            }
            rows.append(row)
        }
        printTable(rows)
        if let longFrames {
            let c = BenchmarkCase(name: "640x480-codes", clip: "\(clips)/clip-640x480-codes.y4m",
                                  truth: "\(clips)/clip-640x480-codes.truth.json", types: codes, live: false, frames: longFrames)
            let r = try Benchmark.run(c, pipeline: .scand, configuration: configuration, faceCascade: cascade)
            print("long run: \(r.framesProcessed) frames, \(fixed(r.fps, 1)) fps, RSS start \(fixed(r.startRSSMB, 1)) MB, end \(fixed(r.endRSSMB, 1)) MB, peak \(fixed(r.peakRSSMB, 1)) MB")
            all.append(r)
        }
        if let json {
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys, .prettyPrinted]
            let data = try e.encode(all)
            guard let f = fopen(json, "wb") else { throw ValidationError("cannot write \(json)") }
            _ = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
            fclose(f)
        }
    }

    func printTable(_ rows: [[String: BenchmarkResult]]) {
        func f(_ v: Double, _ d: Int = 1) -> String { fixed(v, d) }
        func pct(_ v: Double?) -> String { v.map { f($0 * 100) + "%" } ?? "-" }
        print("case              | baseline fps | scand fps | ratio | live fps (dropped) | latency p50/p99 ms | stages ms (decode/barcode/face/track/encode) | cpu ms/frame | peak RSS MB | code recall scand/base/full | face recall scand/base/full")
        for row in rows {
            guard let b = row["baseline"], let s = row["scand"], let l = row["live"] else { continue }
            let r = row["full-frame"]
            let st = ["decode", "barcode", "face", "tracking", "encode"].map { f(s.stages[$0] ?? 0, 2) }.joined(separator: "/")
            print("\(s.name + String(repeating: " ", count: max(0, 17 - s.name.count))) | \(f(b.fps)) | \(f(s.fps)) | \(f(s.fps / b.fps, 2))x | \(f(l.fps)) (\(l.framesDropped)) | \(f(l.latencyP50))/\(f(l.latencyP99)) | \(st) | \(f(s.cpuSecondsPerFrame * 1000, 2)) | \(f(s.peakRSSMB)) | \(pct(s.codeRecall))/\(pct(b.codeRecall))/\(pct(r?.codeRecall)) | \(pct(s.faceRecall))/\(pct(b.faceRecall))/\(pct(r?.faceRecall))")
        }
    }
}

enum FileHandleStderr {
    static func write(_ s: String) {
        var bytes = Array(s.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
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
