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

    public init(
        enabled: Bool = true, appearAfterFrames: Int = 1, lostAfter: Double = 1.0,
        cooldown: Double = 0.5, faceLostAfter: Double = 0.5
    ) {
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
    }
}
