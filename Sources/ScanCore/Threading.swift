import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A mutex and condition variable pair (pthread), for the blocking hand-offs between the source thread,
/// the pipeline thread and the control thread.
public final class Monitor: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `mutex` and `cond` are allocated and initialised once in init,
    // destroyed in deinit, and only used through the pthread calls, which are thread-safe. pthread (not
    // Synchronization.Mutex) on purpose: ThreadSanitizer cannot see Mutex's futex lock on Linux (see Lock).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits (lock held) until signalled or until `deadline` passes (the condition waits on CLOCK_MONOTONIC).
    public func wait(until deadline: MonotonicInstant? = nil) {
        guard let deadline else {
            pthread_cond_wait(cond, mutex)
            return
        }
        var ts = deadline.monotonicTimespec
        pthread_cond_timedwait(cond, mutex, &ts)
    }

    /// Waits (lock held) until signalled or `duration` passes.
    public func wait(for duration: Duration) { wait(until: .now.advanced(by: max(.zero, duration))) }

    public func broadcast() { pthread_cond_broadcast(cond) }
}

/// A FIFO queue whose `take()` blocks. With `capacity`, `put` either waits for room (`lossless`) or
/// drops the oldest item (newest wins), returning how many were dropped.
public final class BlockingQueue<Element: Sendable>: Sendable {
    private struct State {
        var items: DropOldestQueue<Element>
        var closed = false
        /// Set by ``nudge()``: the next `take` that finds the queue empty returns nil at once.
        var nudged = false
    }
    private let state: Locked<State>
    public let capacity: Int
    public let lossless: Bool

    public init(capacity: Int = .max, lossless: Bool = true) {
        self.capacity = capacity
        self.lossless = lossless
        state = Locked(State(items: DropOldestQueue(capacity: capacity)))
    }

    /// Adds `item`; returns the number of old items dropped to make room (newest-wins mode), or nil when
    /// the queue is closed.
    @discardableResult
    public func put(_ item: Element) -> Int? {
        let lossless = self.lossless
        let canPut: (State) -> Bool = { $0.closed || !lossless || !$0.items.isFull }
        let dropped = state.withLock(waitingUntil: canPut) { state -> Int? in
            guard !state.closed else { return nil }
            return state.items.append(item)
        }
        if dropped != nil { state.broadcast() }
        return dropped
    }

    /// Removes the oldest item, waiting for one; nil once closed and empty, at `deadline`, or when
    /// ``nudge()`` is called while it waits (or before, with the queue empty).
    public func take(until deadline: MonotonicInstant? = nil) -> Element? {
        let canTake: (State) -> Bool = { !$0.items.isEmpty || $0.closed || $0.nudged }
        let item = state.withLock(waitingUntil: canTake, deadline: deadline) { state -> Element? in
            if state.items.isEmpty && state.nudged && !state.closed {
                state.nudged = false
                return nil
            }
            return state.items.popFirst()
        }
        if item != nil { state.broadcast() }
        return item
    }

    /// Makes a waiting `take` (or the next one, should the queue still be empty then) return nil without
    /// an item, so its caller can act on something else (a reload) with no timer waking it meanwhile.
    public func nudge() {
        state.withLock { $0.nudged = true }
        state.broadcast()
    }

    /// True once the queue is closed and everything in it was taken: `take` will only return nil.
    public var isDrained: Bool { state.withLock { $0.closed && $0.items.isEmpty } }

    /// Wakes every waiter; later `put`s are refused, `take` returns what is left then nil.
    public func close() {
        state.withLock { $0.closed = true }
        state.broadcast()
    }

    /// Closes and discards what is queued.
    public func cancel() {
        state.withLock {
            $0.closed = true
            _ = $0.items.removeAll()
        }
        state.broadcast()
    }
}

