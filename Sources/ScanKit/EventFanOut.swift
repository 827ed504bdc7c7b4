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
    /// The camera whose stream the event is on (nil: an event of the whole process).
    public var camera: String? { encoded.camera }
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
public final class EventFanOut: Sendable {
    private let sinks: [any EventSink]
    private let encoder = JSONLinesEncoder()
    private let logger: Logger

    /// Identifies one presence (a code value of a type, or a face) across its `appeared` and `lost`.
    private struct PresenceKey: Hashable {
        var camera: String?
        var type: MetadataObjectType, bytes: [UInt8]?, value: String?, faceID: Int?, trackID: Int?
        init(_ p: PresenceEvent) {
            camera = p.camera
            type = p.type
            faceID = p.faceID
            trackID = p.trackID
            bytes = p.payload
            value = p.payload == nil ? p.value : nil
        }
    }

    /// Everything that changes as events are published and subscribers come and go. Its lock is held while
    /// delivering, so every sink sees the same `seq` order.
    private struct State {
        var seq: UInt64 = 0
        var subscribers: [(id: UInt64, sink: any EventSink)] = []
        var earlySubscribers: [(id: UInt64, sink: any EventSink)] = []
        var streams: [(id: UInt64, continuation: AsyncStream<PublishedEvent>.Continuation)] = []
        var nextID: UInt64 = 0
        var closed = false
        var present: [PresenceKey: (order: UInt64, event: PresenceEvent)] = [:]
        var deviceKinds: [DeviceKey: DeviceEvent.Kind] = [:]
    }
    private struct DeviceKey: Hashable {
        var camera: String?, device: String
    }
    private let state = Locked(State())
    /// The `seq` of the last event delivered: its own lock, so ``count`` never waits for a blocked sink.
    private let published = Locked<UInt64>(0)

    public init(sinks: [any EventSink], logger: Logger) {
        self.sinks = sinks
        self.logger = logger
    }

    /// Events published so far (does not wait for a sink that is blocked).
    public var count: UInt64 { published.withLock { $0 } }

    /// What is present after the last published event (its `seq`), oldest `appeared` first.
    public func snapshot() -> PresenceSnapshot {
        state.withLock {
            PresenceSnapshot(seq: $0.seq, present: $0.present.values.sorted { $0.order < $1.order }.map(\.event))
        }
    }

    /// The kind of the last `device` event published for `device` (of `camera`).
    public func lastDeviceKind(_ device: String, camera: String? = nil) -> DeviceEvent.Kind? {
        state.withLock { $0.deviceKinds[DeviceKey(camera: camera, device: device)] }
    }

    /// Adds a sink that gets every later event (its `deliver` must return at once). `finish()` is not
    /// called by the fan-out: the subscriber owns its sink.
    /// - Parameter beforeSinks: deliver to it before the daemon's own sinks (stdout), so that an event on
    ///   stdout was already handed to it (the MQTT spool: printed implies spooled, even across a SIGKILL).
    public func subscribe(_ sink: any EventSink, beforeSinks: Bool = false) -> EventSubscription {
        state.withLock { state in
            state.nextID += 1
            if beforeSinks {
                state.earlySubscribers.append((state.nextID, sink))
            } else {
                state.subscribers.append((state.nextID, sink))
            }
            return EventSubscription(id: state.nextID)
        }
    }

    /// Ends a subscription; no delivery to it starts after this returns.
    public func unsubscribe(_ subscription: EventSubscription) {
        state.withLock { state in
            state.subscribers.removeAll { $0.id == subscription.id }
            state.earlySubscribers.removeAll { $0.id == subscription.id }
        }
    }

    /// Every later event as an async sequence, with at most `limit` events buffered for a slow reader
    /// (its oldest are dropped, never the pipeline slowed). The stream ends when the fan-out is closed
    /// (the daemon stopped) or the reader stops iterating.
    public func events(bufferingNewest limit: Int = 1024) -> AsyncStream<PublishedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: PublishedEvent.self, bufferingPolicy: .bufferingNewest(limit))
        let registered = state.withLock { state -> UInt64? in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.streams.append((state.nextID, continuation))
            return state.nextID
        }
        guard let id = registered else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.streams.removeAll { $0.id == id } }
        }
        return stream
    }

    /// Drops every later event and ends the ``events(bufferingNewest:)`` streams: called once the daemon
    /// stopped, before the sinks finish, so a pipeline thread that was abandoned mid-frame cannot deliver
    /// to a finished sink.
    public func close() {
        let ending = state.withLock { state -> [AsyncStream<PublishedEvent>.Continuation] in
            state.closed = true
            defer { state.streams = [] }
            return state.streams.map(\.continuation)
        }
        for c in ending { c.finish() }
    }

    /// Gives each event the next `seq` and the current wall-clock `timestamp`, then delivers it.
    /// - Parameter camera: the camera whose stream the events are on (`scand run`; nil: none, or an event of
    ///   the whole process); its name goes on every line.
    public func emit(_ events: [ScanEvent], camera: String? = nil) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            guard !state.closed else { return }
            for var event in events {
                if camera != nil, case .presence(var p) = event {
                    p.camera = camera
                    event = .presence(p)
                }
                state.seq += 1
                let seq = state.seq
                let timestamp = wallClockSeconds()
                let encoded = encoder.encode(event, seq: seq, timestamp: timestamp, camera: camera)
                log(event, seq: seq, camera: camera)
                switch event {
                case .presence(let p) where p.transition == .appeared: state.present[PresenceKey(p)] = (seq, p)
                case .presence(let p): state.present[PresenceKey(p)] = nil
                case .device(let d)
                where ![.controlChanged, .adjustingExposureStarted, .adjustingExposureEnded].contains(d.kind):
                    // The device's state; control events (issue 18) leave it alone.
                    state.deviceKinds[DeviceKey(camera: camera, device: d.device)] = d.kind
                case .device, .metadata, .configuration: break
                }
                for s in state.earlySubscribers { s.sink.deliver(encoded) }
                for sink in sinks { sink.deliver(encoded) }
                for s in state.subscribers { s.sink.deliver(encoded) }
                if !state.streams.isEmpty {
                    let event = PublishedEvent(event: event, seq: seq, timestamp: timestamp, encoded: encoded)
                    for s in state.streams { s.continuation.yield(event) }
                }
                published.withLock { $0 = seq }
            }
        }
    }

    private func log(_ event: ScanEvent, seq: UInt64, camera: String?) {
        var logger = logger
        if let camera { logger[metadataKey: "camera"] = "\(camera)" }
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
