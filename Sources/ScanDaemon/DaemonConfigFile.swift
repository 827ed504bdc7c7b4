public import ScanCore
import FoundationEssentials
import Logging

/// The `scand run --config FILE` format: one JSON object; every key is optional and command-line flags
/// override it. Unknown keys, duplicate keys and values outside the flags' bounds are errors (a typo must
/// not be silently ignored), and every error names the file, the line and the column. See docs/daemon.md.
///
/// ```json
/// {"input": "demo.y4m", "types": ["qr", "ean13"], "metadata": false,
///  "socket": {"path": "/run/scand/scand.sock", "group": "scand"},
///  "presence": {"lostAfter": 1.0, "cooldown": 0.5}}
/// ```
public struct DaemonConfigFile: Sendable, Equatable {
    public struct Socket: Sendable, Equatable {
        public var path: String?
        public var group: String?
        public var clientQueue: Int?
        public var stallTimeout: Double?
        public var sendBuffer: Int?
        public init() {}
    }
    public struct Presence: Sendable, Equatable {
        public var enabled: Bool?
        public var appearAfterFrames: Int?
        public var lostAfter: Double?
        public var cooldown: Double?
        public var faceLostAfter: Double?
        public init() {}
    }

    public var input: String?
    public var device: String?
    /// Comma-separated string or array of type names (`metadataObjectTypes`), or "all"/"codes".
    public var types: String?
    public var rectOfInterest: NormalizedRect?
    public var tryInverted: Bool?
    /// Decode Code 39 as Full ASCII (`--code39-full-ascii`).
    public var code39FullASCII: Bool?
    public var scanDensity: Int?
    public var models: String?
    public var metadata: Bool?
    public var pacing: Bool?
    public var loop: Bool?
    public var exitAtEnd: Bool?
    public var stdout: Bool?
    /// Events kept waiting for a slow stdout reader in `run` before the oldest are dropped.
    public var stdoutQueue: Int?
    /// The decoders' pixel budget (`--max-pixels`).
    public var maxPixels: Int?
    public var logLevel: String?
    public var socket = Socket()
    public var presence = Presence()
    /// Camera controls by `v4l2-ctl` name: `{"brightness": 140, "auto_exposure": "manual_mode"}` (issue 18).
    /// Values are kept as text (numbers, true/false, menu item names) and checked against the device at start.
    public var controls: [String: String]?
    /// The MQTT client (issue 19); see DaemonConfigFile+MQTT.swift.
    public var mqtt = MQTTConfigSection()

    public init() {}

    /// The largest config file read, in bytes.
    public static let maximumFileBytes = 1 << 20

