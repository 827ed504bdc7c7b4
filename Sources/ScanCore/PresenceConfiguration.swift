/// How presence (`appeared` / `lost`) is decided for code values and faces. Times are in seconds of
/// stream time (the source's own clock: frame time for files, capture time for cameras), so a replay
/// gives the same events whether it is paced or not.
public struct PresenceConfiguration: Sendable, Hashable {
    /// Emit `appeared` / `lost` events at all.
    public var enabled: Bool
    /// A code value (or face) must be seen in this many frames before it counts as present (debounce).
    public var appearAfterFrames: Int
    /// A present code value is reported `lost` once it has not been seen for this long (grace period).
    public var lostAfter: Double
    /// After `lost`, the same code value gives no new `appeared` for this long (re-scan cooldown).
    public var cooldown: Double
    /// Grace period for faces (by faceID); faces have no cooldown: a new faceID is a new face.
    public var faceLostAfter: Double
    /// What one presence of a code is: its value (every symbol with that type and payload) or each symbol
    /// (its `trackID`).
    public var by: PresenceBy
    /// Which `appeared` events of a code value are published (Scandit's duplicate filter).
    public var duplicateFilter: DuplicateFilter

    public init(
        enabled: Bool = true, appearAfterFrames: Int = 1, lostAfter: Double = 1.0,
        cooldown: Double = 0.5, faceLostAfter: Double = 0.5, by: PresenceBy = .value,
        duplicateFilter: DuplicateFilter = .off
    ) {
        self.by = by
        self.duplicateFilter = duplicateFilter
        self.enabled = enabled
        self.appearAfterFrames = appearAfterFrames
        self.lostAfter = lostAfter
        self.cooldown = cooldown
        self.faceLostAfter = faceLostAfter
    }

    /// Checks ranges; the error names the setting (`presence.lostAfter`, `--lost-after`).
    public func validate() throws(InvalidSetting) {
        try Setting.appearAfter.check(appearAfterFrames)
        try Setting.lostAfter.check(lostAfter)
        try Setting.cooldown.check(cooldown)
        try Setting.faceLostAfter.check(faceLostAfter)
        if case .within(let seconds) = duplicateFilter { try Setting.duplicateFilter.check(seconds) }
    }
}

/// What one presence (`appeared` … `lost`) of a code is (`--presence value|instance`, `presence.by`).
public enum PresenceBy: String, Sendable, Hashable, CaseIterable, Codable {
    /// Every symbol of one type and payload together: two copies of a ticket in view are one presence (the
    /// kiosk's rule, and the default).
    case value
    /// Each symbol, by its track (`trackID`): five identical labels passing are five presences, each
    /// `appeared`/`lost` carrying its `trackID`; a symbol lost and read again far away is a new one. No
    /// cooldown applies (a new track is a new symbol). A still image, whose symbols have no track, falls back to
    /// `value`.
    case instance
}

/// Which `appeared` events of a code value are published (`--duplicate-filter`, `presence.duplicateFilter`),
/// with Scandit's meaning of its duplicate filter. A filtered `appeared` is not published, nor the `lost`
/// that ends that presence. Faces are not filtered.
public enum DuplicateFilter: Sendable, Hashable, CustomStringConvertible {
    /// Every time it appears (the default).
    case off
    /// Once per run: the first `appeared` of a type and payload only.
    case once
    /// Not again within this many seconds of stream time after its last published `appeared`.
    case within(Double)

    /// `off`, `once`, or a number of seconds; nil for anything else.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "off": self = .off
        case "once": self = .once
        default:
            guard let seconds = Double(text), seconds.isFinite else { return nil }
            self = .within(seconds)
        }
    }

    /// `off`, `once`, or the seconds.
    public var description: String {
        switch self {
        case .off: return "off"
        case .once: return "once"
        case .within(let s): return "\(s)"
        }
    }
}

extension DuplicateFilter: Codable {
    /// A config file gives `"off"`, `"once"`, or seconds (a number, or a string of one).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let seconds = try? c.decode(Double.self) {
            self = .within(seconds)
            return
        }
        let text = try c.decode(String.self)
        guard let value = DuplicateFilter(parsing: text) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "must be \"off\", \"once\" or seconds, got '\(text)'")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .within(let s): try c.encode(s)
        default: try c.encode(description)
        }
    }
}
