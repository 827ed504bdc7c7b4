internal import CScanStderr
public import Logging
import ScanCore

/// What C libraries print on the C `stderr` stream (libzbar's decoder assertions, or any other),
/// made into scand's log lines while a command runs.
///
/// Without this one input could put text outside scand's log format on stderr, with raw control characters:
/// a photo made libzbar print `WARNING: decoder/databar.c:1265: _zbar_decode_databar: Assertion
/// "seg->finder >= 0" failed.` and then a line starting with a tab. While routed, each message
/// a library prints (one `fprintf`, however many lines) becomes one log line of the logger's handler, source
/// `library`, with its control characters escaped as every log line's are (`StderrLogHandler`).
///
/// Levels. scand cannot tell how grave a library's message is, and before it went through in full at any log
/// level, so the first message of each kind (by its first line) is shown whatever `--log-level` is, as a
/// `warning`; its repeats are `debug`, so a warning a decoder prints on every frame does not flood the log.
/// After 256 kinds every new one is `debug` too. The Swift runtime prints its reason for stopping the process
/// (`Fatal error: failed to allocate … bytes`, `…: Precondition failed: …`) on the same stream: such a message
/// is `critical`. Without that, `--log-level error` hid why scand crashed (found under `prlimit --as`).
///
/// C++'s `std::cout`, `std::cerr` and `std::clog` are sent through the same stream from the first `route(to:)`
/// on (``scan_stderr_route_cxx_streams``): OpenCV's logger writes its warnings to `std::cerr`, and with
/// `OPENCV_LOG_LEVEL=INFO` in the environment its INFO lines went to `std::cout`, into the JSON lines on stdout
/// (`scand scan … | jq` then failed on `[ INFO:0@0.279] global … ParallelBackendRegistry …`).
///
/// scand's own log lines go to descriptor 2 directly and are not affected. Outside `route(to:)` …
/// `stopRouting()`, bytes printed on `stderr` go through unchanged, so argument-parser's usage and error
/// messages keep their form.
public enum LibraryStderr {
    /// The first lines already logged at `warning`, and the logger (nil: not routed).
    private final class Router: @unchecked Sendable {
        // Invariant for @unchecked Sendable: `logger` and `seen` are read and written only under `lock`.
        let lock = Lock()
        var logger: Logger?
        var seen: Set<String> = []
        static let maximumKinds = 256
    }

    private static let router = Router()

    /// Starts making what C libraries print on `stderr` into log lines of `logger` (its handler and level).
    /// Call again to change the logger. Returns false if the stream could not be replaced (then the bytes go
    /// through as before).
    @discardableResult
    public static func route(to logger: Logger) -> Bool {
        guard scan_stderr_install() == 0 else { return false }
        router.lock.withLock { router.logger = logger }
        scan_stderr_set_sink(
            { _, bytes, length in
                guard let bytes else { return }
                let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
                LibraryStderr.log(text)
            }, nil)
        return true
    }

    /// Lets bytes printed on `stderr` go through unchanged again; a message still waiting for its newline is
    /// logged first.
    public static func stopRouting() {
        scan_stderr_set_sink(nil, nil)
        router.lock.withLock { router.logger = nil }
    }

    /// The prefixes of the Swift runtime's reports before it stops the process (`_assertionFailure`'s and the
    /// allocator's), after an optional `file:line: `.
    static let runtimeFailures = ["Fatal error", "Precondition failed", "Assertion failed"]

    /// Whether `firstLine` is the Swift runtime's report of a failure that stops the process.
    static func isRuntimeFailure(_ firstLine: String) -> Bool {
        runtimeFailures.contains { failure in
            firstLine == failure || firstLine.hasPrefix(failure + ":") || firstLine.hasSuffix(": " + failure)
                || firstLine.contains(": " + failure + ":")
        }
    }

    /// Logs one message: `critical` if it is the Swift runtime's failure report; else `warning` the first time
    /// its first line is seen, at any log level, and `debug` after.
    static func log(_ message: String) {
        let firstLine = String(message.prefix { $0 != "\n" && $0 != "\r\n" })
        let (routed, first): (Logger?, Bool) = router.lock.withLock {
            guard let logger = router.logger else { return (nil, false) }
            guard router.seen.count < Router.maximumKinds || router.seen.contains(firstLine) else {
                return (logger, false)
            }
            return (logger, router.seen.insert(firstLine).inserted)
        }
        guard var logger = routed else { return }
        let level: Logger.Level
        if isRuntimeFailure(firstLine) {
            level = .critical
        } else if first {
            level = .warning
            logger.logLevel = .trace  // shown whatever --log-level is (the message went through before)
        } else {
            level = .debug
        }
        logger.log(level: level, "\(message)", source: "library")
    }
}
