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
    /// The values a number takes (nil: any value of its type, or a check of its own beside the type).
    public let bounds: Bounds?

    public init(
        _ key: String, flag: String?, aliases: [String] = [], valueName: String? = nil, bounds: Bounds? = nil,
        help: String
    ) {
        self.key = key
        self.flag = flag
        self.aliases = aliases
        self.valueName = valueName
        self.bounds = bounds
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

extension Setting {
    /// Checks `value` against ``bounds``: the error reads `must be 1...16, got 20` and names the setting both
    /// ways (`--scan-density …` on the command line, `'scanDensity' …` in a file).
    public func check(_ value: Int) throws(InvalidSetting) {
        guard let bounds, !bounds.contains(Double(value)) else { return }
        throw InvalidSetting(self, "must be \(bounds), got \(value)")
    }

    /// Checks `value` against ``bounds`` (a value that is not finite is outside them).
    public func check(_ value: Double) throws(InvalidSetting) {
        guard let bounds, !(value.isFinite && bounds.contains(value)) else { return }
        throw InvalidSetting(self, "must be \(bounds), got \(value)")
    }
}

/// The values a numeric ``Setting`` takes, declared with it; its description is what an error says after
/// "must be": `1...16`, `0 (off) or 120...8192`, `more than 0 and at most 86400 seconds`.
public struct Bounds: Sendable, Hashable, CustomStringConvertible {
    /// The smallest value (or the value it must exceed, when ``lowOpen``).
    public let low: Double
    /// The value must be more than ``low``, not equal to it.
    public let lowOpen: Bool
    /// The largest value (or the value it must stay under, when ``highOpen``); nil: no upper bound.
    public let high: Double?
    /// The value must be less than ``high``.
    public let highOpen: Bool
    /// A value outside the range that switches the setting off (`0 (off) or …`).
    public let off: Double?
    /// The only values, when the range is a short list (`0, 1 or 2`).
    public let choices: [Int]?
    /// The unit the error names after the range (`seconds`, `pixels`, `bytes`).
    public let unit: String?
    /// A note after the range: `(0: no cap)`.
    public let note: String?

    private init(
        low: Double, lowOpen: Bool = false, high: Double?, highOpen: Bool = false, off: Double? = nil,
        choices: [Int]? = nil, unit: String? = nil, note: String? = nil
    ) {
        self.low = low
        self.lowOpen = lowOpen
        self.high = high
        self.highOpen = highOpen
        self.off = off
        self.choices = choices
        self.unit = unit
        self.note = note
    }

    /// `low...high`, both included; `off`, when given, is also taken (it switches the setting off).
    public static func range(_ r: ClosedRange<Int>, off: Int? = nil, unit: String? = nil, note: String? = nil) -> Bounds
    {
        Bounds(low: Double(r.lowerBound), high: Double(r.upperBound), off: off.map(Double.init), unit: unit, note: note)
    }

    /// `low...high`, both included, for a number with a fraction.
    public static func range(_ r: ClosedRange<Double>, unit: String? = nil) -> Bounds {
        Bounds(low: r.lowerBound, high: r.upperBound, unit: unit)
    }

    /// More than `low` and at most `high`.
    public static func above(_ low: Double, atMost high: Double, unit: String? = nil) -> Bounds {
        Bounds(low: low, lowOpen: true, high: high, unit: unit)
    }

    /// More than `low` and less than `high`.
    public static func between(_ low: Double, and high: Double) -> Bounds {
        Bounds(low: low, lowOpen: true, high: high, highOpen: true)
    }

    /// `low` or more.
    public static func atLeast(_ low: Int, unit: String? = nil) -> Bounds {
        Bounds(low: Double(low), high: nil, unit: unit)
    }

    /// One of `values`.
    public static func oneOf(_ values: [Int]) -> Bounds {
        Bounds(low: Double(values.min() ?? 0), high: Double(values.max() ?? 0), choices: values)
    }

    /// Whether `value` is taken.
    public func contains(_ value: Double) -> Bool {
        if let choices { return choices.contains { Double($0) == value } }
        if let off, value == off { return true }
        let aboveLow = lowOpen ? value > low : value >= low
        guard let high else { return aboveLow }
        return aboveLow && (highOpen ? value < high : value <= high)
    }

    public var description: String {
        let range: String
        if let choices {
            let names = choices.map(String.init)
            range = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        } else if let high {
            switch (lowOpen, highOpen) {
            case (false, false): range = "\(plainNumber(low))...\(plainNumber(high))"
            case (true, false): range = "more than \(plainNumber(low)) and at most \(plainNumber(high))"
            default: range = "more than \(plainNumber(low)) and less than \(plainNumber(high))"
            }
        } else {
            range = "at least \(plainNumber(low))"
        }
        let offText = off.map { "\(plainNumber($0)) (off) or " } ?? ""
        return offText + range + (unit.map { " " + $0 } ?? "") + (note.map { " " + $0 } ?? "")
    }

}

/// A number as a user writes it: no trailing `.0` (`86400`, `0.5`). Help texts, range errors, the effective
/// settings and view sizes print numbers with it.
public func plainNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
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
