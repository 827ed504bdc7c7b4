import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// File names as the kernel passed them. Swift's `CommandLine.arguments` (and so ArgumentParser) repairs
/// bytes that are not UTF-8 into U+FFFD, which would make such a file impossible to open; this finds the raw
/// bytes behind a parsed value again.
enum RawArguments {
    /// Every argv entry as raw bytes.
    static let all: [[UInt8]] = (0..<Int(CommandLine.argc)).map { i in
        guard let p = CommandLine.unsafeArgv[i] else { return [] }
        return Array(
            UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
    }

    /// The path behind a parsed argument `value`: its raw argv bytes when the parsed text was repaired
    /// (holds U+FFFD), else the text's UTF-8. Handles both `--opt VALUE` and `--opt=VALUE`.
    static func path(_ value: String) -> InputPath {
        guard value.unicodeScalars.contains("\u{FFFD}") else { return InputPath(value) }
        for raw in all.dropFirst() {
            if String(decoding: raw, as: UTF8.self) == value { return InputPath(bytes: raw) }
            if raw.starts(with: [0x2D, 0x2D]), let eq = raw.firstIndex(of: 0x3D),
                String(decoding: raw[(eq + 1)...], as: UTF8.self) == value
            {
                return InputPath(bytes: Array(raw[(eq + 1)...]))
            }
        }
        return InputPath(value)
    }
}

/// Reads a list of paths as raw bytes. `-` reads the list from stdin.
///
/// One per line (the default): LF or CRLF line ends (the CR is not part of the name), empty lines and lines
/// that begin with `#` (comments) skipped; a file whose name begins with `#` is written `./#NAME`.
/// `nulSeparated` (`-0`, as `find -print0` writes): names end with a NUL byte (the last one may not), taken
/// exactly (a CR, a newline or a leading `#` is part of the name); empty names skipped.
/// - Throws: ``ScanError/unreadableInput(input:reason:)`` naming the list.
func readPathList(_ list: InputPath, nulSeparated: Bool = false) throws -> [InputPath] {
    let fd: Int32
    if list.isStandardInput {
        fd = 0
    } else {
        fd = (list.bytes + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { open($0, O_RDONLY | O_CLOEXEC) }
        }
        guard fd >= 0 else {
            throw ScanError.unreadableInput(input: list.displayName, reason: Errno.last.description)
        }
    }
    defer { if fd != 0 { close(fd) } }
    var out: [InputPath] = []
    var line: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let separator: UInt8 = nulSeparated ? 0 : 0x0A
    func flush() {
        if !nulSeparated {
            while let last = line.last, last == 0x0D { line.removeLast() }
            if line.first == UInt8(ascii: "#") { line.removeAll(keepingCapacity: true) }
        }
        if !line.isEmpty { out.append(InputPath(bytes: line)) }
        line.removeAll(keepingCapacity: true)
    }
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n < 0 {
            if Errno.last == .interrupted { continue }
            throw ScanError.unreadableInput(input: list.displayName, reason: Errno.last.description)
        }
        if n == 0 { break }
        for b in buffer[0..<n] {
            if b == separator { flush() } else { line.append(b) }
        }
    }
    flush()
    return out
}
