import ArgumentParser
import Foundation
import Logging
import ScanCore
import ScanDaemon
import ScanKit
import ScanMQTT

/// `scand run --mqtt URL …`: publish the events into an MQTT broker (issue 19). Flags override the config
/// file's `"mqtt"` section. The password never comes from argv: `--mqtt-password-file` or
/// `--mqtt-password-env`.
struct MQTTOptions: ParsableArguments {
    @Option(
        name: .customLong("mqtt"),
        help: ArgumentHelp(
            "Publish events to this MQTT broker: mqtt://HOST:PORT (or tcp://HOST:PORT), or mqtts://HOST:PORT for TLS.",
            valueName: "url"))
    var url: String?

    @Option(
        name: .customLong("mqtt-ca"),
        help: ArgumentHelp(
            "PEM file of the CA that signed the broker's certificate (mqtts://; default: the system's CAs).",
            valueName: "file"))
    var ca: String?

    @Option(
        name: .customLong("mqtt-cert"),
        help: ArgumentHelp("PEM client certificate (with --mqtt-key).", valueName: "file"))
    var cert: String?

    @Option(name: .customLong("mqtt-key"), help: ArgumentHelp("PEM client key (with --mqtt-cert).", valueName: "file"))
    var key: String?

    @Option(name: .customLong("mqtt-username"), help: ArgumentHelp("MQTT username.", valueName: "name"))
    var username: String?

    @Option(
        name: .customLong("mqtt-password-file"),
        help: ArgumentHelp("Read the MQTT password from this file (first line).", valueName: "file"))
    var passwordFile: String?

    @Option(
        name: .customLong("mqtt-password-env"),
        help: ArgumentHelp("Read the MQTT password from this environment variable.", valueName: "name"))
    var passwordEnv: String?

    @Option(
        name: .customLong("mqtt-id"),
        help: ArgumentHelp(
            "This scand's id in topics and the client id (default: HOSTNAME-DEVICE, the device's /dev/v4l/by-id name or the input's file name).",
            valueName: "id"))
    var id: String?

    @Option(
        name: .customLong("mqtt-topic-prefix"),
        help: ArgumentHelp(
            "Topic prefix (default scand/<id>): events on PREFIX/events, retained plain online/offline on PREFIX/availability, JSON status on PREFIX/status, codes and faces on PREFIX/tag and PREFIX/state/… (docs/fleet.md).",
            valueName: "prefix"))
    var topicPrefix: String?

    @Option(
        name: .customLong("mqtt-qos"),
        help: ArgumentHelp("MQTT QoS for events: 0, 1 (default, at least once) or 2.", valueName: "n"))
    var qos: Int?

    @Flag(
        name: .customLong("mqtt-kind-topics"), inversion: .prefixedNo,
        help: "Also publish each event on PREFIX/<event> (appeared, lost, metadata, device).")
    var kindTopics: Bool?

    @Flag(
        name: .customLong("mqtt-metadata"), inversion: .prefixedNo,
        help:
            "Also publish the per-frame metadata events to the broker (default off: about 30 messages a second per camera; appeared, lost and device events always go)."
    )
    var metadata: Bool?

    @Flag(
        name: .customLong("mqtt-discovery"), inversion: .prefixedNo,
        help:
            "Publish Home Assistant MQTT discovery configs (retained): a tag scanner, a face binary sensor and a last-code sensor (default off; off also removes this scand's earlier configs)."
    )
    var discovery: Bool?

    @Option(
        name: .customLong("mqtt-discovery-prefix"),
        help: ArgumentHelp("Home Assistant's discovery prefix (default homeassistant).", valueName: "prefix"))
    var discoveryPrefix: String?

    @Option(
        name: .customLong("mqtt-queue"),
        help: ArgumentHelp(
            "Messages kept for the broker while it is slow or away (default 10000); then the oldest go and an 'overflow' event says how many.",
            valueName: "n"))
    var queue: Int?

    @Option(
        name: .customLong("mqtt-reconnect-max"),
        help: ArgumentHelp(
            "Longest wait between reconnection attempts, in seconds (default 10; waits double from 0.25 s).",
            valueName: "s"))
    var reconnectMax: Double?