/// A joinable pthread running `body`; detached instead if it is never joined.
public final class WorkerThread: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `thread` is written once by pthread_create in init, before the
    // object is shared; `body` and `ending` are `Locked`.
    private var thread = pthread_t()
    /// What the thread runs; taken (and so released) when it starts, so an object the body holds that holds this
    /// thread (a pipeline's control holds its source thread) is not kept alive by the finished thread.
    private let body: Locked<(@Sendable () -> Void)?>
    /// Whether `body` returned, and whether the thread was joined (or detached by `join`).
    private let ending = Locked((done: false, joined: false))

    /// The thread's name as `top -H`, `ps -L` and `/proc/PID/task/TID/comm` show it (at most 15 bytes of ASCII:
    /// longer names are cut), so a thread count can be read by kind. A thread nobody names carries the name of
    /// the thread that started it; libdispatch's workers (Swift concurrency's too) are `oot.default-qos` and
    /// the like (the end of `com.apple.root.default-qos`), SwiftNIO's `NIO-ELT-…` and `NIO-SGLTN-…`.
    public let name: String

    /// glibc's `pthread_setname_np` (Glibc's module map hides it: it is a GNU extension), looked up once; nil
    /// where the C library has none, and then a thread keeps the name of the thread that started it.
    private static let setName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_setname_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
    }()

    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        self.body = Locked(body)
        self.name = String(decoding: Array(name.utf8.prefix(15)), as: UTF8.self)
        let box = Unmanaged.passRetained(self)
        let rc = pthread_create(
            &thread, nil,
            { arg in
                let me = Unmanaged<WorkerThread>.fromOpaque(arg!).takeRetainedValue()
                me.name.withCString { _ = WorkerThread.setName?(pthread_self(), $0) }
                let body = me.body.withLock { b -> (@Sendable () -> Void)? in
                    defer { b = nil }
                    return b
                }
                body?()
                me.ending.withLock { $0.done = true }
                me.ending.broadcast()
                return nil
            }, box.toOpaque())
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    /// A thread nobody joined (`_ = WorkerThread(name: …) { … }`, fire and forget) is detached when the last reference
    /// goes, so the system frees its stack when it ends; before, every such thread stayed a zombie until the
    /// process exited (ThreadSanitizer's "thread leak"). The lock orders this read after `join`'s write.
    deinit {
        let unjoined = ending.withLock { !$0.joined }
        if unjoined { pthread_detach(thread) }
    }

    /// True when called on this thread.
    public var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    /// Waits for the thread to end, at most `timeout` (nil: no limit). Returns false when it is still running
    /// (it is then detached and left to end with the process).
    @discardableResult
    public func join(timeout: Duration? = nil) -> Bool {
        let deadline = timeout.map { MonotonicInstant.now.advanced(by: $0) }
        let done: ((done: Bool, joined: Bool)) -> Bool = { $0.done }
        let (finished, first) = ending.withLock(waitingUntil: done, deadline: deadline) { state -> (Bool, Bool) in
            defer { state.joined = true }
            return (state.done, !state.joined)
        }
        guard first else { return finished }
        if finished { pthread_join(thread, nil) } else { pthread_detach(thread) }
        return finished
    }
}

/// Runs blocking `body` (a join, a flush, a device call) on a thread of its own and waits for it without
/// holding a Swift concurrency thread.
/// `body` is `sending`: it may hold non-Sendable state (a detector pipeline) that the caller gives up.
public func onDedicatedThread<T: Sendable>(_ body: sending @escaping () -> T) async -> T {
    let handOver = HandOver(body)
    return await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        _ = WorkerThread(name: "scand-blocking") { continuation.resume(returning: handOver.value()) }
    }
}

/// Moves a non-Sendable value (a detector pipeline, a closure over one) to the one thread that will use it.
public struct HandOver<Value>: @unchecked Sendable {
    // Invariant for @unchecked Sendable: built from a `sending` value, which the caller no longer
    // reaches; only the one thread it is handed to uses it.
    public let value: Value
    public init(_ value: sending Value) { self.value = value }
    /// For a value the compiler cannot prove unreachable by the caller (a copy of the caller's own scanner):
    /// the caller promises that it no longer uses it, nor anything it shares state with, from now on.
    public init(promisingUnusedByCaller value: Value) { self.value = value }
}

/// Runs `bodies` at the same time, on the calling thread and the threads of Dispatch's pool (one per core), and
/// returns their results in the order of `bodies` once every one has returned. With one body, or on one core,
/// they run one after another on the calling thread. Each body is run by exactly one thread; what the bodies
/// share must be safe to use from several threads at once.
public func concurrently<T>(_ bodies: [() -> T]) -> [T] {
    guard bodies.count > 1 else { return bodies.map { $0() } }
    let cells = bodies.map(ConcurrentCell.init)
    DispatchQueue.concurrentPerform(iterations: cells.count) { i in cells[i].run() }
    return cells.map { $0.result! }
}

/// One body of ``concurrently(_:)`` and its result.
private final class ConcurrentCell<T>: @unchecked Sendable {
    // Invariant for @unchecked Sendable: each cell is used by one thread of `concurrentPerform` (the one whose
    // index is the cell's), which alone calls `body` and writes `result`; `concurrentPerform` returns after every
    // thread, which orders those writes before the caller reads `result`.
    private let body: () -> T
    private(set) var result: T?

    init(_ body: @escaping () -> T) { self.body = body }

    func run() { result = body() }
}
