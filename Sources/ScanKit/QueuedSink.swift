public import ScanCore
public import ScanOutput

/// Gives an output that may block (stdout to a slow or stalled reader) a bounded queue and a thread of its
/// own, so that ``deliver(_:)`` never blocks: not the pipeline, not a camera's event thread, not another sink.
///
/// The policy is the socket clients' one: at most `capacity` events wait; when a new event finds the queue
/// full, the OLDEST waiting event is dropped, and before the next line it writes the output gets
/// `{"event":"overflow","dropped":N,"timestamp":…}` (no `seq`; the `seq` gap says which were lost).
/// After the target fails (EPIPE or a write error) everything queued is discarded.
public final class QueuedSink: EventSink, Sendable {
    private let target: FileDescriptorSink
    /// The events waiting (with the count dropped since the last `overflow` line), and whether the sink is
    /// closed.
    private let queue: Locked<(events: DropOldestQueue<EncodedEvent>, closed: Bool)>
    /// The writing thread, set once in init.
    private let writer = Locked<WorkerThread?>(nil)
    /// The most events that wait; older ones are dropped first.
    public let capacity: Int

    /// - Parameters:
    ///   - target: the blocking output (written only from this sink's thread).
    ///   - capacity: events kept waiting at most (default 1024, as for a socket client).
    public init(target: FileDescriptorSink, capacity: Int = 1024) {
        precondition(capacity >= 1)
        self.target = target
        self.capacity = capacity
        queue = Locked((DropOldestQueue(capacity: capacity), false))
        let thread = WorkerThread(name: "scand-writer") { [self] in drain() }
        writer.withLock { $0 = thread }
    }

    /// Events dropped so far because the output did not keep up.
    public var droppedEvents: Int { queue.withLock { $0.events.totalDropped } }

    /// Queues `event`; never blocks.
    public func deliver(_ event: EncodedEvent) {
        queue.withLock {
            guard !$0.closed else { return }
            $0.events.append(event)
        }
        queue.broadcast()
    }

    private static let hasWork: @Sendable ((events: DropOldestQueue<EncodedEvent>, closed: Bool)) -> Bool = {
        !$0.events.isEmpty || $0.events.overflow > 0 || $0.closed
    }

    private func drain() {
        while true {
            let next = queue.withLock(waitingUntil: Self.hasWork) { q -> (batch: [EncodedEvent], lost: Int)? in
                if q.events.isEmpty && q.events.overflow == 0 { return nil }
                return (q.events.removeAll(), q.events.takeOverflow())
            }
            guard let (batch, lost) = next else { return }
            if lost > 0 {
                target.write(JSONLinesEncoder().encodeLine(Overflow(dropped: lost, timestamp: wallClockSeconds())))
            }
            for event in batch where !target.hasFailed { target.deliver(event) }
            if target.hasFailed {
                queue.withLock {
                    $0.closed = true
                    _ = $0.events.removeAll()
                }
                return
            }
        }
    }

    private struct Overflow: Encodable {
        var event = "overflow"
        var dropped: Int
        var timestamp: Double
    }

    /// Stops taking events and waits up to `timeout` for what is queued to be written.
    /// Returns false when the output did not take everything in time (it is then abandoned).
    @discardableResult
    public func finish(timeout: Duration) -> Bool {
        queue.withLock { $0.closed = true }
        queue.broadcast()
        return writer.withLock { $0 }?.join(timeout: timeout) ?? true
    }

    /// Stops taking events; gives the output up to 2 s to take what is queued.
    public func finish() { finish(timeout: .seconds(2)) }
}
