public import ScanCore
import FoundationEssentials

/// The `scand run --config FILE` format: one JSON object; every key is optional and command-line flags
/// override it. Unknown keys are errors (a typo must not be silently ignored). See docs/daemon.md.
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
    public var scanDensity: Int?
    public var models: String?
    public var metadata: Bool?
    public var pacing: Bool?
    public var loop: Bool?
    public var exitAtEnd: Bool?
    public var stdout: Bool?
    public var logLevel: String?
    public var socket = Socket()
    public var presence = Presence()

    public init() {}

    /// Reads and parses `path`.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the file and the problem.
    public static func load(path: String) throws -> DaemonConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            throw ScanError.invalidArgument("\(path): cannot read config file (missing or unreadable)")
        }
        return try parse([UInt8](data), name: path)
    }

    /// Parses a config document; `name` names it in errors.
    public static func parse(_ bytes: [UInt8], name: String) throws -> DaemonConfigFile {
        do {
            return try JSONDecoder().decode(Coded.self, from: Data(bytes)).value
        } catch let error as ScanError {
            throw error
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx) {
            throw ScanError.invalidArgument("\(name): wrong type at \(pathText(ctx.codingPath)): \(ctx.debugDescription)")
        } catch let DecodingError.dataCorrupted(ctx) {
            throw ScanError.invalidArgument("\(name): not valid JSON\(ctx.codingPath.isEmpty ? "" : " at " + pathText(ctx.codingPath)): \(ctx.debugDescription)")
        } catch {
            throw ScanError.invalidArgument("\(name): \(error)")
        }
    }

    static func pathText(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "top level" : path.map(\.stringValue).joined(separator: ".")
    }
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
        throw ScanError.invalidArgument("unknown config key '\(prefix)\(k.stringValue)' (known: \(known.sorted().joined(separator: ", ")))")
    }
}

private struct Coded: Decodable {
    var value = DaemonConfigFile()

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        try rejectUnknown(c, known: ["input", "device", "types", "rectOfInterest", "tryInverted", "scanDensity", "models",
                                     "metadata", "pacing", "loop", "exitAtEnd", "stdout", "logLevel", "socket", "presence"], at: "")
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
            guard r.count == 4 else { throw ScanError.invalidArgument("rectOfInterest takes [x, y, width, height]") }
            value.rectOfInterest = NormalizedRect(x: r[0], y: r[1], width: r[2], height: r[3])
        }
        value.tryInverted = try get("tryInverted", Bool.self)
        value.scanDensity = try get("scanDensity", Int.self)
        value.models = try get("models", String.self)
        value.metadata = try get("metadata", Bool.self)
        value.pacing = try get("pacing", Bool.self)
        value.loop = try get("loop", Bool.self)
        value.exitAtEnd = try get("exitAtEnd", Bool.self)
        value.stdout = try get("stdout", Bool.self)
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
