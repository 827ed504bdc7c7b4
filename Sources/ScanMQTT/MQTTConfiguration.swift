import Foundation
import ScanCore

/// Where the broker is: `mqtt://HOST[:PORT]` (plain TCP, default port 1883; `tcp://` is the same, as
/// Paho and Frigate write it) or `mqtts://HOST[:PORT]` (TLS, default port 8883; also `ssl://`, `tls://`).
public struct MQTTEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool

    public init(host: String, port: Int, tls: Bool) {
        self.host = host
        self.port = port
        self.tls = tls
    }

    /// The schemes taken, and whether each means TLS.
    public static let schemes: [(prefix: String, tls: Bool)] = [
        ("mqtt://", false), ("tcp://", false), ("mqtts://", true),
        ("ssl://", true), ("tls://", true),
    ]

    /// Parses `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]` (an IPv6 host in brackets); `tcp://` is `mqtt://`,
    /// `ssl://` and `tls://` are `mqtts://`.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the URL and what is wrong.
    public init(parsing url: String) throws {
        func bad(_ why: String) -> ScanError {
            .invalidArgument(
                "MQTT broker URL '\(url)': \(why) (expected mqtt://HOST:PORT, tcp://HOST:PORT or mqtts://HOST:PORT)")
        }
        let rest: Substring
        guard let scheme = Self.schemes.first(where: { url.lowercased().hasPrefix($0.prefix) }) else {
            throw bad("unknown scheme")
        }
        tls = scheme.tls
        rest = url.dropFirst(scheme.prefix.count)
        var hostPart = rest
        if hostPart.hasSuffix("/") { hostPart = hostPart.dropLast() }
        guard !hostPart.contains("/"), !hostPart.contains("@") else {
            throw bad("no path or user in the URL; give the user with --mqtt-username")
        }
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else { throw bad("unclosed '['") }
            host = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw bad("text after ']'")
            }
        } else if let colon = hostPart.lastIndex(of: ":") {
            host = String(hostPart[..<colon])
            portText = hostPart[hostPart.index(after: colon)...]
        } else {
            host = String(hostPart)
        }
        guard !host.isEmpty else { throw bad("no host") }
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { throw bad("port must be 1...65535") }
            port = p
        } else {
            port = tls ? 8883 : 1883
        }
    }

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(h):\(port)"
    }
}

/// Everything the MQTT client needs. Secrets (the password) come from a file or the environment, never argv;
/// ``password`` holds the value read.
public struct MQTTConfiguration: Sendable {
    public var endpoint: MQTTEndpoint
    /// PEM file of the CA that signed the broker's certificate (`mqtts://`); nil: the system's CAs.
    public var caFile: String?
    /// PEM client certificate and key, for brokers that authenticate clients by certificate.
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    public var password: String?
    /// Identifies this scand: the default topic prefix is `scand/<id>` and the MQTT client id `scand-<id>`.
    public var id: String
    /// Topics start with this (default `scand/<id>`): `<prefix>/events`, `<prefix>/status`, `<prefix>/<kind>`.
    public var topicPrefix: String
    /// 0, 1 (default: at least once) or 2.
    public var qos: Int = 1
    /// Also publish each event on `<prefix>/<event kind>` (`appeared`, `lost`, `metadata`, `device`).
    public var kindTopics = false
    /// The cameras of a multi-camera run at start (empty for one camera): each also gets its own events topic
    /// and state topics under `<prefix>/cameras/<name>/` (``MQTTFleetTopics/camera(_:)``), as does a camera a
    /// reload adds (its face state is first published when a face appears).
    public var cameras: [String] = []
    /// Publish the per-frame `metadata` events too (`--mqtt-metadata`); off by default: about 30 messages a
    /// second per camera that a fleet rarely wants.
    public var metadata = false
    /// Publish Home Assistant discovery configs (`--mqtt-discovery`); off: empty retained configs remove this
    /// scand's earlier ones.
    public var discovery = false
    /// The discovery prefix Home Assistant listens on (`--mqtt-discovery-prefix`).
    public var discoveryPrefix = "homeassistant"
    /// Messages kept for the broker at most (queued and unacknowledged); the oldest go first.
    public var queueLimit = 10_000
    /// Bytes kept for the broker at most.
    public var queueBytes = 16 << 20
    /// Messages sent and not yet acknowledged at most (QoS 1 and 2).
    public var maxInFlight = 100
    /// Keepalive interval in seconds.
    public var keepalive = 30
    /// Reconnection backoff: first wait and longest wait, in seconds (doubling in between).
    public var reconnectMin = 0.25
    public var reconnectMax = 10.0
    /// Seconds a connection attempt may take, from the TCP connect to the broker's CONNACK, before it counts
    /// as failed and is retried with backoff. The attempt never blocks the client thread (a black-holed broker
    /// does not hold it for the kernel's connect timeout, about 2 minutes, nor delay a stop).
    public var connectTimeout = 10.0
    /// A directory where every message is written until the broker acknowledges it (see ``MQTTSpool``); what
    /// is left after a stop or a crash is sent first at the next start.
    public var spoolDirectory: String?
    /// Bytes of spool files kept at most; past it the oldest segment's messages are dropped (`overflow`).
    public var spoolBytes = 64 << 20
    /// Seconds a spooled message may wait for `fdatasync`: a power cut loses at most this much of the spool
    /// (0: every message is synced before the pipeline goes on; see ``MQTTSpool``).
    public var spoolSync = 0.2
    /// The device (camera path or input file) named in the `online` status.
    public var device: String
    /// scand's version, named in the `online` status.
    public var version: String

