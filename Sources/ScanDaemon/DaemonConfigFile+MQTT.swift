import FoundationEssentials
import ScanCore
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

    /// The keys of the section: every setting whose key is `mqtt.…`.
    static let keys: Set<String> = Set(Setting.all.filter { $0.section == Setting.mqtt.section }.map(\.name))

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
        func get<T: Decodable>(_ setting: Setting, _ t: T.Type) throws -> T? {
            try c.decodeIfPresent(T.self, forKey: SectionKey(setting.name))
        }
        url = try get(.mqtt, String.self)
        ca = try get(.mqttCa, String.self)
        cert = try get(.mqttCert, String.self)
        key = try get(.mqttKey, String.self)
        username = try get(.mqttUsername, String.self)
        passwordFile = try get(.mqttPasswordFile, String.self)
        passwordEnv = try get(.mqttPasswordEnv, String.self)
        id = try get(.mqttId, String.self)
        topicPrefix = try get(.mqttTopicPrefix, String.self)
        qos = try get(.mqttQos, Int.self)
        kindTopics = try get(.mqttKindTopics, Bool.self)
        metadata = try get(.mqttMetadata, Bool.self)
        discovery = try get(.mqttDiscovery, Bool.self)
        discoveryPrefix = try get(.mqttDiscoveryPrefix, String.self)
        queue = try get(.mqttQueue, Int.self)
        queueBytes = try get(.mqttQueueBytes, Int.self)
        inFlight = try get(.mqttInFlight, Int.self)
        keepalive = try get(.mqttKeepalive, Int.self)
        reconnectMax = try get(.mqttReconnectMax, Double.self)
        spool = try get(.mqttSpool, String.self)
        spoolBytes = try get(.mqttSpoolBytes, Int.self)
        connectTimeout = try get(.mqttConnectTimeout, Double.self)
        spoolSync = try get(.mqttSpoolSync, Double.self)
        try validate()
    }

    private func validate() throws {
        func check(_ ok: Bool, _ setting: Setting, _ message: String) throws {
            if !ok {
                throw ConfigKeyError(
                    path: setting.key.split(separator: ".").map(String.init), message: "'\(setting.key)' \(message)")
            }
        }
        if let u = url {
            try check(
                MQTTEndpoint.schemes.contains { u.lowercased().hasPrefix($0.prefix) }, .mqtt,
                "must start with mqtt://, tcp:// or mqtts://, got '\(StrictJSON.printable(u))'")
        }
        try DaemonConfigFile.bounded(.mqttQos, qos)
        try DaemonConfigFile.bounded(.mqttQueue, queue)
        try DaemonConfigFile.bounded(.mqttQueueBytes, queueBytes)
        try DaemonConfigFile.bounded(.mqttSpoolBytes, spoolBytes)
        try DaemonConfigFile.bounded(.mqttInFlight, inFlight)
        try DaemonConfigFile.bounded(.mqttKeepalive, keepalive)
        try DaemonConfigFile.bounded(.mqttReconnectMax, reconnectMax)
        try DaemonConfigFile.bounded(.mqttSpoolSync, spoolSync)
        try DaemonConfigFile.bounded(.mqttConnectTimeout, connectTimeout)
    }
}

private struct SectionKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
