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
    @Option(name: .setting(.mqtt), help: .setting(.mqtt))
    var url: String?

    @Option(name: .setting(.mqttCa), help: .setting(.mqttCa))
    var ca: String?

    @Option(name: .setting(.mqttCert), help: .setting(.mqttCert))
    var cert: String?

    @Option(name: .setting(.mqttKey), help: .setting(.mqttKey))
    var key: String?

    @Option(name: .setting(.mqttUsername), help: .setting(.mqttUsername))
    var username: String?

    @Option(name: .setting(.mqttPasswordFile), help: .setting(.mqttPasswordFile))
    var passwordFile: String?

    @Option(name: .setting(.mqttPasswordEnv), help: .setting(.mqttPasswordEnv))
    var passwordEnv: String?

    @Option(name: .setting(.mqttId), help: .setting(.mqttId))
    var id: String?

    @Option(name: .setting(.mqttTopicPrefix), help: .setting(.mqttTopicPrefix))
    var topicPrefix: String?

    @Option(name: .setting(.mqttQos), help: .setting(.mqttQos))
    var qos: Int?

    @Flag(name: .setting(.mqttKindTopics), inversion: .prefixedNo, help: .setting(.mqttKindTopics))
    var kindTopics: Bool?

    @Flag(name: .setting(.mqttMetadata), inversion: .prefixedNo, help: .setting(.mqttMetadata))
    var metadata: Bool?

    @Flag(name: .setting(.mqttDiscovery), inversion: .prefixedNo, help: .setting(.mqttDiscovery))
    var discovery: Bool?

    @Option(name: .setting(.mqttDiscoveryPrefix), help: .setting(.mqttDiscoveryPrefix))
    var discoveryPrefix: String?

    @Option(name: .setting(.mqttQueue), help: .setting(.mqttQueue))
    var queue: Int?

    @Option(name: .setting(.mqttReconnectMax), help: .setting(.mqttReconnectMax))
    var reconnectMax: Double?

    @Option(name: .setting(.mqttSpool), help: .setting(.mqttSpool))
    var spool: String?

    @Option(name: .setting(.mqttSpoolBytes), help: .setting(.mqttSpoolBytes))
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
