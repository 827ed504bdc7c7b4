public import Logging
public import ScanCore
public import ScanKit
public import ScanMQTT
public import ServiceLifecycle

/// The MQTT client (issue 19) as a `Service` in the daemon's group, fed from the event fan-out.
///
/// It subscribes when created, so create it before ``Daemon/start()``: the broker then gets every event from
/// the first `device started` on, like stdout. The client's own thread owns the libmosquitto handle; this
/// service starts it, waits for the group's graceful shutdown (the pipeline, last in the group, has stopped
/// by then and published its last events), and then finishes the client on a thread of its own: up to 5 s
/// for the broker to acknowledge what is queued, the `offline` status, closing the spool. It is delivered to
/// before the daemon's own sinks, so an event on stdout is already in the spool (`--mqtt-spool`).
public final class MQTTService: Service, Sendable {
    private let client: MQTTClient
    private let events: EventFanOut
    private let subscription: EventSubscription
    private let logger: Logger

    public init(client: MQTTClient, events: EventFanOut, logger: Logger) {
        self.client = client
        self.events = events
        self.logger = logger
        subscription = events.subscribe(client, beforeSinks: true)
    }

    public func run() async throws {
        client.start()
        try? await gracefulShutdown()
        let client = self.client
        let done = await onDedicatedThread { client.finish(timeout: .seconds(5)) }
        events.unsubscribe(subscription)
        if !done { logger.warning("mqtt: the client did not finish in time; leaving it") }
    }
}

extension MQTTService {
    /// The MQTT client's connection change as a device-style event (`device` = the broker URL):
    /// `deviceConnected`, `deviceDisconnected` with the reason, `runtimeError` for a failed attempt.
    public static func deviceEvent(_ event: MQTTConnectionEvent, broker: String) -> DeviceEvent {
        switch event {
        case .connected: return DeviceEvent(kind: .connected, device: broker)
        case .disconnected(let why): return DeviceEvent(kind: .disconnected, device: broker, reason: why)
        case .failed(let why), .spoolFailed(let why):
            return DeviceEvent(kind: .runtimeError, device: broker, reason: why)
        }
    }
}