    /// Reads and parses `path`.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the file and the problem.
    public static func load(path: String) throws -> DaemonConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            throw ScanError.invalidArgument("\(path): cannot read config file (missing or unreadable)")
        }
        guard data.count <= maximumFileBytes else {
            throw ScanError.invalidArgument("\(path): config file larger than \(maximumFileBytes) bytes")
        }
        return try parse([UInt8](data), name: path)
    }

    /// Parses a config document; `name` names it in errors, which read `NAME:LINE:COLUMN: message`.
    public static func parse(_ bytes: [UInt8], name: String) throws -> DaemonConfigFile {
        let syntax: StrictJSON
        do {
            syntax = try StrictJSON(checking: bytes)
        } catch {
            throw ScanError.invalidArgument("\(name):\(error.position): \(error.message)")
        }
        func at(_ path: [String]) -> String { "\(name):\(syntax.position(of: path))" }
        let value: DaemonConfigFile
        do {
            value = try JSONDecoder().decode(Coded.self, from: Data(bytes)).value
        } catch let error as ConfigKeyError {
            throw ScanError.invalidArgument("\(at(error.path)): \(error.message)")
        } catch let DecodingError.typeMismatch(type, ctx) {
            let path = ctx.codingPath.map(\.stringValue)
            throw ScanError.invalidArgument("\(at(path)): '\(pathText(ctx.codingPath))' must be \(typeName(type))")
        } catch let DecodingError.valueNotFound(type, ctx) {
            let path = ctx.codingPath.map(\.stringValue)
            throw ScanError.invalidArgument("\(at(path)): '\(pathText(ctx.codingPath))' must be \(typeName(type)), not null")
        } catch let DecodingError.dataCorrupted(ctx) {
            let path = ctx.codingPath.map(\.stringValue)
            throw ScanError.invalidArgument("\(at(path)): \(path.isEmpty ? "" : "'" + pathText(ctx.codingPath) + "': ")\(ctx.debugDescription)")
        } catch {
            throw ScanError.invalidArgument("\(name): \(error)")
        }
        do {
            try value.validate()
        } catch let error as ConfigKeyError {
            throw ScanError.invalidArgument("\(at(error.path)): \(error.message)")
        }
        return value
    }

    /// Checks every value against the same bounds as the command-line flags.
    /// - Throws: a ``ConfigKeyError`` naming the key.
    func validate() throws {
        func check(_ ok: Bool, _ path: String, _ message: String) throws {
            if !ok { throw ConfigKeyError(path: path.split(separator: ".").map(String.init), message: "'\(path)' \(message)") }
        }
        if let v = scanDensity { try check((1...16).contains(v), "scanDensity", "must be 1...16, got \(v)") }
        if let v = stdoutQueue { try check((1...1_000_000).contains(v), "stdoutQueue", "must be 1...1000000, got \(v)") }
        if let v = maxPixels { try check((1...(1 << 32)).contains(v), "maxPixels", "must be 1...\(1 << 32), got \(v)") }
        if let r = rectOfInterest {
            try check([r.x, r.y, r.width, r.height].allSatisfy(\.isFinite), "rectOfInterest", "must be four finite numbers")
        }
        if let v = logLevel { try check(Logger.Level(rawValue: v) != nil, "logLevel", "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(StrictJSON.printable(v))'") }
        if let v = socket.clientQueue { try check((1...1_000_000).contains(v), "socket.clientQueue", "must be 1...1000000, got \(v)") }
        if let v = socket.stallTimeout { try check(v > 0 && v <= 86_400, "socket.stallTimeout", "must be more than 0 and at most 86400 seconds, got \(v)") }
        if let v = socket.sendBuffer { try check((1024...(64 << 20)).contains(v), "socket.sendBuffer", "must be 1024...\(64 << 20) bytes, got \(v)") }
        if let v = presence.appearAfterFrames { try check((1...1000).contains(v), "presence.appearAfterFrames", "must be 1...1000, got \(v)") }
        for (key, v) in [("presence.lostAfter", presence.lostAfter), ("presence.cooldown", presence.cooldown),
                         ("presence.faceLostAfter", presence.faceLostAfter)] {
            if let v { try check(v >= 0 && v <= 86_400, key, "must be 0...86400 seconds, got \(v)") }
        }
    }

    static func pathText(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "top level" : path.map(\.stringValue).joined(separator: ".")
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is [Double].Type, is [String].Type: return "an array"
        default: return "an object"
        }
    }
}

/// A config key that is unknown or out of range, with its path for the line and column.
struct ConfigKeyError: Error {
    var path: [String]
    var message: String
}

private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private func rejectUnknown(_ c: KeyedDecodingContainer<Key>, known: Set<String>, at prefix: String) throws {
    for k in c.allKeys where !known.contains(k.stringValue) {
        let path = prefix.split(separator: ".").map(String.init) + [k.stringValue]
        throw ConfigKeyError(path: path, message: "unknown config key '\(prefix)\(StrictJSON.printable(k.stringValue))' (known: \(known.sorted().joined(separator: ", ")))")
    }
}

