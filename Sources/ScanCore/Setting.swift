/// One setting of `scand run`, declared once: its config-file key, its command-line flag, the older key names
/// still read, its help text and its range. Every other place takes the names from here: the flag's
/// `@Option`/`@Flag` (`name: .setting(.scanDensity)`), the config reader (`r.get(.scanDensity)`), the range
/// checks of the configuration types (``InvalidSetting``), `--check-config`'s effective settings and the man
/// page (generated from the flags' help). The catalogue is `Setting+Catalogue.swift` and
/// `Setting+Tuning.swift`; ``all`` lists it, and a test checks it against the flags of `scand run` and the keys
/// the config reader accepts, both ways.
public struct Setting: Sendable, Hashable, CustomStringConvertible {
    /// The config-file key path: `scanDensity`, `presence.lostAfter` (the key inside its object).
    public let key: String
    /// The long flag without its dashes (`scan-density`); nil for the few settings only a config file gives.
    public let flag: String?
    /// Older names of the key still read, inside the same object (`tryInverted` for `inverted`).
    public let aliases: [String]
    /// The value's name in help (`n`, `file`); nil for an on/off flag.
    public let valueName: String?
    /// One line of help: the flag's `--help` text and the man page.
    public let help: String

    public init(_ key: String, flag: String?, aliases: [String] = [], valueName: String? = nil, help: String) {
        self.key = key
        self.flag = flag
        self.aliases = aliases
        self.valueName = valueName
        self.help = help
    }

    /// The key inside its object: `lostAfter` for `presence.lostAfter`.
    public var name: String { key.split(separator: ".").last.map(String.init) ?? key }

    /// The object the key sits in (`presence`), nil at the top level.
    public var section: String? {
        let parts = key.split(separator: ".")
        return parts.count > 1 ? parts.dropLast().joined(separator: ".") : nil
    }

    /// How an error names the setting on the command line: `--scan-density` (the key for a file-only one).
    public var flagName: String { flag.map { "--" + $0 } ?? key }

    /// The flag, as errors on the command line name it.
    public var description: String { flagName }
}

extension InvalidSetting {
    /// An error naming `setting` both ways (its key and its flag).
    public init(_ setting: Setting, _ message: String) {
        self.init(key: setting.key, flag: setting.flagName, message)
    }

    /// Throws an error naming `setting` when `ok` is false.
    public static func check(_ ok: Bool, _ setting: Setting, _ message: @autoclosure () -> String)
        throws(InvalidSetting)
    {
        if !ok { throw InvalidSetting(setting, message()) }
    }
}
