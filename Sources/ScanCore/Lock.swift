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

/// State shared between threads, reachable only under its lock: the one way scand's classes keep mutable
/// state that more than one thread touches. A class whose mutable state lives in a `Locked` (and whose other
/// stored properties are immutable and Sendable) is `Sendable` as the compiler checks it, with no
/// `@unchecked` of its own.
///
/// The lock is a pthread mutex and condition variable (``Monitor``), which ThreadSanitizer sees (see ``Lock``);
/// ``withLock(waitingUntil:deadline:_:)`` waits for a condition on the state, and ``broadcast()`` wakes the
/// waiters after a change that may satisfy one.
public final class Locked<State> {
    private let monitor = Monitor()
    private var state: State

    public init(_ state: State) { self.state = state }

    /// Runs `body` with the state while holding the lock.
    public func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try monitor.withLock { try body(&state) }
    }

    /// Waits until `ready` holds for the state or the monotonic clock reaches `deadline` (nil: no limit),
    /// then runs `body` with the lock still held: `body` sees the state either way and decides.
    public func withLock<T>(
        waitingUntil ready: (State) -> Bool, deadline: MonotonicInstant? = nil, _ body: (inout State) throws -> T
    ) rethrows -> T {
        try monitor.withLock {
            while !ready(state) {
                if let deadline, MonotonicInstant.now >= deadline { break }
                monitor.wait(until: deadline)
            }
            return try body(&state)
        }
    }

    /// Wakes every thread waiting in ``withLock(waitingUntil:deadline:_:)``, which then tests its condition
    /// again. Call it after the change, not inside `withLock`'s body (either works; after is cheaper).
    public func broadcast() { monitor.broadcast() }
}

// Invariant for @unchecked Sendable: `state` is read and written only inside `monitor.withLock` (both
// `withLock` methods), so no two threads touch it at once; `monitor` is itself thread-safe.
extension Locked: @unchecked Sendable where State: Sendable {}
