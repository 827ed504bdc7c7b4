public import ScanCore
public import ScanOutput

/// Gives an output that may block (stdout to a slow or stalled reader) a bounded queue and a thread of its
/// own, so that ``deliver(_:)`` never blocks: not the pipeline, not a camera's event thread, not another sink.
///
/// The policy is the socket clients' one: at most `capacity` events wait; when a new event finds the queue
/// full, the OLDEST waiting event is dropped, and before the next line it writes the output gets
/// `{"event":"overflow","dropped":N,"timestamp":…}` (no `seq`; the `seq` gap says which were lost).
/// After the target fails (EPIPE or a write error) everything queued is discarded.
public final class QueuedSink: EventSink, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `items`, `head`, `dropped`, `totalDropped` and `closed` are touched only
    // while holding `monitor`; `target` is itself thread-safe; `writer` is set once in init.
    private let target: FileDescriptorSink
    private let monitor = Monitor()
    private var items: [EncodedEvent?] = []
    private var head = 0
    private var dropped = 0
    private var totalDropped = 0
    private var closed = false
    private var writer: WorkerThread?
    /// The most events that wait; older ones are dropped first.
    public let capacity: Int

    /// - Parameters:
    ///   - target: the blocking output (written only from this sink's thread).
    ///   - capacity: events kept waiting at most (default 1024, as for a socket client).
    public init(target: FileDescriptorSink, capacity: Int = 1024) {
        precondition(capacity >= 1)
        self.target = target
        self.capacity = capacity
        writer = WorkerThread(name: "scand-writer") { [self] in drain() }
    }

    /// Events dropped so far because the output did not keep up.
    public var droppedEvents: Int { monitor.withLock { totalDropped } }

    private var count: Int { items.count - head }

    /// Queues `event`; never blocks.
    public func deliver(_ event: EncodedEvent) {
        monitor.withLock {
            guard !closed else { return }
            if count >= capacity {
                items[head] = nil
                head += 1
                dropped += 1
                totalDropped += 1
            }
            items.append(event)
            monitor.broadcast()
        }
    }

    private func drain() {
        while true {
            let next = monitor.withLock { () -> (batch: [EncodedEvent], lost: Int)? in
                while count == 0 && dropped == 0 && !closed { monitor.wait() }
                if count == 0 && dropped == 0 { return nil }
                let batch = items[head...].compactMap { $0 }
                items.removeAll(keepingCapacity: true)
                head = 0
                defer { dropped = 0 }
                return (batch, dropped)
            }
            guard let (batch, lost) = next else { return }
            if lost > 0 {
                target.write(JSONLinesEncoder().encodeLine(Overflow(dropped: lost, timestamp: wallClockSeconds())))
            }
            for event in batch where !target.hasFailed { target.deliver(event) }
            monitor.withLock {
                if target.hasFailed {
                    closed = true
                    items.removeAll()
                    head = 0
                }
                monitor.broadcast()
            }
            if target.hasFailed { return }
        }
    }

    private struct Overflow: Encodable {
        var event = "overflow"
        var dropped: Int
        var timestamp: Double
    }

    /// Stops taking events and waits up to `timeout` seconds for what is queued to be written.
    /// Returns false when the output did not take everything in time (it is then abandoned).
    @discardableResult
    public func finish(timeout: Double) -> Bool {
        monitor.withLock {
            closed = true
            monitor.broadcast()
        }
        return writer?.join(timeout: timeout) ?? true
    }

    /// Stops taking events; gives the output up to 2 s to take what is queued.
    public func finish() { finish(timeout: 2) }
}