private struct Coded: Decodable {
    var value = DaemonConfigFile()

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        try rejectUnknown(c, known: ["input", "device", "types", "rectOfInterest", "tryInverted", "code39FullASCII", "scanDensity", "models",
                                     "metadata", "pacing", "loop", "exitAtEnd", "stdout", "stdoutQueue", "maxPixels", "logLevel",
                                     "socket", "presence", "controls", "mqtt"], at: "")
        func get<T: Decodable>(_ k: String, _ t: T.Type) throws -> T? { try c.decodeIfPresent(T.self, forKey: Key(k)) }
        value.input = try get("input", String.self)
        value.device = try get("device", String.self)
        if c.contains(Key("types")) {
            if let list = try? c.decode([String].self, forKey: Key("types")) {
                value.types = list.joined(separator: ",")
            } else {
                value.types = try get("types", String.self)
            }
        }
        if let r = try get("rectOfInterest", [Double].self) {
            guard r.count == 4 else { throw ConfigKeyError(path: ["rectOfInterest"], message: "'rectOfInterest' takes [x, y, width, height]") }
            value.rectOfInterest = NormalizedRect(x: r[0], y: r[1], width: r[2], height: r[3])
        }
        value.tryInverted = try get("tryInverted", Bool.self)
        value.code39FullASCII = try get("code39FullASCII", Bool.self)
        value.scanDensity = try get("scanDensity", Int.self)
        value.models = try get("models", String.self)
        value.metadata = try get("metadata", Bool.self)
        value.pacing = try get("pacing", Bool.self)
        value.loop = try get("loop", Bool.self)
        value.exitAtEnd = try get("exitAtEnd", Bool.self)
        value.stdout = try get("stdout", Bool.self)
        value.stdoutQueue = try get("stdoutQueue", Int.self)
        value.maxPixels = try get("maxPixels", Int.self)
        value.logLevel = try get("logLevel", String.self)
        if c.contains(Key("socket")) {
            let s = try c.nestedContainer(keyedBy: Key.self, forKey: Key("socket"))
            try rejectUnknown(s, known: ["path", "group", "clientQueue", "stallTimeout", "sendBuffer"], at: "socket.")
            value.socket.path = try s.decodeIfPresent(String.self, forKey: Key("path"))
            value.socket.group = try s.decodeIfPresent(String.self, forKey: Key("group"))
            value.socket.clientQueue = try s.decodeIfPresent(Int.self, forKey: Key("clientQueue"))
            value.socket.stallTimeout = try s.decodeIfPresent(Double.self, forKey: Key("stallTimeout"))
            value.socket.sendBuffer = try s.decodeIfPresent(Int.self, forKey: Key("sendBuffer"))
        }
        if c.contains(Key("controls")) {
            // Camera controls (issue 18): an object of control name → number, boolean or menu item name.
            let k = try c.nestedContainer(keyedBy: Key.self, forKey: Key("controls"))
            var controls: [String: String] = [:]
            for key in k.allKeys {
                if let b = try? k.decode(Bool.self, forKey: key) { controls[key.stringValue] = b ? "1" : "0" }
                else if let n = try? k.decode(Int64.self, forKey: key) { controls[key.stringValue] = String(n) }
                else if let s = try? k.decode(String.self, forKey: key) { controls[key.stringValue] = s }
                else { throw ConfigKeyError(path: ["controls", key.stringValue], message: "'controls.\(StrictJSON.printable(key.stringValue))' takes a whole number, true/false or a menu item name") }
            }
            value.controls = controls
        }
        if c.contains(Key("mqtt")) { value.mqtt = try MQTTConfigSection(from: c.superDecoder(forKey: Key("mqtt"))) }
        if c.contains(Key("presence")) {
            let p = try c.nestedContainer(keyedBy: Key.self, forKey: Key("presence"))
            try rejectUnknown(p, known: ["enabled", "appearAfterFrames", "lostAfter", "cooldown", "faceLostAfter"], at: "presence.")
            value.presence.enabled = try p.decodeIfPresent(Bool.self, forKey: Key("enabled"))
            value.presence.appearAfterFrames = try p.decodeIfPresent(Int.self, forKey: Key("appearAfterFrames"))
            value.presence.lostAfter = try p.decodeIfPresent(Double.self, forKey: Key("lostAfter"))
            value.presence.cooldown = try p.decodeIfPresent(Double.self, forKey: Key("cooldown"))
            value.presence.faceLostAfter = try p.decodeIfPresent(Double.self, forKey: Key("faceLostAfter"))
        }
    }
}
