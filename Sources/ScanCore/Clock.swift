#if canImport(Glibc)
    import Glibc
#endif

/// A point on the monotonic clock (`CLOCK_MONOTONIC`, `clock_gettime(2)`): scand's one type for deadlines,
/// intervals and capture times; never a wall time. Intervals between instants are Swift `Duration`s.
///
/// Not `ContinuousClock`: on Linux that is `CLOCK_BOOTTIME`, while V4L2 stamps camera buffers with
/// `CLOCK_MONOTONIC` (and pthread condition variables here wait on it), so an instant of one clock cannot be
/// compared with the other's once the machine has been suspended.
public struct MonotonicInstant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
    public typealias Duration = Swift.Duration

    /// Nanoseconds on `CLOCK_MONOTONIC` (since an unspecified start, usually boot, suspend left out).
    public let nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The instant a `timeval` of `CLOCK_MONOTONIC` gives (a V4L2 buffer's `timestamp`).
    public init(seconds: Int, microseconds: Int) {
        nanoseconds = Int64(seconds) * 1_000_000_000 + Int64(microseconds) * 1_000
    }

    /// Now, by `clock_gettime(CLOCK_MONOTONIC)`.
    public static var now: MonotonicInstant {
        var ts = Glibc.timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec))
    }

    /// The instant `duration` later (earlier when negative), saturating at the ends of the clock's range (a
    /// timeout of 10^15 s from the command line is "never", not an overflow).
    public func advanced(by duration: Duration) -> MonotonicInstant {
        let (sum, overflow) = nanoseconds.addingReportingOverflow(duration.nanoseconds)
        guard overflow else { return MonotonicInstant(nanoseconds: sum) }
        return MonotonicInstant(nanoseconds: duration < .zero ? .min : .max)
    }

    public func duration(to other: MonotonicInstant) -> Duration { .nanoseconds(other.nanoseconds - nanoseconds) }

    public static func < (a: MonotonicInstant, b: MonotonicInstant) -> Bool { a.nanoseconds < b.nanoseconds }

    /// The time from this instant until now (negative for an instant still to come).
    public var elapsed: Duration { duration(to: .now) }

    /// As a `timespec` of `CLOCK_MONOTONIC` (`pthread_cond_timedwait` on a condition set to that clock).
    var monotonicTimespec: Glibc.timespec {
        Glibc.timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }

    public var description: String { "monotonic \(Double(nanoseconds) / 1e9) s" }
}

extension Duration {
    /// Whole nanoseconds (an interval of `MonotonicInstant`s is a whole number of them), saturating at
    /// `Int64`'s range (about 292 years).
    public var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// In seconds, as a `Double`: for a figure scand publishes or compares with a setting given in seconds
    /// (stage times, latency, uptime, a timeout from the configuration).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// Wall-clock seconds since the Unix epoch (CLOCK_REALTIME): for event timestamps, never for intervals.
public func wallClockSeconds() -> Double {
    var ts = Glibc.timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
