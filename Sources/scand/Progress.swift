import ScanCore
import ScanKit

#if canImport(Glibc)
    import Glibc
#endif

/// `scand scan`'s progress line on a terminal: once an input has taken more than ``delay`` seconds, a line
/// `scanning NAME: frame N (T s), E s` is redrawn at most every ``interval`` seconds on stderr, and erased
/// when the input ends. Nothing is written when stderr is not a terminal.
final class ProgressLine: Sendable {
    let delay: Double
    let interval: Double
    /// The input being scanned, when it started and when the line was last drawn.
    private struct State {
        var input = ""
        var started = MonotonicInstant(nanoseconds: 0)
        var lastDraw = MonotonicInstant(nanoseconds: 0)
        var shown = false
    }
    private let state = Locked(State())

    init(delay: Double = 2, interval: Double = 0.25) {
        self.delay = delay
        self.interval = interval
    }

    /// Whether stderr is a terminal (the progress line is drawn only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    /// One frame of `name` was scanned.
    func frame(input name: String, frames: Int, time: Double) {
        let now = MonotonicInstant.now
        let text = state.withLock { state -> String? in
            if name != state.input || frames == 1 {
                Self.erase(&state)
                state.input = name
                state.started = now
            }
            let running = state.started.duration(to: now)
            guard running >= .seconds(delay), state.lastDraw.duration(to: now) >= .seconds(interval) else { return nil }
            state.lastDraw = now
            state.shown = true
            return
                "scanning \(InputPath.escapedText(Array(name.utf8))): frame \(frames) (\(format1(time)) s), \(format1(running.inSeconds)) s"
        }
        if let text { writeStderr("\r\u{1B}[K" + text) }
    }

    /// Erases the line, if one was drawn.
    func finishInput() { state.withLock { Self.erase(&$0) } }

    private static func erase(_ state: inout State) {
        if state.shown { writeStderr("\r\u{1B}[K") }
        state.shown = false
    }
}

/// A number of seconds with one decimal.
func format1(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(abs(tenths % 10))"
}

/// zbarimg's last line, for scand: `scanned 5 objects from 3 inputs (150 frames) in 1.23 seconds`, plus the
/// inputs that failed or held no object.
func summaryLine(_ summary: ScanSummary, seconds: Double) -> String {
    func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
    var text =
        "scanned \(plural(summary.objects, "object")) from \(plural(summary.inputs, "input")) (\(plural(summary.frames, "frame"))) in \(String(format: seconds)) seconds"
    var notes: [String] = []
    if !summary.failedInputs.isEmpty { notes.append("\(summary.failedInputs.count) failed") }
    if !summary.inputsWithoutObjects.isEmpty { notes.append("\(summary.inputsWithoutObjects.count) with no object") }
    if !notes.isEmpty { text += " (" + notes.joined(separator: ", ") + ")" }
    return text
}

extension String {
    /// Seconds with two decimals.
    init(format seconds: Double) {
        let hundredths = Int((seconds * 100).rounded())
        let rest = hundredths % 100
        self = "\(hundredths / 100).\(rest < 10 ? "0" : "")\(rest)"
    }
}
