import CScanStderr
import Logging
import Testing
@testable import ScanOutput
#if canImport(Glibc)
import Glibc
#endif

/// LibraryStderr's stream, in this process: bytes printed on the C `stderr` through stdio, read back from the
/// log handler's pipe. (The real library's message, libzbar's, is scandTests' LibraryStderrTests.)
@Suite("LibraryStderr: the C stderr stream", .serialized)
struct LibraryStderrStreamTests {
    /// Routes to a StderrLogHandler writing into a pipe, runs `body`, stops routing and returns the lines.
    static func logLines(level: Logger.Level = .info, _ body: () -> Void) throws -> [String] {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        var logger = Logger(label: "t") { StderrLogHandler(label: $0, fd: fds[1], journal: false) }
        logger.logLevel = level
        try #require(LibraryStderr.route(to: logger))
        body()
        LibraryStderr.stopRouting()
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        close(fds[0])
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The text after the `[library] ` source of each line.
    static func messages(_ lines: [String]) -> [String] {
        lines.compactMap { line in line.range(of: " [library] ").map { String(line[$0.upperBound...]) } }
    }

    @Test("a message printed in pieces is one line, escaped; one fprintf of two lines is one line")
    func pieces() throws {
        let lines = try Self.logLines {
            fputs("first\tpart ", scan_stderr_current())
            fputs("and the rest\n", scan_stderr_current())
            fputs("two\n\tlines\n", scan_stderr_current())
        }
        #expect(Self.messages(lines) == [#"first\tpart and the rest"#, #"two\n\tlines"#], "\(lines)")
        #expect(lines.allSatisfy { $0.contains(" warning t: [library] ") }, "\(lines)")
    }

    @Test("a message without its newline is logged when routing stops; 4 KiB without one is cut there")
    func partialAndLong() throws {
        let long = String(repeating: "x", count: 5000)
        let lines = try Self.logLines {
            fputs(long, scan_stderr_current())
            fputs(" tail without newline", scan_stderr_current())
        }
        let messages = Self.messages(lines)
        #expect(messages.count == 2, "\(lines.count) lines")
        #expect(messages.first == String(repeating: "x", count: 4096))
        #expect(messages.last == String(repeating: "x", count: 904) + " tail without newline")
    }

    @Test("at --log-level error: a new kind is still shown once, its repeat is not; the Swift runtime's failure is critical")
    func levels() throws {
        let kind = "libfoo: warning \(UInt64.random(in: 0...UInt64.max))\n"
        let lines = try Self.logLines(level: .error) {
            fputs(kind, scan_stderr_current())
            fputs(kind, scan_stderr_current())
            fputs("Swift/ContiguousArrayBuffer.swift:600: Fatal error: Index out of range\n", scan_stderr_current())
            fputs("Fatal error: failed to allocate 12192800 bytes of memory with alignment 8\n", scan_stderr_current())
        }
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.contains(" warning t: [library] libfoo: warning ") == true, "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.contains(" critical t: [library] ") }, "\(lines)")
    }

    @Test("the Swift runtime's failure reports are told from other messages")
    func runtimeFailures() {
        #expect(LibraryStderr.isRuntimeFailure("Fatal error: failed to allocate 3031821 bytes of memory with alignment 8"))
        #expect(LibraryStderr.isRuntimeFailure("ScanKit/Frame.swift:12: Precondition failed: stride"))
        #expect(LibraryStderr.isRuntimeFailure("Swift/x.swift:1: Assertion failed"))
        #expect(!LibraryStderr.isRuntimeFailure(#"WARNING: decoder/databar.c:1265: _zbar_decode_databar: Assertion "seg->finder >= 0" failed."#))
        #expect(!LibraryStderr.isRuntimeFailure("libpng warning: iCCP: known incorrect sRGB profile"))
    }
}
