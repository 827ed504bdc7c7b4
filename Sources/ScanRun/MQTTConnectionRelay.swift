import ScanCore
public import ScanDaemon
public import ScanMQTT

/// Hands the MQTT client's connection changes to the daemon as device-style events once it exists.
public final class MQTTConnectionRelay: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `daemon` is touched only under `lock`; `broker` is immutable.
    private let lock = Lock()
    private var daemon: Daemon?
    private let broker: String

    public init(broker: String) { self.broker = broker }

    public func attach(_ daemon: Daemon) { lock.withLock { self.daemon = daemon } }

    public func report(_ event: MQTTConnectionEvent) {
        lock.withLock { daemon }?.publish(event, broker: broker)
    }
}
