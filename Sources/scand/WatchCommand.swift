import ArgumentParser
import FoundationEssentials
import ScanCore
import ScanDaemon
import ScanKit
import ScanRun
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// `scand watch`: a client of a running `scand run`'s socket, in the spirit of gpsd's gpspipe.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the events of a running 'scand run' from its Unix socket (like gpspipe).",
        discussion: """
            Prints the events as JSON lines (not the hello banner nor the subscribed reply; what is in view when \
            connecting comes first, as appeared events marked "snapshot":true), or with --raw the value of each \
            code that appears, one per line. --types and --events are sent as a subscribe command and also \
            applied here.

            "Next" (-n 1): the first event printed after connecting. Without --new-only that is the connect \
            snapshot when something is in view, so a code already held up is printed at once (and again on every \
            run while it stays in view). With --new-only the snapshot is skipped: only objects that come into view \
            after connecting are printed (appeared events without "snapshot"), so a code that stays in view across \
            the connection is never printed, while one that leaves (its lost event) and comes back is. --new-only \
            prints appeared, lost (of those new objects only), device and overflow events, never metadata (each \
            metadata event lists everything in view). --match REGEX keeps only objects whose value matches: a \
            partial match (a search, as grep does: anchor it with ^ and $ for a full match); an object with no \
            text value (a face, a binary payload) never matches, and device events are not filtered.

            Exit status: 0 at least one event was printed, 1 none (the -x/--timeout time ran out, with a message \
            on stderr, or the daemon closed the connection), 2 cannot connect (the message names the path), 64 \
            usage error.

            EXAMPLES:
              scand watch -n 1 --new-only --types qr --raw   # the next QR held up after connecting
              scand watch -n 1 --new-only --types qr --raw --timeout 30 || echo "no code in 30 s"
              scand watch --new-only --match '^TICKET-[0-9]+$' --raw   # ticket codes only, full match
              scand watch -x 10 | jq -c 'select(.event=="lost")'
            """)

    @Option(name: .long, help: ArgumentHelp("The daemon's socket.", valueName: "path"))
    var socket: String = "/run/scand/scand.sock"

    @Option(name: .customShort("n"), help: ArgumentHelp("Exit after printing this many events.", valueName: "count"))
    var count: Int?

    @Option(
        name: [.customShort("x"), .customLong("timeout")],
        help: ArgumentHelp(
            "Exit after this many seconds (status 1, with a message on stderr, when nothing was printed by then).",
            valueName: "seconds"))
    var seconds: Double?

    @Flag(
        name: .long,
        help:
            "Skip what is in view when connecting (the snapshot): print only objects that come into view afterwards (appeared, their lost, device and overflow events; no metadata)."
    )
    var newOnly = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Print only objects whose text value matches this regular expression (a partial match, as grep: use ^ and $ for a full one); objects with no text value never match.",
            valueName: "regex"))
    var match: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Comma-separated types to print (device events always pass), or 'all'/'codes'.", valueName: "types"))
    var types: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Comma-separated events to print: metadata, appeared, lost, device.", valueName: "events"))
    var events: String?

    @Flag(
        name: .long,
        help:
            "Print only the value of each code that appears (appeared events; faces and binary payloads are not printed), one per line."
    )
    var raw = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("-n must be at least 1, got '\(count)'") }
        if let seconds, !(seconds > 0 && seconds.isFinite) {
            throw ValidationError("-x must be a positive number of seconds, got '\(seconds)'")
        }
        _ = try filter()
        _ = try valueFilter()
        if newOnly, let events, events.split(separator: ",").contains(where: { $0.filter { $0 != " " } == "metadata" })
        {
            throw ValidationError(
                "--new-only prints no metadata events (each lists everything in view); drop 'metadata' from --events")
        }
    }

    /// `--match` compiled (nil: no filter).
    /// - Throws: `ValidationError` echoing the pattern and the parser's reason.
    func valueFilter() throws -> Regex<AnyRegexOutput>? {
        guard let match else { return nil }
        do { return try Regex(match) } catch {
            throw ValidationError("--match '\(match)' is not a valid regular expression: \(error)")
        }
    }

    /// The subscription as parsed from the flags.
    func filter() throws -> (types: Set<MetadataObjectType>?, events: Set<String>?) {
        var typeSet: Set<MetadataObjectType>?
        if let types {
            do {
                typeSet = try MetadataObjectType.parseList(
                    types, available: MetadataOutput.availableMetadataObjectTypes)
            } catch ScanError.invalidArgument(let m) { throw ValidationError(m) }
        }
        var eventSet: Set<String>?
        if let events {
            let known: Set<String> = ["metadata", "appeared", "lost", "device"]
            let list = events.split(separator: ",").map { String($0.filter { $0 != " " }) }
            for e in list where !known.contains(e) {
                throw ValidationError(
                    "unknown event '\(e)' in --events; events: \(known.sorted().joined(separator: ","))")
            }
            eventSet = Set(list)
        }
        return (typeSet, eventSet)
    }

    private struct Line: Decodable {
        struct Object: Decodable {
            var type: String
            var value: String?
        }
        var event: String?
        var type: String?
        var value: String?
        var bytes: String?
        var faceID: Int?
        var snapshot: Bool?
        var objects: [Object]?
        var message: String?

        /// What tells one object's appeared and lost apart from another's.
        var key: String { "\(type ?? "")\u{0}\(value ?? "")\u{0}\(bytes ?? "")\u{0}\(faceID.map(String.init) ?? "")" }
    }

    func run() throws {
        let (typeSet, eventSet) = try filter()
        var selection = Selection(types: typeSet, events: eventSet, newOnly: newOnly, match: try valueFilter())
        let fd = try connectOrExit()
        defer { close(fd) }
        if typeSet != nil || eventSet != nil {
            struct Subscribe: Encodable {
                struct Body: Encodable {
                    var types: [String]?
                    var events: [String]?
                }
                var subscribe: Body
            }
            let command = Subscribe(
                subscribe: .init(types: typeSet?.map(\.rawValue).sorted(), events: eventSet?.sorted()))
            var bytes = [UInt8]((try? JSONEncoder().encode(command)) ?? Data())
            bytes.append(0x0A)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        let out = FileDescriptorOutput()
        let deadline = seconds.map { MonotonicInstant.now.advanced(by: .seconds($0)) }
        var printed = 0
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        reading: while true {
            var wait: Int32 = -1
            if let deadline {
                let left = MonotonicInstant.now.duration(to: deadline).inSeconds
                if left <= 0 { break }
                wait = Int32(min(Double(Int32.max), (left * 1000).rounded(.up)))
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, wait)
            if ready < 0 {
                if Errno.last == .interrupted { continue }
                break
            }
            if ready == 0 { continue }
            let n = read(fd, &chunk, chunk.count)
            if n < 0 {
                if Errno.last == .interrupted || Errno.last == .resourceTemporarilyUnavailable { continue }
                break
            }
            if n == 0 { break }  // the daemon closed the connection (it stopped)
            buffer += chunk[0..<n]
            while let nl = buffer.firstIndex(of: 0x0A) {
                let lineBytes = Array(buffer[...nl])
                buffer.removeSubrange(...nl)
                guard let text = printable(lineBytes, selection: &selection) else { continue }
                if !out.write(text) { break reading }  // stdout's reader went away
                printed += 1
                if let count, printed >= count { break reading }
            }
        }
        if printed == 0 {
            if let seconds, let deadline, MonotonicInstant.now >= deadline {
                writeStderr(
                    "scand watch: nothing printed within \(seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds)) s (-x/--timeout)\n"
                )
            }
            throw ExitCode(1)
        }
    }

    /// What `run` keeps of the flags while reading: the filters, and (`--new-only`) the objects of the
    /// connect snapshot still in view, whose `lost` is not printed either.
    struct Selection {
        var types: Set<MetadataObjectType>?
        var events: Set<String>?
        var newOnly: Bool
        var match: Regex<AnyRegexOutput>?
        var snapshotKeys: Set<String> = []

        /// Whether `value` passes `--match` (nil: no text value, which never matches).
        func matches(_ value: String?) -> Bool {
            guard let match else { return true }
            guard let value else { return false }
            return (try? match.firstMatch(in: value)) != nil
        }
    }

    /// What to print for one line from the daemon (nil: nothing).
    private func printable(_ line: [UInt8], selection: inout Selection) -> [UInt8]? {
        let types = selection.types
        let events = selection.events
        guard let parsed = try? JSONDecoder().decode(Line.self, from: Data(line)), let event = parsed.event else {
            return nil
        }
        switch event {
        case "hello", "subscribed", "polled", "devices": return nil
        case "error":
            writeStderr("scand watch: the daemon says: \(parsed.message ?? "error")\n")
            return nil
        default: break
        }
        if let events, !events.contains(event), event != "overflow" { return nil }
        if let types, event != "device", event != "overflow" {
            var concerned = Set<MetadataObjectType>()
            if let t = parsed.type.flatMap(MetadataObjectType.init(rawValue:)) { concerned.insert(t) }
            for o in parsed.objects ?? [] { if let t = MetadataObjectType(rawValue: o.type) { concerned.insert(t) } }
            if types.isDisjoint(with: concerned) { return nil }
        }
        if selection.newOnly {
            if event == "metadata" { return nil }
            if event == "appeared" && parsed.snapshot == true {
                selection.snapshotKeys.insert(parsed.key)
                return nil
            }
            if event == "lost" && selection.snapshotKeys.remove(parsed.key) != nil { return nil }
        }
        if selection.match != nil, event != "device", event != "overflow" {
            if event == "metadata" {
                if !(parsed.objects ?? []).contains(where: { selection.matches($0.value) }) { return nil }
            } else if !selection.matches(parsed.value) {
                return nil
            }
        }
        guard raw else { return line }
        guard event == "appeared", let type = parsed.type.flatMap(MetadataObjectType.init(rawValue:)) else {
            return nil
        }
        let payload = parsed.bytes.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
        return RawValue.line(type: type, value: parsed.value, payload: payload, rawBytes: false).line
    }

    /// Connects to `socket`; exits 2 with one line naming the path when it cannot.
    private func connectOrExit() throws -> Int32 {
        func fail(_ why: String) -> ExitCode {
            writeStderr("scand watch: cannot connect to \(socket): \(why)\n")
            return ExitCode(ExitStatus.failure)
        }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socket.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard !path.isEmpty, path.count < capacity else { throw fail("path longer than \(capacity - 1) bytes") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.enumerated() { raw[i] = b }
        }
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw fail(Errno.last.description) }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc != 0 {
            let e = Errno.last
            close(fd)
            throw fail(e.description)
        }
        return fd
    }
}

/// Writes whole buffers to stdout with write(2); false once the reader is gone or writing failed.
private struct FileDescriptorOutput {
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if n < 0 {
                if Errno.last == .interrupted { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
