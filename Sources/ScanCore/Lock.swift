#if canImport(Glibc)
    import Glibc
#endif

/// A mutual-exclusion lock for state shared between the capture, pipeline and output threads.
///
/// A `pthread_mutex_t`, not Swift's `Synchronization.Mutex`: on Linux that Mutex takes its lock through
/// futex calls inside the (uninstrumented) Synchronization library, which ThreadSanitizer cannot see, so
/// every access it guards was reported as a data race and real races would drown in the noise. The pthread
/// mutex is what TSan intercepts (scripts/sanitizers). Uncontended, both cost the same (~20 ns).
public final class Lock: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `mutex` is allocated once in init, initialised before use,
    // destroyed in deinit, and only ever used through pthread_mutex_lock/unlock, which are thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` while holding the lock.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
