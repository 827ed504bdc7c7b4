import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Paths for the daemon tests: the built binary, the repository, the fixture scripts.
enum DaemonPaths {
    /// The package root (two levels above this file's folder).
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `.build/debug/scand` (or `$SCAND_BINARY`).
    static let scand: String = {
        if let env = ProcessInfo.processInfo.environment["SCAND_BINARY"] { return env }
        for candidate in [".build/debug/scand", ".build/x86_64-unknown-linux-gnu/debug/scand", ".build/aarch64-unknown-linux-gnu/debug/scand"] {
            let path = root + "/" + candidate
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return root + "/.build/debug/scand"
    }()

    static let client = root + "/Tests/Fixtures/daemon/client.py"
    static let python = "/usr/bin/python3"

    /// Fixture replays, generated once per test run by Tests/Fixtures/daemon/make_fixtures.py.
    static let fixtures: String = {
        let dir = NSTemporaryDirectory() + "scand-daemon-fixtures-\(getpid())"
        let p = try! DaemonRun.start(python, [root + "/Tests/Fixtures/daemon/make_fixtures.py", dir])
        p.waitUntilExit()
        precondition(p.terminationStatus == 0, "fixture generation failed (needs qrencode, python3-pil, python3-numpy)")
        return dir
    }()

    static var kiosk: String { fixtures + "/kiosk.y4m" }
    static var empty: String { fixtures + "/empty.y4m" }

    /// A fresh, short temporary directory (Unix socket paths are limited to 107 bytes).
    static func tempDir(_ tag: String) -> String {
        let dir = "/tmp/scand-t-\(tag)-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

enum DaemonRun {
    /// Starts `path args…` with stdout/stderr going to files (or /dev/null).
    static func start(_ path: String, _ args: [String], stdout: String? = nil, stderr: String? = nil,
                      environment: [String: String]? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        if let environment {
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            p.environment = env
        }
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = try stdout.map(handle) ?? FileHandle.nullDevice
        p.standardError = try stderr.map(handle) ?? FileHandle.nullDevice
        try p.run()
        return p
    }

    static func handle(_ path: String) throws -> FileHandle {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Waits for `p` to exit, up to `timeout` seconds; kills it (SIGKILL) after that. Returns the status or nil.
    @discardableResult
    static func wait(_ p: Process, timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit(); return nil }
        return p.terminationStatus
    }
}

/// Polls `condition` every 20 ms for up to `timeout` seconds.
func daemonEventually(_ timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

func daemonReadText(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// A running `scand run`, its stderr in a file.
final class DaemonProcess {
    let process: Process
    let dir: String
    let stderrPath: String
    let stdoutPath: String
    var pid: Int32 { process.processIdentifier }

    init(_ args: [String], dir: String, environment: [String: String]? = nil, executable: String = DaemonPaths.scand,
         prefix: [String] = []) throws {
        self.dir = dir
        stderrPath = dir + "/scand.err"
        stdoutPath = dir + "/scand.out"
        process = try DaemonRun.start(executable, prefix + args, stdout: stdoutPath, stderr: stderrPath, environment: environment)
    }

    var stderr: String { daemonReadText(stderrPath) }

    /// Waits for the "ready" log line (needs --log-level notice or lower).
    func waitReady(timeout: Double = 20) -> Bool {
        daemonEventually(timeout) { stderr.contains("] ready") || !process.isRunning }
            && process.isRunning
    }

    func signal(_ sig: Int32) { kill(pid, sig) }

    /// SIGTERM, then the exit status (nil if it had to be killed).
    func terminate(timeout: Double = 10) -> Int32? {
        signal(SIGTERM)
        return DaemonRun.wait(process, timeout: timeout)
    }

    /// Number of open descriptors (/proc/PID/fd).
    var openFDs: Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1 }
}

/// A line-reading client on plain sockets (the Swift client of the tests).
final class DaemonSocketClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 { let e = errno; close(fd); throw POSIXError(POSIXErrorCode(rawValue: e) ?? .EIO) }
    }

    deinit { close(fd) }

    func send(_ text: String) { _ = text.withCString { write(fd, $0, strlen($0)) } }

    /// Reads lines until EOF or `timeout` seconds; returns them and whether EOF was seen.
    func readLines(for timeout: Double) -> (lines: [String], eof: Bool) {
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(1, min(200, deadline.timeIntervalSinceNow * 1000)))
            guard poll(&p, 1, ms) > 0 else { continue }
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { return (lines, true) }
            buffer += chunk[0..<n]
            while let nl = buffer.firstIndex(of: 0x0A) {
                lines.append(String(decoding: buffer[..<nl], as: UTF8.self))
                buffer.removeSubrange(...nl)
            }
        }
        return (lines, false)
    }
}

/// One parsed event line.
struct DaemonEventLine {
    let raw: String
    let object: [String: Any]
    var event: String { object["event"] as? String ?? "" }
    var seq: Int? { (object["seq"] as? NSNumber)?.intValue }
    var type: String? { object["type"] as? String }
    var objectTypes: Set<String> {
        if let objects = object["objects"] as? [[String: Any]] { return Set(objects.compactMap { $0["type"] as? String }) }
        if let t = type { return [t] }
        return []
    }

    init?(_ raw: String) {
        guard let data = raw.data(using: .utf8),
              let obj = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        self.raw = raw; self.object = obj
    }
}

/// Parses a client.py output file ("<time> <line>" per line, plus EOF/TIMEOUT/RESET markers).
func parseDaemonClientFile(_ path: String) -> (events: [DaemonEventLine], times: [Double], end: String) {
    var events: [DaemonEventLine] = [], times: [Double] = [], end = ""
    for line in daemonReadText(path).split(separator: "\n") {
        if line.hasPrefix("EOF") || line == "TIMEOUT" || line == "RESET" { end = String(line.prefix(while: { $0 != " " })); continue }
        guard let space = line.firstIndex(of: " "), let t = Double(line[..<space]),
              let e = DaemonEventLine(String(line[line.index(after: space)...])) else { continue }
        events.append(e); times.append(t)
    }
    return (events, times, end)
}

/// True when the `seq` values are consecutive integers.
func isGaplessSeq(_ seqs: [Int]) -> Bool { zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 } }
