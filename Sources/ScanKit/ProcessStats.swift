#if canImport(Glibc)
import Glibc
#endif

/// Resource readings of this process, for benchmarks.
public enum ProcessStats {
    /// Current resident set size in bytes (VmRSS).
    public static func residentBytes() -> Int { statusField("VmRSS:") }
    /// Peak resident set size in bytes (VmHWM).
    public static func peakResidentBytes() -> Int { statusField("VmHWM:") }

    /// User + system CPU seconds used by the whole process so far.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    private static func statusField(_ name: String) -> Int {
        guard let f = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), f) != nil {
            let s = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if s.hasPrefix(name) {
                let digits = s.dropFirst(name.count).filter { $0.isNumber }
                return (Int(digits) ?? 0) * 1024
            }
        }
        return 0
    }
}

/// Collects samples (seconds) and reports percentiles.
public struct SampleSeries: Sendable {
    public private(set) var samples: [Double] = []
    public init() {}
    public mutating func add(_ v: Double) { samples.append(v) }
    public var count: Int { samples.count }
    public var total: Double { samples.reduce(0, +) }
    public var mean: Double { samples.isEmpty ? 0 : total / Double(samples.count) }
    /// The p-th percentile (0...100), nearest-rank.
    public func percentile(_ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(sorted.count - 1, max(0, rank))]
    }
    public var median: Double { percentile(50) }
}