    @Option(
        name: .customLong("mqtt-spool"),
        help: ArgumentHelp(
            "Write every message to this directory until the broker acknowledges it; what is left after a stop or a crash is sent first at the next start.",
            valueName: "dir"))
    var spool: String?

    @Option(
        name: .customLong("mqtt-spool-bytes"),
        help: ArgumentHelp(
            "Bytes of spool files kept at most (default 67108864); then the oldest go and an 'overflow' event says how many.",
            valueName: "n"))
    var spoolBytes: Int?

    /// The client configuration from flags over the config file section, or nil when no broker is given.
    /// `device` is the camera path or input file (for the default id and the `online` status).
    func configuration(file: MQTTConfigSection, device: String) throws -> MQTTConfiguration? {
        guard let url = url ?? file.url else {
            let given =
                [ca, cert, key, username, passwordFile, passwordEnv, id, topicPrefix, spool, discoveryPrefix].contains {
                    $0 != nil
                }
                || qos != nil || kindTopics != nil || queue != nil || reconnectMax != nil || spoolBytes != nil
                || metadata != nil || discovery != nil
            if given { throw ScanError.invalidArgument("--mqtt-* options need a broker: give --mqtt mqtt://HOST:PORT") }
            return nil
        }
        let endpoint = try MQTTEndpoint(parsing: url)
        let id = MQTTIdentity.sanitize(self.id ?? file.id ?? MQTTIdentity.defaultID(device: device))
        var c = MQTTConfiguration(endpoint: endpoint, id: id, device: device, version: Scand.version)
        c.topicPrefix = topicPrefix ?? file.topicPrefix ?? c.topicPrefix
        c.caFile = ca ?? file.ca
        c.certFile = cert ?? file.cert
        c.keyFile = key ?? file.key
        c.username = username ?? file.username
        c.password = try readPassword(file: passwordFile ?? file.passwordFile, env: passwordEnv ?? file.passwordEnv)
        c.qos = qos ?? file.qos ?? c.qos
        c.kindTopics = kindTopics ?? file.kindTopics ?? c.kindTopics
        c.metadata = metadata ?? file.metadata ?? c.metadata
        c.discovery = discovery ?? file.discovery ?? c.discovery
        c.discoveryPrefix = discoveryPrefix ?? file.discoveryPrefix ?? c.discoveryPrefix
        c.queueLimit = queue ?? file.queue ?? c.queueLimit
        c.queueBytes = file.queueBytes ?? c.queueBytes
        c.maxInFlight = file.inFlight ?? c.maxInFlight
        c.keepalive = file.keepalive ?? c.keepalive
        c.reconnectMax = reconnectMax ?? file.reconnectMax ?? c.reconnectMax
        c.reconnectMin = min(c.reconnectMin, c.reconnectMax)
        c.connectTimeout = file.connectTimeout ?? c.connectTimeout
        c.spoolSync = file.spoolSync ?? c.spoolSync
        if let dir = spool ?? file.spool {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue,
                FileManager.default.isWritableFile(atPath: dir)
            else {
                throw ScanError.invalidArgument("--mqtt-spool '\(dir)' is not a writable directory")
            }
            c.spoolDirectory = dir
            c.spoolBytes = spoolBytes ?? file.spoolBytes ?? c.spoolBytes
        } else if spoolBytes != nil || file.spoolBytes != nil {
            throw ScanError.invalidArgument("--mqtt-spool-bytes needs --mqtt-spool DIR")
        }
        try c.validate()
        return c
    }

    private func readPassword(file: String?, env: String?) throws -> String? {
        if file != nil && env != nil {
            throw ScanError.invalidArgument("give --mqtt-password-file or --mqtt-password-env, not both")
        }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ScanError.invalidArgument("MQTT password file '\(file)' is missing or unreadable")
            }
            let text = String(decoding: data, as: UTF8.self)
            return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
        }
        if let env {
            guard let value = ProcessInfo.processInfo.environment[env] else {
                throw ScanError.invalidArgument("MQTT password variable '\(env)' is not set")
            }
            return value
        }
        return nil
    }
}
