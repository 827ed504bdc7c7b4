import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

/// glibc's `malloc_trim` (malloc.h is not in the Glibc module map).
@_silgen_name("malloc_trim") private func mallocTrim(_ pad: Int) -> Int32

/// Resource readings of this process, for benchmarks.
public enum ProcessStats {
    /// Current resident set size in bytes (VmRSS).
    public static func residentBytes() -> Int { ProcessStatus.bytes("VmRSS") ?? 0 }
    /// Peak resident set size in bytes (VmHWM).
    public static func peakResidentBytes() -> Int { ProcessStatus.bytes("VmHWM") ?? 0 }

    /// Starts a new peak: returns freed heap memory to the system (`malloc_trim`) and resets VmHWM to the
    /// current RSS (`/proc/self/clear_refs` "5", Linux ≥ 4.0), so ``peakResidentBytes()`` then reports the
    /// peak of what runs next rather than of everything this process ran before. False when the kernel
    /// refused the reset (the peak then still covers earlier work).
    @discardableResult
    public static func resetPeak() -> Bool {
        _ = mallocTrim(0)
        guard let f = fopen("/proc/self/clear_refs", "w") else { return false }
        defer { fclose(f) }
        return fputs("5", f) >= 0 && fflush(f) == 0
    }

    /// User + system CPU seconds used by the whole process so far.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
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
