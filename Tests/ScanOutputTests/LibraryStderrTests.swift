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
    static func logLines(_ body: () -> Void) throws -> [String] {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let logger = Logger(label: "t") { StderrLogHandler(label: $0, fd: fds[1], journal: false) }
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
}
