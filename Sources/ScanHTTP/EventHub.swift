public import ScanCore
public import ScanOutput

/// One WebSocket `/events` client: its subscription and its own bounded queue of lines. The emitter's
/// ``push(_:)`` never blocks: when the queue is full the oldest line goes, and the client is told with an
/// `overflow` line before the next one, as on the Unix socket.
final class EventClient: Sendable {
    let id: Int
    private struct State {
        var queue: DropOldestQueue<[UInt8]>
        var subscription = Subscription()
        var snapshotSeq: UInt64 = 0
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
        var hasLines: Bool { !queue.isEmpty || queue.overflow > 0 }

        /// Queues `line`; returns the waiter to wake and whether an older line was dropped.
        mutating func append(_ line: [UInt8]) -> (CheckedContinuation<Void, Never>?, Bool) {
            let overflowed = queue.append(line) > 0
            defer { waiter = nil }
            return (waiter, overflowed)
        }
    }
    private let state: Locked<State>

    init(id: Int, limit: Int) {
        self.id = id
        self.state = Locked(State(queue: DropOldestQueue(capacity: limit)))
    }

    var totalDropped: Int { state.withLock { $0.queue.totalDropped } }
    var currentSubscription: Subscription { state.withLock { $0.subscription } }
    func setSubscription(_ s: Subscription) { state.withLock { $0.subscription = s } }
    /// Events up to `seq` were reflected in the connect snapshot: not sent again.
    func setSnapshotSeq(_ seq: UInt64) { state.withLock { $0.snapshotSeq = seq } }

    /// Queues an event if the subscription passes it. Returns true when an older line had to be dropped.
    @discardableResult
    func push(_ event: EncodedEvent) -> Bool {
        let (wake, overflowed) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
            guard !state.closed, state.subscription.matches(event) else { return (nil, false) }
            if let seq = event.seq, seq <= state.snapshotSeq { return (nil, false) }
            return state.append(event.line)
        }
        wake?.resume()
        return overflowed
    }

    /// Queues a reply line (replies share the bound, so a client cannot make the server buffer without limit).
    func control(_ line: [UInt8]) {
        let wake = state.withLock { $0.append(line).0 }
        wake?.resume()
    }

    /// Waits for lines; returns them in order (an `overflow` line first when some were dropped), or nil
    /// once closed.
    func next() async -> [[UInt8]]? {
        while true {
            let batch: [[UInt8]]?? = state.withLock { state in
                if state.closed { return .some(nil) }
                guard state.hasLines else { return .none }
                var out: [[UInt8]] = []
                let dropped = state.queue.takeOverflow()
                if dropped > 0 { out.append(ClientLines.overflow(dropped: dropped)) }
                out += state.queue.removeAll()
                return .some(out)
            }
            if let batch { return batch }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.closed || state.hasLines { return true }
                    state.waiter = c
                    return false
                }
                if ready { c.resume() }
            }
        }
    }

    func close() {
        let wake = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        wake?.resume()
    }
}

/// The HTTP server's event sink: every event the daemon publishes goes to each WebSocket client whose
/// subscription passes it (``EventClient``), and into the metrics (detections by type, device reconnects).
/// ``deliver(_:)`` returns at once.
public final class EventHub: EventSink, Sendable {
    private struct State {
        var clients: [Int: EventClient] = [:]
        var nextID = 1
        var finished = false
        weak var stateProvider: (any ServerStateProvider)?
        var droppedEvents = 0
    }
    private let state: Locked<State>
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
        self.state = Locked(State(stateProvider: state))
    }

    var provider: (any ServerStateProvider)? { state.withLock { $0.stateProvider } }

    public var clientCount: Int { state.withLock { $0.clients.count } }
    /// Events dropped for slow WebSocket clients since start (summed over clients).
    public var droppedEvents: Int { state.withLock { $0.droppedEvents } }

    public func deliver(_ event: EncodedEvent) {
        metrics?.observe(event)
        let list = state.withLock { Array($0.clients.values) }
        var overflows = 0
        for c in list where c.push(event) { overflows += 1 }
        if overflows > 0 {
            state.withLock { $0.droppedEvents += overflows }
            metrics?.overflows.increment(by: overflows)
        }
    }

    public func finish() {
        let list = state.withLock { state -> [EventClient] in
            state.finished = true
            return Array(state.clients.values)
        }
        for c in list { c.close() }
    }

    /// A new client with the connect lines already queued: `hello`, then what is present now.
    func connect() -> EventClient? {
        let client: EventClient? = state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            let c = EventClient(id: state.nextID, limit: queueLimit)
            state.clients[state.nextID] = c
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
        state.withLock { _ = $0.clients.removeValue(forKey: client.id) }
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
                let lines = ClientLines.snapshot(
                    snapshot, types: client.currentSubscription.types,
                    cameras: client.currentSubscription.cameras)
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
