/// Counts occurrences of something worth reporting and says when to report: the first, then at most one every
/// `interval` seconds, each report carrying how many happened since the last (itself included). Not locked: the
/// owner confines it to one thread or guards it.
public struct ReportThrottle: Sendable {
    /// Seconds between two reports.
    public let interval: Double
    private var last: Double?
    private var count = 0

    public init(interval: Double) { self.interval = interval }

    /// Counts one occurrence at `now` (monotonic seconds); returns how many to report now, or nil (not yet).
    public mutating func record(now: Double = monotonicSeconds()) -> Int? {
        count += 1
        guard last.map({ now - $0 >= interval }) ?? true else { return nil }
        last = now
        defer { count = 0 }
        return count
    }
}
