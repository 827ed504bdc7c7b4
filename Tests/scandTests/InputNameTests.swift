import Foundation
import Testing
import ScanTestSupport
import ScanOutput
#if canImport(Glibc)
import Glibc
#endif

/// File names as users have them: not UTF-8, with control characters, in CRLF lists; and what reaches
/// the log from them.
@Suite("input names and log escaping", .serialized)
struct InputNameTests {
    /// Creates a file whose name is `nameBytes` (raw) in `dir`, with `contents`.
    static func makeFile(dir: String, nameBytes: [UInt8], contents: [UInt8]) -> [UInt8] {
        let path = Array(dir.utf8) + [0x2F] + nameBytes
        let fd = (path + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        }
        precondition(fd >= 0, "cannot create test file")
        _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        return path
    }

    /// Runs scand with raw-byte arguments (Foundation's Process takes Strings, which cannot hold them).
    static func runRaw(_ args: [[UInt8]], stdout: String, stderr: String) -> Int32 {
        let argv = ([Array(DaemonPaths.scand.utf8)] + args).map { $0 + [0] }
        var pointers: [UnsafeMutablePointer<CChar>?] = argv.map { bytes in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
            return p
        }
        pointers.append(nil)
        defer { for p in pointers { p?.deallocate() } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, DaemonPaths.scand, &actions, nil, pointers, environ)
        precondition(rc == 0, "posix_spawn failed: \(rc)")
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status >> 8) & 0xFF
    }

    @Test("a file name that is not UTF-8 opens, and source shows it escaped")
    func nonUTF8Name() throws {
        let dir = DaemonPaths.tempDir("names")
        defer { DaemonPaths.remove(dir) }
        let qr = try Fixtures.bytes("exact.png")
        let path = Self.makeFile(dir: dir, nameBytes: [0x63, 0xFF, 0xFE, 0x2E, 0x70, 0x6E, 0x67], contents: qr) // c\xff\xfe.png
        let status = Self.runRaw([Array("scan".utf8), path], stdout: dir + "/out", stderr: dir + "/err")
        #expect(status == 0, "\(daemonReadText(dir + "/err"))")
        let line = daemonReadText(dir + "/out")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["source"] as? String == dir + "/c\\xff\\xfe.png")
        #expect((object["objects"] as? [[String: Any]])?.first?["value"] as? String == "LOGIN:ab12")
    }

    @Test("a video whose name is not UTF-8 opens too")
    func nonUTF8VideoName() throws {
        let dir = DaemonPaths.tempDir("vnames")
        defer { DaemonPaths.remove(dir) }
        let clip = try Fixtures.bytes("clip.mp4")
        let path = Self.makeFile(dir: dir, nameBytes: [0x76, 0xE9, 0x2E, 0x6D, 0x70, 0x34], contents: clip) // v\xe9.mp4
        let status = Self.runRaw([Array("scan".utf8), path], stdout: dir + "/out", stderr: dir + "/err")
        #expect(status == 0, "\(daemonReadText(dir + "/err"))")
        let lines = daemonReadText(dir + "/out").split(separator: "\n")
        #expect(lines.count > 1)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["source"] as? String == dir + "/v\\xe9.mp4")
    }

    @Test("a CRLF --files-from list: the CR is not part of the name")
    func crlfList() throws {
        let dir = DaemonPaths.tempDir("crlf")
        defer { DaemonPaths.remove(dir) }
        let list = "\(Fixtures.path("exact.png"))\r\n\r\n\(Fixtures.path("multi.png"))\r\n"
        try list.write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        let r = try ScandBinary.run(["scan", "--files-from", dir + "/list.txt"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 2)
    }

    @Test("control characters in a file name never reach the log raw")
    func controlCharactersEscapedInLogs() throws {
        let dir = DaemonPaths.tempDir("ctl")
        defer { DaemonPaths.remove(dir) }
        // A name that would forge a log line and colour the terminal, holding a file that is not an image.
        let name = Array("x\n2026-01-01T00:00:00+0000 critical scand: forged\u{1B}[31m.png".utf8)
        let path = Self.makeFile(dir: dir, nameBytes: name, contents: Array("not an image".utf8))
        let status = Self.runRaw([Array("scan".utf8), path], stdout: dir + "/out", stderr: dir + "/err")
        #expect(status == 2)
        let err = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/err")))
        #expect(!err.contains(0x1B), "no raw ESC on stderr")
        // One log line, then the summary line (which names no input).
        #expect(err.filter { $0 == 0x0A }.count == 2, "exactly one log line and the summary: \(String(decoding: err, as: UTF8.self))")
        #expect(String(decoding: err, as: UTF8.self).split(separator: "\n").last?.hasPrefix("scanned 0 objects from 1 input") == true)
        #expect(String(decoding: err, as: UTF8.self).contains("x\\x0a2026-01-01"))
    }

    @Test("the log handler escapes control characters as JSON does")
    func escaping() {
        #expect(StderrLogHandler.escaped("plain text, ünïcode ✓") == "plain text, ünïcode ✓")
        #expect(StderrLogHandler.escaped("a\nb\r\tc") == "a\\nb\\r\\tc")
        #expect(StderrLogHandler.escaped("\u{1B}[31mred\u{7F}\u{85}\u{2028}") == "\\u001b[31mred\\u007f\\u0085\\u2028")
    }
}
