import FoundationEssentials
import ScanMQTT

/// The config file's `"mqtt"` section (issue 19): the same settings as the `--mqtt*` flags, which override it.
/// The password itself is never in the file: `passwordFile` names a file holding it, `passwordEnv` an
/// environment variable.
///
/// ```json
/// "mqtt": {"url": "mqtts://broker.lan:8883", "ca": "/etc/scand/ca.pem", "username": "kiosk-07",
///          "passwordFile": "/etc/scand/mqtt-password", "kindTopics": true, "spool": "/var/lib/scand/mqtt",
///          "spoolBytes": 67108864}
/// ```
public struct MQTTConfigSection: Sendable, Equatable {
    public var url: String?
    public var ca: String?
    public var cert: String?
    public var key: String?
    public var username: String?
    public var passwordFile: String?
    public var passwordEnv: String?
    public var id: String?
    public var topicPrefix: String?
    public var qos: Int?
    public var kindTopics: Bool?
    /// Per-frame `metadata` events to the broker too (`--mqtt-metadata`).
    public var metadata: Bool?
    /// Home Assistant discovery (`--mqtt-discovery`) and its prefix (`--mqtt-discovery-prefix`).
    public var discovery: Bool?
    public var discoveryPrefix: String?
    /// Messages kept for the broker at most.
    public var queue: Int?
    /// Bytes kept for the broker at most.
    public var queueBytes: Int?
    /// Unacknowledged messages at most.
    public var inFlight: Int?
    /// Seconds.
    public var keepalive: Int?
    /// Longest wait between reconnection attempts, in seconds.
    public var reconnectMax: Double?
    /// Seconds a connection attempt may take (TCP, TLS, CONNACK) before it is given up and retried.
    public var connectTimeout: Double?
    /// Seconds a spooled message may wait for `fdatasync` (0: each one at once).
    public var spoolSync: Double?
    public var spool: String?
    /// Bytes of spool files kept at most.
    public var spoolBytes: Int?

    public init() {}

    static let keys: Set<String> = [
        "url", "ca", "cert", "key", "username", "passwordFile", "passwordEnv", "id", "topicPrefix",
        "qos", "kindTopics", "metadata", "discovery", "discoveryPrefix", "queue", "queueBytes", "inFlight", "keepalive",
        "reconnectMax", "connectTimeout", "spool", "spoolBytes", "spoolSync",
    ]

    /// Decodes the section; unknown keys and out-of-range values are ``ConfigKeyError``s naming `mqtt.KEY`. A
    /// string instead of an object is the broker URL (`"mqtt": "mqtt://broker:1883"`, as `--mqtt URL`).
    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            url = text
            try validate()
            return
        }
        let c = try decoder.container(keyedBy: SectionKey.self)
        for k in c.allKeys where !Self.keys.contains(k.stringValue) {
            throw ConfigKeyError(
                path: ["mqtt", k.stringValue],
                message:
                    "unknown config key 'mqtt.\(StrictJSON.printable(k.stringValue))' (known: \(Self.keys.sorted().joined(separator: ", ")))"
            )
        }
        func get<T: Decodable>(_ k: String, _ t: T.Type) throws -> T? {
            try c.decodeIfPresent(T.self, forKey: SectionKey(k))
        }
        url = try get("url", String.self)
        ca = try get("ca", String.self)
        cert = try get("cert", String.self)
        key = try get("key", String.self)
        username = try get("username", String.self)
        passwordFile = try get("passwordFile", String.self)
        passwordEnv = try get("passwordEnv", String.self)
        id = try get("id", String.self)
        topicPrefix = try get("topicPrefix", String.self)
        qos = try get("qos", Int.self)
        kindTopics = try get("kindTopics", Bool.self)
        metadata = try get("metadata", Bool.self)
        discovery = try get("discovery", Bool.self)
        discoveryPrefix = try get("discoveryPrefix", String.self)
        queue = try get("queue", Int.self)
        queueBytes = try get("queueBytes", Int.self)
        inFlight = try get("inFlight", Int.self)
        keepalive = try get("keepalive", Int.self)
        reconnectMax = try get("reconnectMax", Double.self)
        spool = try get("spool", String.self)
        spoolBytes = try get("spoolBytes", Int.self)
        connectTimeout = try get("connectTimeout", Double.self)
        spoolSync = try get("spoolSync", Double.self)
        try validate()
    }

    private func validate() throws {
        func check(_ ok: Bool, _ key: String, _ message: String) throws {
            if !ok { throw ConfigKeyError(path: ["mqtt", key], message: "'mqtt.\(key)' \(message)") }
        }
        if let u = url {
            try check(
                MQTTEndpoint.schemes.contains { u.lowercased().hasPrefix($0.prefix) }, "url",
                "must start with mqtt://, tcp:// or mqtts://, got '\(StrictJSON.printable(u))'")
        }
        if let v = qos { try check((0...2).contains(v), "qos", "must be 0, 1 or 2, got \(v)") }
        if let v = queue { try check((1...10_000_000).contains(v), "queue", "must be 1...10000000, got \(v)") }
        if let v = queueBytes {
            try check(v >= 4096 && v <= (4 << 30), "queueBytes", "must be 4096...\(4 << 30), got \(v)")
        }
        if let v = spoolBytes { try check(v >= 4096, "spoolBytes", "must be at least 4096, got \(v)") }
        if let v = inFlight { try check((1...65535).contains(v), "inFlight", "must be 1...65535, got \(v)") }
        if let v = keepalive { try check((5...65535).contains(v), "keepalive", "must be 5...65535 seconds, got \(v)") }
        if let v = reconnectMax {
            try check(v > 0 && v <= 3600, "reconnectMax", "must be more than 0 and at most 3600 seconds, got \(v)")
        }
        if let v = spoolSync { try check(v >= 0 && v <= 60, "spoolSync", "must be 0...60 seconds, got \(v)") }
        if let v = connectTimeout {
            try check(v > 0 && v <= 3600, "connectTimeout", "must be more than 0 and at most 3600 seconds, got \(v)")
        }
    }
}

private struct SectionKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
