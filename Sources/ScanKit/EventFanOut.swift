public import Logging
public import ScanCore
public import ScanOutput

/// One published event, as every subscriber sees it: the event, its `seq` and wall-clock `timestamp`, and
/// the JSON line the Unix socket and stdout get (``EncodedEvent/line``).
public struct PublishedEvent: Sendable {
    public var event: ScanEvent
    /// 1-based, increasing by one per event, the same for every subscriber.
    public var seq: UInt64
    /// Wall-clock seconds since the Unix epoch when the event was numbered.
    public var timestamp: Double
    /// The JSON line (ending in `\n`) with the subscription filter's keys.
    public var encoded: EncodedEvent
}

/// A subscription to an ``EventFanOut``; ``EventFanOut/unsubscribe(_:)`` ends it.
public struct EventSubscription: Hashable, Sendable {
    fileprivate let id: UInt64
}

/// The event fan-out: numbers events and hands them to every sink and subscriber, in one order for all.
/// It also keeps what the stream says is present now (each `appeared` not yet followed by its `lost`) and
/// the last `device` event kind per device, for snapshots (``snapshot()``).
///
/// Fixed sinks (stdout, the Unix socket server) are given at init; any service (HTTP, MQTT) may
/// ``subscribe(_:)`` a sink or take an ``events(bufferingNewest:)`` stream at any time.
///
/// Every sink's `deliver` must return at once (the socket server queues per client; stdout goes through a
/// ``QueuedSink``; a stream drops its oldest buffered event): the lock is held while delivering so that
/// every sink sees the same `seq` order, and a device event emitted from a camera's thread never waits on
/// an output.
public final class EventFanOut: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `seq`, `closed`, `present`, `deviceKinds`, `subscribers`, `earlySubscribers`,
    // `streams` and `nextID` are touched only under `lock`, `published` only under `countLock`; `sinks`,
    // `encoder` and `logger` are immutable.
    private let lock = Lock()
    private var seq: UInt64 = 0
    private let sinks: [any EventSink]
    private var subscribers: [(id: UInt64, sink: any EventSink)] = []
    private var earlySubscribers: [(id: UInt64, sink: any EventSink)] = []
    private var streams: [(id: UInt64, continuation: AsyncStream<PublishedEvent>.Continuation)] = []
    private var nextID: UInt64 = 0
    private let encoder = JSONLinesEncoder()
    private let logger: Logger

    public init(sinks: [any EventSink], logger: Logger) {
        self.sinks = sinks
        self.logger = logger
    }

    /// Events published so far (does not wait for a sink that is blocked).
    public var count: UInt64 { countLock.withLock { published } }
    private let countLock = Lock()
    private var published: UInt64 = 0

    private var closed = false

    /// Identifies one presence (a code value of a type, or a face) across its `appeared` and `lost`.
    private struct PresenceKey: Hashable {
        var type: MetadataObjectType, bytes: [UInt8]?, value: String?, faceID: Int?
        init(_ p: PresenceEvent) {
            type = p.type
            faceID = p.faceID
            bytes = p.payload
            value = p.payload == nil ? p.value : nil
        }
    }
    private var present: [PresenceKey: (order: UInt64, event: PresenceEvent)] = [:]
    private var deviceKinds: [String: DeviceEvent.Kind] = [:]

    /// What is present after the last published event (its `seq`), oldest `appeared` first.
    public func snapshot() -> PresenceSnapshot {
        lock.withLock {
            PresenceSnapshot(seq: seq, present: present.values.sorted { $0.order < $1.order }.map(\.event))
        }
    }

    /// The kind of the last `device` event published for `device`.
    public func lastDeviceKind(_ device: String) -> DeviceEvent.Kind? { lock.withLock { deviceKinds[device] } }

    /// Adds a sink that gets every later event (its `deliver` must return at once). `finish()` is not
    /// called by the fan-out: the subscriber owns its sink.
    /// - Parameter beforeSinks: deliver to it before the daemon's own sinks (stdout), so that an event on
    ///   stdout was already handed to it (the MQTT spool: printed implies spooled, even across a SIGKILL).
    public func subscribe(_ sink: any EventSink, beforeSinks: Bool = false) -> EventSubscription {
        lock.withLock {
            nextID += 1
            if beforeSinks { earlySubscribers.append((nextID, sink)) } else { subscribers.append((nextID, sink)) }
            return EventSubscription(id: nextID)
        }
    }

    /// Ends a subscription; no delivery to it starts after this returns.
    public func unsubscribe(_ subscription: EventSubscription) {
        lock.withLock {
            subscribers.removeAll { $0.id == subscription.id }
            earlySubscribers.removeAll { $0.id == subscription.id }
        }
    }

    /// Every later event as an async sequence, with at most `limit` events buffered for a slow reader
    /// (its oldest are dropped, never the pipeline slowed). The stream ends when the fan-out is closed
    /// (the daemon stopped) or the reader stops iterating.
    public func events(bufferingNewest limit: Int = 1024) -> AsyncStream<PublishedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PublishedEvent.self, bufferingPolicy: .bufferingNewest(limit))
        let registered = lock.withLock { () -> UInt64? in
            guard !closed else { return nil }
            nextID += 1
            streams.append((nextID, continuation))
            return nextID
        }
        guard let id = registered else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.lock.withLock { self?.streams.removeAll { $0.id == id } }
        }
        return stream
    }

    /// Drops every later event and ends the ``events(bufferingNewest:)`` streams: called once the daemon
    /// stopped, before the sinks finish, so a pipeline thread that was abandoned mid-frame cannot deliver
    /// to a finished sink.
    public func close() {
        let ending = lock.withLock { () -> [AsyncStream<PublishedEvent>.Continuation] in
            closed = true
            defer { streams = [] }
            return streams.map(\.continuation)
        }
        for c in ending { c.finish() }
    }

    /// Gives each event the next `seq` and the current wall-clock `timestamp`, then delivers it.
    public func emit(_ events: [ScanEvent]) {
        guard !events.isEmpty else { return }
        lock.withLock {
            guard !closed else { return }
            for event in events {
                seq += 1
                let timestamp = wallClockSeconds()
                let encoded = encoder.encode(event, seq: seq, timestamp: timestamp)
                log(event, seq: seq)
                switch event {
                case .presence(let p) where p.transition == .appeared: present[PresenceKey(p)] = (seq, p)
                case .presence(let p): present[PresenceKey(p)] = nil
                case .device(let d)
                where ![.controlChanged, .adjustingExposureStarted, .adjustingExposureEnded].contains(d.kind):
                    deviceKinds[d.device] = d.kind  // the device's state; control events (issue 18) leave it alone
                case .device, .metadata, .configuration: break
                }
                for s in earlySubscribers { s.sink.deliver(encoded) }
                for sink in sinks { sink.deliver(encoded) }
                for s in subscribers { s.sink.deliver(encoded) }
                if !streams.isEmpty {
                    let published = PublishedEvent(event: event, seq: seq, timestamp: timestamp, encoded: encoded)
                    for s in streams { s.continuation.yield(published) }
                }
                countLock.withLock { published = seq }
            }
        }
    }

    private func log(_ event: ScanEvent, seq: UInt64) {
        switch event {
        case .metadata(let m):
            if logger.logLevel <= .trace {
                logger.trace(
                    "frame", metadata: ["seq": "\(seq)", "frame": "\(m.frame)", "objects": "\(m.objects.count)"])
            }
        case .presence(let p):
            var meta: Logger.Metadata = ["seq": "\(seq)", "type": "\(p.type.rawValue)"]
            if let id = p.faceID { meta["faceID"] = "\(id)" }
            if logger.logLevel <= .debug, let v = p.value { meta["value"] = "\(v)" }  // payloads only when debugging
            logger.info("\(p.transition.rawValue)", metadata: meta)
        case .configuration(let c):
            logger.notice(
                "configuration changed",
                metadata: [
                    "origin": "\(c.origin)",
                    "rectOfInterest": "\(c.rectOfInterest.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-")",
                ])
        case .device(let d):
            let level: Logger.Level = d.kind == .runtimeError ? .error : d.kind == .disconnected ? .warning : .notice
            var meta: Logger.Metadata = ["device": "\(d.device)"]
            if let reason = d.reason { meta["reason"] = "\(reason)" }
            logger.log(level: level, "device \(d.kind.rawValue)", metadata: meta)
        }
    }
}
