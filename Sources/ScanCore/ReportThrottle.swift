/// Counts occurrences of something worth reporting and says when to report: the first, then at most one every
/// `interval`, each report carrying how many happened since the last (itself included). Not locked: the
/// owner confines it to one thread or guards it.
public struct ReportThrottle: Sendable {
    /// The least time between two reports.
    public let interval: Duration
    private var last: MonotonicInstant?
    private var count = 0

    public init(interval: Duration) { self.interval = interval }

    /// Counts one occurrence at `now`; returns how many to report now, or nil (not yet).
    public mutating func record(now: MonotonicInstant = .now) -> Int? {
        count += 1
        guard last.map({ $0.duration(to: now) >= interval }) ?? true else { return nil }
        last = now
        defer { count = 0 }
        return count
    }
}
