/// Exit codes. `scand scan`'s are listed once, in ``scanTable``: `scan --help` prints it, and the README's and
/// the man page's exit-status tables repeat it word for word (scandTests compares them).
public enum ExitStatus {
    public static let success: Int32 = 0
    /// At least one input could not be read or decoded, or (`--annotate`) an annotated image could not be
    /// written; the others were scanned and their results printed.
    public static let inputFailed: Int32 = 1
    /// A model, device or output failed so nothing could be scanned (also: the open-file or address-space limit
    /// leaves too little to start).
    public static let failure: Int32 = 2
    /// `scand scan`: every input was scanned but none held an object (with `--raw`: no value was printed);
    /// `run --oneshot` ended (its input, or `--timeout`) without one. Failures (1, 2) take precedence.
    public static let nothingFound: Int32 = 4
    /// ArgumentParser's usage error code (EX_USAGE).
    public static let usage: Int32 = 64

    /// `scand scan`'s exit statuses and what each means, in the order of precedence (the first that applies
    /// wins) after 2: the one source of the tables in `scan --help`, the README and the man page.
    public static let scanTable: [(status: Int32, meaning: String)] = [
        (
            success,
            "every input was scanned and at least one of them held an object of --types (or --oneshot found its object, or the reader of stdout went away, as when piped into head: a normal end)"
        ),
        (
            inputFailed,
            "some inputs failed, or an --annotate image could not be written (each is named on stderr); the others were scanned and their lines printed"
        ),
        (
            failure,
            "nothing could be scanned: every input failed, a model or the device failed, or a start-up limit (open files, address space) is too low; or writing stdout failed, so the output is incomplete"
        ),
        (
            nothingFound,
            "every input was scanned, but none held an object of --types (with --raw: no value was printed); an input without an object among inputs with objects is not an error (unlike zbarimg)"
        ),
        (usage, "usage error: a bad option or value, or an unknown option, named on stderr"),
    ]

    /// The order in which `scand scan`'s statuses win when several apply.
    public static let scanPrecedence = "2, then 1, then 4, then 0"

    /// ``scanTable`` as `scan --help` prints it: one `CODE: meaning` line each.
    public static var scanHelp: String {
        scanTable.map { "  \($0.status): \($0.meaning)" }.joined(separator: "\n")
    }
}
