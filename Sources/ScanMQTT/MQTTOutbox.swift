import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// One MQTT message waiting in the ``MQTTOutbox``: a topic, a payload and whether the broker retains it.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var retain: Bool
    /// True for a message on the events topic: the ones an `overflow` event counts.
    public var isEvent: Bool
    public init(topic: String, payload: [UInt8], retain: Bool = false, isEvent: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.isEvent = isEvent
    }

    /// Bytes this message holds in memory: topic + payload + a fixed per-entry overhead (array slot, header).
    var footprint: Int { topic.utf8.count + payload.count + 64 }
}

/// The messages not yet acknowledged by the broker, oldest first, bounded by a count and a byte budget.
///
/// Messages move `queued → in flight → acknowledged`; an acknowledged message at the head leaves. After a
/// lost connection every in-flight message goes back to queued (``requeueInFlight()``) and is sent again,
/// in the same order, on the next connection (at-least-once: a consumer may see a `seq` twice, never a gap
/// that an `overflow` does not announce).
///
/// When a new message finds the outbox full, the OLDEST messages go (in flight or not) and the next message
/// sent is `{"event":"overflow","dropped":N,"timestamp":…}` on the events topic, as a socket client's
/// queue does. ``append(_:)`` never blocks.
public final class MQTTOutbox: @unchecked Sendable {
    // Invariant for @unchecked Sendable: every stored var is touched only while holding `lock`;
    // `capacity`, `byteCapacity` and `overflowTopic` are immutable.
    private let lock = Lock()
    private struct Entry {
        var message: MQTTMessage
        /// Send number given when it was handed to the client (nil: queued).
        var sendID: UInt64?
        var acknowledged = false
        /// The spool segment holding it (nil: memory only, or already released).
        var segment: UInt64?
    }
    private var entries: [Entry] = []
    private var head = 0
    /// Entries `[head, cursor)` were sent (in flight or acknowledged out of order); `[cursor, end)` are queued.
    private var cursor = 0
    private var nextSendID: UInt64 = 1
    private var bytes = 0
    private var pendingOverflow = 0
    private var totalDropped = 0
    private var totalAcknowledged = 0
    /// The on-disk copy (`--mqtt-spool`), touched only under `lock`.
    private let spool: MQTTSpool?

    /// The most messages kept.
    public let capacity: Int
    /// The most bytes kept (``MQTTMessage`` footprints).
    public let byteCapacity: Int
    /// Where `overflow` notices go (the events topic).
    public let overflowTopic: String

    /// - Parameter spool: when given, every appended message is written to it first and leaves it when
    ///   acknowledged or dropped (see ``MQTTSpool``).
    init(capacity: Int, byteCapacity: Int, overflowTopic: String, spool: MQTTSpool?) {
        precondition(capacity >= 1 && byteCapacity >= 1)
        self.capacity = capacity
        self.byteCapacity = byteCapacity
        self.overflowTopic = overflowTopic
        self.spool = spool
    }

    public convenience init(capacity: Int, byteCapacity: Int, overflowTopic: String) {
        self.init(capacity: capacity, byteCapacity: byteCapacity, overflowTopic: overflowTopic, spool: nil)
    }

    /// Queues what a previous run left in the spool, before anything else; returns how many messages.
    func restoreSpool() -> Int {
        lock.withLock {
            guard let spool else { return 0 }
            let loaded = spool.load()
            for (m, segment) in loaded {
                entries.append(Entry(message: m, segment: segment))
                bytes += m.footprint
            }
            trimToBounds()
            return loaded.count
        }
    }

    /// Syncs the spool when its oldest unsynced record is due (``MQTTSpool/syncInterval``): the `fdatasync`
    /// runs outside the lock, so appends (the pipeline) never wait for the disk. Returns the time until the
    /// next sync is due, nil when nothing waits for one (or no spool).
    func syncSpoolIfDue() -> Duration? {
        guard let spool else { return nil }
        let now = MonotonicInstant.now
        let (due, taken) = lock.withLock { () -> (Duration?, Int32?) in
            let fd = spool.takeDueSync(now: now)
            return (fd == nil ? spool.syncDue(now: now) : nil, fd)
        }
        guard let fd = taken else { return due }
        let ok = fdatasync(fd) == 0
        let why = ok ? "" : Errno.last.description
        close(fd)
        return lock.withLock { () -> Duration? in
            if !ok { spool.syncFailed(why) }
            return spool.syncDue(now: .now)
        }
    }

    /// `fdatasync` calls the spool made so far (0 without a spool).
    var spoolSyncs: Int { lock.withLock { spool?.syncs ?? 0 } }

    /// The spool's write error that turned it off, once (nil when none or no spool).
    func takeSpoolError() -> String? { lock.withLock { spool?.takeError() } }

    /// At the stop: closes the spool; returns the messages it keeps for the next start (nil without a spool).
    func closeSpool() -> Int? { lock.withLock { spool?.close() } }

    /// What the outbox holds now.
    public struct Statistics: Sendable, Equatable {
        /// Messages waiting (queued and in flight).
        public var messages: Int
        /// Their footprint in bytes.
        public var bytes: Int
        /// Messages sent and not yet acknowledged.
        public var inFlight: Int
        /// Event messages dropped since start because the outbox was full.
        public var dropped: Int
        /// Messages the broker acknowledged since start.
        public var acknowledged: Int
    }

