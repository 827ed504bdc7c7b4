#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on the monotonic clock (CLOCK_MONOTONIC): for intervals and deadlines, not wall time.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Wall-clock seconds since the Unix epoch (CLOCK_REALTIME): for event timestamps, never for intervals.
public func wallClockSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
