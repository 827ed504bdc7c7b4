import ScanCore
public import ScanKit

/// Several cameras in one process (issue 49): `cameras` copies of a live case at once, each its own pipeline
/// (source thread, newest-wins hand-off, detectors) on its own thread, as `scand run --camera …` runs them,
/// competing for the same cores.
public enum MultiCameraBench {
    /// What one multi-camera run measured.
    public struct Result: Sendable, Codable {
        /// Each camera's run: its live fps, drops and latency (its ``BenchmarkResult/cpuSecondsPerFrame`` is
        /// the process's, see ``cpuSecondsPerFrame``).
        public var perCamera: [BenchmarkResult]
        /// The process's CPU seconds over every camera's processed frames.
        public var cpuSecondsPerFrame: Double
        /// The slowest camera's fps over the fastest's (1: perfectly fair).
        public var fairness: Double {
            let fps = perCamera.map(\.fps)
            guard let lo = fps.min(), let hi = fps.max(), hi > 0 else { return 0 }
            return lo / hi
        }
    }

    /// Runs `cameras` copies of `c` (a live case) at once and measures each.
    /// - Throws: ``ScanError`` naming the first camera that failed.
    public static func run(
        _ c: BenchmarkCase, cameras: Int, configuration: OutputConfiguration, faceCascade: String?
    ) throws -> Result {
        let outcomes = Locked<[Int: Swift.Result<BenchmarkResult, ScanError>]>([:])
        let cpu0 = ProcessStats.cpuSeconds()
        let threads = (0..<max(1, cameras)).map { index in
            WorkerThread(name: "bench-camera\(index)") {
                let outcome: Swift.Result<BenchmarkResult, ScanError>
                do {
                    // As scand run places camera k of n in the face search cycle (CameraSet).
                    var r = try Benchmark.run(
                        c, pipeline: .scand, configuration: configuration, faceCascade: faceCascade,
                        faceSearchOffset: Double(index) / Double(max(1, cameras)))
                    r.pipeline = "camera\(index)"
                    outcome = .success(r)
                } catch {
                    outcome = .failure(ScanError.invalidArgument("camera \(index): \(error)"))
                }
                outcomes.withLock { $0[index] = outcome }
            }
        }
        for t in threads { _ = t.join() }
        let cpu = ProcessStats.cpuSeconds() - cpu0
        let results = try outcomes.withLock { $0 }.sorted { $0.key < $1.key }.map { try $0.value.get() }
        let processed = results.reduce(0) { $0 + $1.framesProcessed }
        var perCamera = results
        for i in perCamera.indices { perCamera[i].cpuSecondsPerFrame = cpu / Double(max(1, processed)) }
        return Result(perCamera: perCamera, cpuSecondsPerFrame: cpu / Double(max(1, processed)))
    }
}