    public var statistics: Statistics {
        lock.withLock {
            Statistics(
                messages: entries.count - head, bytes: bytes, inFlight: inFlightCount,
                dropped: totalDropped, acknowledged: totalAcknowledged)
        }
    }

    private var inFlightCount: Int { entries[head..<cursor].reduce(0) { $0 + ($1.acknowledged ? 0 : 1) } }

    /// Appends `messages` (in order); drops the oldest when the bound is passed. Never blocks.
    public func append(_ messages: [MQTTMessage]) {
        lock.withLock {
            for m in messages {
                entries.append(Entry(message: m, segment: spool?.append(m)))
                bytes += m.footprint
            }
            trimToBounds()
        }
    }

    /// Drops the oldest messages past the memory bounds, then whole spool segments past the disk bound.
    private func trimToBounds() {
        while entries.count - head > 1 && (entries.count - head > capacity || bytes > byteCapacity) {
            dropHead()
        }
        while let gone = spool?.dropOldestIfOverLimit() {
            // Its messages are the oldest spooled ones: drop up to the last of them (memory-only notices
            // between them go too).
            guard let last = entries[head...].lastIndex(where: { $0.segment.map { $0 <= gone } ?? false }) else {
                continue
            }
            while head <= last && entries.count - head > 1 {
                if let s = entries[head].segment, s <= gone { entries[head].segment = nil }  // its file is gone
                dropHead()
            }
        }
        compact()
    }

    private func dropHead() {
        let gone = entries[head]
        bytes -= gone.message.footprint
        if gone.message.isEvent && !gone.acknowledged {
            pendingOverflow += 1
            totalDropped += 1
        }
        if let s = gone.segment { spool?.release(s) }
        head += 1
        if cursor < head { cursor = head }
    }

    /// The next message to send and its send number (to pass to ``acknowledge(_:)``), or nil when nothing is
    /// queued or `maxInFlight` messages are already unacknowledged. After a drop, the first message is the
    /// `overflow` notice.
    public func next(maxInFlight: Int) -> (id: UInt64, message: MQTTMessage)? {
        lock.withLock {
            while cursor < entries.count && entries[cursor].acknowledged { cursor += 1 }  // acked before a requeue
            guard cursor - head < maxInFlight || inFlightCount < maxInFlight else { return nil }
            if pendingOverflow > 0 {
                let notice = MQTTOverflowNotice.payload(dropped: pendingOverflow, timestamp: wallClockSeconds())
                pendingOverflow = 0
                let m = MQTTMessage(topic: overflowTopic, payload: notice, isEvent: false)
                entries.insert(Entry(message: m), at: cursor)
                bytes += m.footprint
            }
            guard cursor < entries.count else { return nil }
            let id = nextSendID
            nextSendID += 1
            entries[cursor].sendID = id
            cursor += 1
            return (id, entries[cursor - 1].message)
        }
    }

    /// Marks the message sent as `id` acknowledged; acknowledged messages at the head leave.
    /// An unknown `id` (dropped meanwhile, or sent before a requeue) is ignored.
    public func acknowledge(_ id: UInt64) {
        lock.withLock {
            // Send numbers in [head, cursor) increase with the index but may skip (a requeue renumbers).
            var lo = head
            var hi = cursor
            while lo < hi {
                let mid = (lo + hi) / 2
                if (entries[mid].sendID ?? 0) < id { lo = mid + 1 } else { hi = mid }
            }
            guard lo < cursor, entries[lo].sendID == id, !entries[lo].acknowledged else { return }
            entries[lo].acknowledged = true
            totalAcknowledged += 1
            if let s = entries[lo].segment {
                spool?.release(s)
                entries[lo].segment = nil
            }
            while head < cursor && entries[head].acknowledged {
                bytes -= entries[head].message.footprint
                head += 1
            }
            compact()
        }
    }

    /// After a lost connection: every unacknowledged message is queued again, in its place.
    public func requeueInFlight() {
        lock.withLock {
            for i in head..<cursor where !entries[i].acknowledged { entries[i].sendID = nil }
            cursor = head
        }
    }

    /// Takes every message not yet acknowledged (for the spool at shutdown) and empties the outbox.
    public func removeAll() -> [MQTTMessage] {
        lock.withLock {
            let rest = entries[head...].filter { !$0.acknowledged }.map(\.message)
            entries.removeAll()
            head = 0
            cursor = 0
            bytes = 0
            return rest
        }
    }

    /// True when nothing waits (nothing queued, nothing in flight).
    public var isEmpty: Bool { lock.withLock { entries.count == head && pendingOverflow == 0 } }

    /// True when something can be sent now (ignoring the in-flight window).
    public var hasQueued: Bool { lock.withLock { cursor < entries.count || pendingOverflow > 0 } }

    private func compact() {
        if head > 4096 && head * 2 > entries.count {
            entries.removeFirst(head)
            cursor -= head
            head = 0
        }
    }
}

/// The `overflow` line: `{"event":"overflow","dropped":N,"timestamp":T}` (no `seq`: the gap says which).
enum MQTTOverflowNotice {
    static func payload(dropped: Int, timestamp: Double) -> [UInt8] {
        Array("{\"event\":\"overflow\",\"dropped\":\(dropped),\"timestamp\":\(timestamp)}".utf8)
    }
}