    public init(endpoint: MQTTEndpoint, id: String, device: String, version: String) {
        self.endpoint = endpoint
        self.id = id
        self.device = device
        self.version = version
        self.topicPrefix = "scand/" + id
    }

    public var eventsTopic: String { topicPrefix + "/events" }
    public var statusTopic: String { topicPrefix + "/status" }
    /// Retained plain `online`/`offline`, the last will's topic.
    public var availabilityTopic: String { topicPrefix + "/availability" }
    /// The availability, tag, state and discovery topics (``MQTTFleetTopics``).
    public var fleetTopics: MQTTFleetTopics {
        MQTTFleetTopics(prefix: topicPrefix, id: id, discoveryPrefix: discoveryPrefix)
    }
    /// The MQTT client id: stable across restarts, so the broker keeps the session (clean_session=false).
    public var clientID: String { "scand-" + id }

    /// Checks ranges and topic syntax.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the setting.
    public func validate() throws {
        do {
            try Setting.mqttQos.check(qos)
            try Setting.mqttQueue.check(queueLimit)
            try Setting.mqttQueueBytes.check(queueBytes)
            try Setting.mqttSpoolBytes.check(spoolBytes)
            try Setting.mqttInFlight.check(maxInFlight)
            try Setting.mqttKeepalive.check(keepalive)
            try Setting.mqttSpoolSync.check(spoolSync)
            try Setting.mqttConnectTimeout.check(connectTimeout)
        } catch {
            throw ScanError.invalidArgument(error.description)
        }
        guard reconnectMin > 0, reconnectMax >= reconnectMin, reconnectMax <= 3600 else {
            throw ScanError.invalidArgument("MQTT reconnect backoff must satisfy 0 < min <= max <= 3600 seconds")
        }
        guard !topicPrefix.isEmpty, !topicPrefix.contains("+"), !topicPrefix.contains("#"), !topicPrefix.hasSuffix("/"),
            !topicPrefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw ScanError.invalidArgument(
                "MQTT topic prefix '\(topicPrefix)' must be non-empty, without '+', '#', control characters or a trailing '/'"
            )
        }
        guard !discoveryPrefix.isEmpty, !discoveryPrefix.contains("+"), !discoveryPrefix.contains("#"),
            !discoveryPrefix.hasSuffix("/"),
            !discoveryPrefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw ScanError.invalidArgument(
                "MQTT discovery prefix '\(discoveryPrefix)' must be non-empty, without '+', '#', control characters or a trailing '/'"
            )
        }
        if !endpoint.tls, caFile != nil || certFile != nil || keyFile != nil {
            throw ScanError.invalidArgument("--mqtt-ca/--mqtt-cert/--mqtt-key need an mqtts:// broker URL")
        }
        if (certFile == nil) != (keyFile == nil) {
            throw ScanError.invalidArgument("give both --mqtt-cert and --mqtt-key, or neither")
        }
        for (what, path) in [("CA", caFile), ("certificate", certFile), ("key", keyFile)] {
            if let path, !FileManager.default.isReadableFile(atPath: path) {
                throw ScanError.invalidArgument("MQTT \(what) file '\(path)' is missing or unreadable")
            }
        }
        if password != nil && username == nil {
            throw ScanError.invalidArgument("an MQTT password needs a username (--mqtt-username)")
        }
    }
}

/// The default `<id>`: the host name and the device's stable name, as one MQTT topic level.
public enum MQTTIdentity {
    /// `HOST-NAME`, where NAME is the device's `/dev/v4l/by-id` name when one points at `device`, else the
    /// last path component of `device` (a file's name); characters other than letters, digits, `.`, `_` and
    /// `-` become `_`.
    public static func defaultID(device: String, byIdDirectory: String = "/dev/v4l/by-id") -> String {
        var name = (device as NSString).lastPathComponent
        if device.hasPrefix("/dev/") {
            let target = (device as NSString).resolvingSymlinksInPath
            if let links = try? FileManager.default.contentsOfDirectory(atPath: byIdDirectory) {
                for link in links.sorted()
                where ((byIdDirectory + "/" + link) as NSString).resolvingSymlinksInPath == target {
                    name = link
                    break
                }
            }
        }
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "scand"
        return sanitize(host) + "-" + sanitize(name)
    }

    /// Keeps letters, digits, `.`, `_` and `-`; anything else becomes `_` (never `/`, `+` or `#`).
    public static func sanitize(_ s: String) -> String {
        let kept = s.unicodeScalars.map { c -> Character in
            (c.isASCII && (CharacterSet.alphanumerics.contains(c) || c == "." || c == "_" || c == "-"))
                ? Character(c) : "_"
        }
        let out = String(kept)
        return out.isEmpty ? "_" : String(out.prefix(100))
    }
}
