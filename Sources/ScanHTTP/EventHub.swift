public import ScanCore
public import ScanOutput

/// One WebSocket `/events` client: its subscription and its own bounded queue of lines. The emitter's
/// ``push(_:)`` never blocks: when the queue is full the oldest line goes, and the client is told with an
/// `overflow` line before the next one, as on the Unix socket.
final class EventClient: @unchecked Sendable {
    // Invariant for @unchecked Sendable: every `var` is touched only under `lock`; `id` and `limit` are immutable.
    let id: Int
    private let limit: Int
    private let lock = Lock()
    private var queue: [[UInt8]] = []
    private var head = 0
    private var dropped = 0
    private(set) var totalDropped = 0
    private var subscription = Subscription()
    private var snapshotSeq: UInt64 = 0
    private var waiter: CheckedContinuation<Void, Never>?
    private var closed = false

    init(id: Int, limit: Int) {
        self.id = id
        self.limit = max(1, limit)
    }

    var currentSubscription: Subscription { lock.withLock { subscription } }
    func setSubscription(_ s: Subscription) { lock.withLock { subscription = s } }
    /// Events up to `seq` were reflected in the connect snapshot: not sent again.
    func setSnapshotSeq(_ seq: UInt64) { lock.withLock { snapshotSeq = seq } }

    /// Queues an event if the subscription passes it. Returns true when an older line had to be dropped.
    @discardableResult
    func push(_ event: EncodedEvent) -> Bool {
        let (wake, overflowed) = lock.withLock { () -> (CheckedContinuation<Void, Never>?, Bool) in
            guard !closed, subscription.matches(event) else { return (nil, false) }
            if let seq = event.seq, seq <= snapshotSeq { return (nil, false) }
            return append(event.line)
        }
        wake?.resume()
        return overflowed
    }

    /// Queues a reply line (replies share the bound, so a client cannot make the server buffer without limit).
    func control(_ line: [UInt8]) {
        let wake = lock.withLock { append(line).0 }
        wake?.resume()
    }

    private func append(_ line: [UInt8]) -> (CheckedContinuation<Void, Never>?, Bool) {
        var overflowed = false
        if queue.count - head >= limit {
            head += 1
            dropped += 1
            totalDropped += 1
            overflowed = true
        }
        queue.append(line)
        if head > 1024 && head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        defer { waiter = nil }
        return (waiter, overflowed)
    }

    /// Waits for lines; returns them in order (an `overflow` line first when some were dropped), or nil
    /// once closed.
    func next() async -> [[UInt8]]? {
        while true {
            let batch: [[UInt8]]?? = lock.withLock {
                if closed { return .some(nil) }
                guard head < queue.count || dropped > 0 else { return .none }
                var out: [[UInt8]] = []
                if dropped > 0 {
                    out.append(ClientLines.overflow(dropped: dropped))
                    dropped = 0
                }
                out += queue[head...]
                queue.removeAll(keepingCapacity: true)
                head = 0
                return .some(out)
            }
            if let batch { return batch }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock { () -> Bool in
                    if closed || head < queue.count || dropped > 0 { return true }
                    waiter = c
                    return false
                }
                if ready { c.resume() }
            }
        }
    }

    func close() {
        let wake = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            closed = true
            defer { waiter = nil }
            return waiter
        }
        wake?.resume()
    }
}

/// The HTTP server's event sink: every event the daemon publishes goes to each WebSocket client whose
/// subscription passes it (``EventClient``), and into the metrics (detections by type, device reconnects).
/// ``deliver(_:)`` returns at once.
public final class EventHub: EventSink, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `clients`, `nextID`, `finished` and `stateProvider` are touched only
    // under `lock`; `metrics`, `queueLimit` and `banner` are immutable.
    private let lock = Lock()
    private var clients: [Int: EventClient] = [:]
    private var nextID = 1
    private var finished = false
    private weak var stateProvider: (any ServerStateProvider)?
    let metrics: ScandMetrics?
    let queueLimit: Int
    let banner: ServerBanner

    /// - Parameter state: what answers the connect snapshot, `poll` and `devices` (the pipeline; held weakly:
    ///   it publishes to this hub).
    public init(
        banner: ServerBanner, queueLimit: Int = 1024, metrics: ScandMetrics? = nil, state: any ServerStateProvider
    ) {
        self.banner = banner
        self.queueLimit = queueLimit
        self.metrics = metrics
        self.stateProvider = state
    }

    var provider: (any ServerStateProvider)? { lock.withLock { stateProvider } }

    public var clientCount: Int { lock.withLock { clients.count } }
    /// Events dropped for slow WebSocket clients since start (summed over clients).
    public var droppedEvents: Int { lock.withLock { _droppedEvents } }
    private var _droppedEvents = 0  // under `lock`

    public func deliver(_ event: EncodedEvent) {
        metrics?.observe(event)
        let list = lock.withLock { Array(clients.values) }
        var overflows = 0
        for c in list where c.push(event) { overflows += 1 }
        if overflows > 0 {
            lock.withLock { _droppedEvents += overflows }
            metrics?.overflows.increment(by: overflows)
        }
    }

    public func finish() {
        let list = lock.withLock { () -> [EventClient] in
            finished = true
            return Array(clients.values)
        }
        for c in list { c.close() }
    }

    /// A new client with the connect lines already queued: `hello`, then what is present now.
    func connect() -> EventClient? {
        let client: EventClient? = lock.withLock {
            guard !finished else { return nil }
            defer { nextID += 1 }
            let c = EventClient(id: nextID, limit: queueLimit)
            clients[nextID] = c
            return c
        }
        guard let client else { return nil }
        metrics?.webSocketClients.record(clientCount)
        client.control(ClientLines.hello(banner))
        if let snapshot = provider?.presenceSnapshot() {
            // Registered first, snapshot second: an event published in between is either in the snapshot
            // (seq ≤ snapshot.seq, skipped) or delivered after it.
            client.setSnapshotSeq(snapshot.seq)
            for line in ClientLines.snapshot(snapshot) { client.control(line) }
        }
        return client
    }

    func disconnect(_ client: EventClient) {
        client.close()
        lock.withLock { _ = clients.removeValue(forKey: client.id) }
        metrics?.webSocketClients.record(clientCount)
    }

    /// Handles one command line from `client` exactly as the Unix socket does.
    func handle(command line: [UInt8], from client: EventClient) {
        var line = line
        while let last = line.last, last == 0x0A || last == 0x0D { line.removeLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        do {
            switch try ClientCommand.parse(command: line) {
            case .subscribe(let s):
                client.setSubscription(s)
                client.control(ClientLines.subscribed(s))
            case .poll:
                let snapshot = provider?.presenceSnapshot() ?? PresenceSnapshot()
                let lines = ClientLines.snapshot(snapshot, types: client.currentSubscription.types)
                for l in lines { client.control(l) }
                client.control(ClientLines.polled(present: lines.count, lastSeq: snapshot.seq))
            case .devices:
                client.control(ClientLines.devices(provider?.sourceStates() ?? []))
            }
        } catch {
            client.control(ClientLines.error(error.message))
        }
    }
}
