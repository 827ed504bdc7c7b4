/// A change of the broker connection, for the daemon to publish as a device-style event.
public enum MQTTConnectionEvent: Sendable, Equatable {
    /// The broker accepted the connection (CONNACK 0); queued messages drain now.
    case connected
    /// An established connection was lost; the message says why. Messages wait in the outbox.
    case disconnected(String)
    /// A connection attempt failed (refused TCP connection, TLS error, bad credentials); the message says
    /// why. Reported once per distinct reason; attempts go on with backoff.
    case failed(String)
    /// The spool (`--mqtt-spool`) could not be written (a full disk, a file-size limit); the message says
    /// why. Messages stay in memory from then on; nothing queued is lost.
    case spoolFailed(String)
}

/// What the client is doing, for logs, `/state` and `/metrics`.
public struct MQTTClientStatistics: Sendable, Equatable {
    public var connected: Bool
    /// Successful connections since start (1 after the first; more after reconnects).
    public var connections: Int
    /// The last connection failure or loss, nil when none yet.
    public var lastError: String?
    public var outbox: MQTTOutbox.Statistics
}
