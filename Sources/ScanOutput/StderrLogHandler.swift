public import Logging
import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// scand's log handler: one line per message on stderr, in swift-log's `StreamLogHandler` layout
/// (`2026-11-23T03:29:35+0000 error scand: key=value [module] message`), with every control character in
/// the message and the metadata escaped as JSON escapes it (`\n`, `\t`, `\u001b`, …).
///
/// A file name, a payload or a client command can therefore never forge a second log line or send an
/// escape sequence to the operator's terminal.
///
/// On a terminal (stderr is a tty and not the journal) lines are short, as other Unix tools write them:
/// `scand: nope.png: cannot read: no such file` for errors, `scand: warning: …` and `scand: notice: …` (the level) for
/// the others, the metadata after the message; no timestamp, no module tag. Files, pipes and journald get
/// the full form. Each line is written with one `write(2)`; a failed write
/// to stderr is ignored (logs must never stop the pipeline).
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let fd: Int32

    /// - Parameters:
    ///   - label: the logger's label (shown after the level).
    ///   - fd: where lines go (stderr by default).
    /// Journal form (systemd-journald reads stderr): no timestamp (the journal keeps its own) and a
    /// `<N>` syslog priority prefix on each line, which journald strips and stores as the priority.
    private let journal: Bool
    /// The short form for a person at a terminal.
    private let terminal: Bool

    /// - Parameters:
    ///   - label: the logger's label (shown after the level).
    ///   - fd: where lines go (stderr by default).
    ///   - journal: write the journal form; default: whether `fd` is the stream `$JOURNAL_STREAM` names.
    ///   - terminal: write the short form; default: whether `fd` is a terminal (and not the journal).
    public init(label: String, fd: Int32 = 2, journal: Bool? = nil, terminal: Bool? = nil) {
        self.label = label
        self.fd = fd
        let journal =
            journal ?? Self.isJournalStream(fd: fd, environment: getenv("JOURNAL_STREAM").map { String(cString: $0) })
        self.journal = journal
        self.terminal = terminal ?? (!journal && isatty(fd) == 1)
    }

    /// Whether `fd` is the journal's stream: `$JOURNAL_STREAM` is `DEVICE:INODE` of the stream systemd
    /// connected, and a process whose stderr was redirected elsewhere (a pipe to a file) must not use the
    /// journal form although it inherited the variable (systemd.exec(5)).
    public static func isJournalStream(fd: Int32, environment value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    /// The syslog priority journald stores for `level` (sd-daemon(3)'s `<N>` prefixes).
    public static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { _, new in new } }
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        let meta =
            all.isEmpty
            ? ""
            : " "
                + all.sorted { $0.key < $1.key }
                .map { "\(Self.escaped($0.key))=\(Self.escaped("\($0.value)"))" }.joined(separator: " ")
        let message = Self.escaped(event.message.description)
        let line: String
        if journal {
            line = "<\(Self.syslogPriority(event.level))>\(event.level) \(label):\(meta) [\(event.source)] \(message)\n"
        } else if terminal {
            let level = event.level >= .error ? "" : "\(event.level): "
            line = "\(label): \(level)\(message)\(meta)\n"
        } else {
            line = "\(Self.timestamp()) \(event.level) \(label):\(meta) [\(event.source)] \(message)\n"
        }
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 { offset += n } else if n < 0 && Errno.last == .interrupted { continue } else { return }
            }
        }
    }

    /// `text` with control characters (C0, DEL, C1, U+2028, U+2029) escaped as JSON does.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: InputPath.isControl) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            guard InputPath.isControl(s) else {
                out.append(s)
                continue
            }
            let escape: String
            switch s {
            case "\n": escape = "\\n"
            case "\r": escape = "\\r"
            case "\t": escape = "\\t"
            case "\u{08}": escape = "\\b"
            case "\u{0C}": escape = "\\f"
            default:
                let hex = String(s.value, radix: 16)
                escape = "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "-" }
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
