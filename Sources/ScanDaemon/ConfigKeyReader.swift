import FoundationEssentials
import ScanCore

/// A config key that is unknown or out of range, with its path for the line and column.
struct ConfigKeyError: Error {
    var path: [String]
    var message: String

    init(path: [String], message: String) {
        self.path = path
        self.message = message
    }

    /// A setting's range error, as a file names it (`'presence.lostAfter' must be …`).
    init(_ error: InvalidSetting) {
        self.init(path: error.key.split(separator: ".").map(String.init), message: error.fileDescription)
    }
}

struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Reads one JSON object of the config file. Every key read is recorded; ``finish()`` then rejects the keys
/// nobody read, so a new key needs one line (`value.x = try r.get("x")`) and nothing else.
struct KeyReader {
    let container: KeyedDecodingContainer<Key>
    let prefix: String
    private(set) var known: Set<String> = []

    init(_ container: KeyedDecodingContainer<Key>, prefix: String = "") {
        self.container = container
        self.prefix = prefix
    }

    private func path(_ key: String) -> [String] { prefix.split(separator: ".").map(String.init) + [key] }

    /// The value of `setting` (its key inside this object), or of one of its older names; giving two of them
    /// is an error.
    mutating func get<T: Decodable>(_ setting: Setting, as: T.Type = T.self) throws -> T? {
        try get(setting.name, aliases: setting.aliases)
    }

    private mutating func get<T: Decodable>(_ key: String, as: T.Type = T.self) throws -> T? {
        known.insert(key)
        return try container.decodeIfPresent(T.self, forKey: Key(key))
    }

    private mutating func get<T: Decodable>(_ key: String, aliases: [String], as: T.Type = T.self) throws -> T? {
        if aliases.isEmpty { return try get(key) }
        let names = [key] + aliases
        let given = names.filter { container.contains(Key($0)) }
        if given.count > 1 {
            throw ConfigKeyError(
                path: path(given[1]),
                message: "'\(prefix)\(given[0])' and '\(prefix)\(given[1])' are the same setting: give one")
        }
        var value: T?
        for name in names { if let v: T = try get(name) { value = v } }
        return value
    }

    /// A key that takes either a plain value (`"socket": "/run/scand.sock"`, as the flag of the same name) or
    /// an object read by `body` (`"socket": {"path": …, "group": …}`).
    /// `plain` is the setting the plain value gives (`socket.path`); the key is its object's name.
    mutating func valueOrSection<T: Decodable>(
        _ plain: Setting, as: T.Type = T.self, value: (T) -> Void,
        section body: (inout KeyReader) throws -> Void
    ) throws {
        let key = plain.section ?? plain.key
        if container.contains(Key(key)), let v = try? container.decode(T.self, forKey: Key(key)) {
            known.insert(key)
            value(v)
            return
        }
        try section(key, body)
    }

    /// A string naming one case of `T` (its raw value), e.g. `"engine": "zxing"`.
    mutating func choice<T: CaseIterable & RawRepresentable>(_ setting: Setting, as: T.Type = T.self) throws -> T?
    where T.RawValue == String {
        let key = setting.name
        guard let text: String = try get(setting) else { return nil }
        guard
            let value = T(rawValue: text) ?? T.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() })
        else {
            throw ConfigKeyError(
                path: path(key),
                message:
                    "'\(prefix)\(key)' must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")), got '\(StrictJSON.printable(text))'"
            )
        }
        return value
    }

    /// A key that takes true, false or `word`, the default (nil), which is how `--check-config` prints the
    /// setting when it is unset (`"code39FullASCII": "evident"`), so its output reads back.
    mutating func bool(_ setting: Setting, or word: String) throws -> Bool? {
        for name in [setting.name] + setting.aliases where container.contains(Key(name)) {
            guard let text = try? container.decode(String.self, forKey: Key(name)) else { continue }
            known.insert(name)
            guard text == word else {
                throw ConfigKeyError(
                    path: path(name),
                    message:
                        "'\(prefix)\(name)' must be true, false or \"\(word)\", got '\(StrictJSON.printable(text))'")
            }
            return nil
        }
        return try get(setting)
    }

    /// A comma-separated string or an array of strings, joined with commas.
    mutating func list(_ setting: Setting) throws -> String? {
        let key = setting.name
        known.insert(key)
        guard container.contains(Key(key)) else { return nil }
        if let list = try? container.decode([String].self, forKey: Key(key)) { return list.joined(separator: ",") }
        return try container.decode(String.self, forKey: Key(key))
    }

    /// `[x, y, width, height]`.
    mutating func rect(_ setting: Setting) throws -> NormalizedRect? {
        let key = setting.name
        guard let r: [Double] = try get(setting) else { return nil }
        guard r.count == 4 else {
            throw ConfigKeyError(path: path(key), message: "'\(prefix)\(key)' takes [x, y, width, height]")
        }
        return NormalizedRect(x: r[0], y: r[1], width: r[2], height: r[3])
    }

    /// `"WxH"`, parsed by `parse`.
    mutating func size<T>(_ setting: Setting, _ parse: (String) -> T?) throws -> T? {
        let key = setting.name
        guard let text: String = try get(setting) else { return nil }
        guard let value = parse(text) else {
            throw ConfigKeyError(
                path: path(key),
                message:
                    "'\(prefix)\(key)' takes \"WxH\" with positive sizes (e.g. \"1280x720\"), got '\(StrictJSON.printable(text))'"
            )
        }
        return value
    }

    /// The decoder of a nested value that decodes itself (a section another module owns, e.g. `mqtt`); nil
    /// when absent. That section rejects its own unknown keys.
    mutating func decoder(_ key: String) throws -> (any Decoder)? {
        known.insert(key)
        guard container.contains(Key(key)) else { return nil }
        return try container.superDecoder(forKey: Key(key))
    }

    /// A nested object, read by `body`; nil when absent.
    mutating func section(_ key: String, _ body: (inout KeyReader) throws -> Void) throws {
        known.insert(key)
        guard container.contains(Key(key)) else { return }
        var inner = KeyReader(
            try container.nestedContainer(keyedBy: Key.self, forKey: Key(key)), prefix: prefix + key + ".")
        try body(&inner)
        try inner.finish()
    }

    /// Rejects every key that was not read.
    func finish() throws {
        for k in container.allKeys where !known.contains(k.stringValue) {
            let hint =
                closestName(to: k.stringValue, among: known, maximumDistance: 3).map {
                    "did you mean '\(prefix)\($0)'?"
                }
                ?? "known: \(known.sorted().joined(separator: ", "))"
            throw ConfigKeyError(
                path: path(k.stringValue),
                message: "unknown config key '\(prefix)\(StrictJSON.printable(k.stringValue))' (\(hint))")
        }
    }
}
