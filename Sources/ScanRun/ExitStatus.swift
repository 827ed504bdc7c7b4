/// Exit codes (documented in the README).
public enum ExitStatus {
    public static let success: Int32 = 0
    /// At least one input could not be read or decoded; the others were scanned.
    public static let inputFailed: Int32 = 1
    /// A model, device or output failed so nothing could be scanned (also: the open-file or address-space limit
    /// leaves too little to start).
    public static let failure: Int32 = 2
    /// Every input was scanned but some held no object (`scand scan`, as zbarimg), or `run --oneshot` ended
    /// without one; failures (1, 2) take precedence.
    public static let nothingFound: Int32 = 4
    /// ArgumentParser's usage error code (EX_USAGE).
    public static let usage: Int32 = 64
}
