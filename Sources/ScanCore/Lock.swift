import Synchronization

/// A mutual-exclusion lock for state shared between the capture, pipeline and output threads.
public final class Lock: Sendable {
    private let mutex = Mutex<Void>(())
    public init() {}
    /// Runs `body` while holding the lock.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try mutex.withLock { _ in try body() }
    }
}
