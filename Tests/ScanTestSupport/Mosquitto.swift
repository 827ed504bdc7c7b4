import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Eclipse Mosquitto broker (Debian `mosquitto`) for the MQTT tests: its own config, password file,
/// persistence database and log in a temporary directory, listening on a free loopback port.
/// Stopped (SIGTERM, which saves the persistence database) and started again on the same port on demand.
public final class MosquittoBroker: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `process` (a Foundation `Process`, not Sendable) is replaced only by
    // `start`/`stop`, which a test calls from one task at a time; everything else is immutable.
    public let directory: TemporaryDirectory
    public let port: Int
    private var process: Process?
    public var configPath: String { directory.url.appendingPathComponent("mosquitto.conf").path }
    public var logPath: String { directory.url.appendingPathComponent("broker.log").path }

    /// - Parameters:
    ///   - users: name → password; when given, anonymous clients are refused.
    ///   - tls: (CA, certificate, key) PEM paths: the listener speaks TLS only.
    public init(users: [String: String] = [:], tls: (ca: String, cert: String, key: String)? = nil) throws {
        directory = try TemporaryDirectory()
        port = try Self.freePort()
        var conf = """
        listener \(port) 127.0.0.1
        persistence true
        persistence_location \(directory.url.path)/
        max_queued_messages 100000
        log_dest stderr
        log_type error
        log_type warning
        log_type notice

        """
        if getuid() == 0 { conf += "user root\n" } // as root, mosquitto would switch to user 'mosquitto'
        if users.isEmpty {
            conf += "allow_anonymous true\n"
        } else {
            let pw = directory.url.appendingPathComponent("passwords").path
            _ = FileManager.default.createFile(atPath: pw, contents: nil)
            for (user, password) in users { _ = try runTool("/usr/bin/mosquitto_passwd", ["-b", pw, user, password]) }
            conf += "allow_anonymous false\npassword_file \(pw)\n"
        }
        if let tls { conf += "cafile \(tls.ca)\ncertfile \(tls.cert)\nkeyfile \(tls.key)\n" }
        try conf.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    /// Starts mosquitto and waits until its port accepts connections (10 s at most).
    public func start() throws {
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        let (program, arguments) = withDefaultSignals("/usr/sbin/mosquitto", ["-c", configPath])
        let p = try TestProcess.start(program.path, arguments, stdout: .handle(log), stderr: .handle(log))
        process = p
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.accepts(port: port) { return }
            if !p.isRunning { break }
            usleep(20_000)
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "mosquitto did not start: \(log)"])
    }

    /// SIGTERM and wait (mosquitto saves its persistence database).
    public func stop() {
        guard let p = process else { return }
        process = nil
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        p.waitUntilExit()
    }

    /// The broker's log so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// A port nobody listens on now (bound to 0 and released).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard ok else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// `mosquitto_sub -v` as a real consumer: a persistent session (`-c -i ID`, QoS 1) so that it gets what was
/// published while it or the broker was away; its output ("TOPIC PAYLOAD" lines) goes to a file.
public final class MosquittoSubscriber: @unchecked Sendable {
    // Invariant for @unchecked Sendable: every stored property is immutable; `Process` is not Sendable, but the
    // only calls made on it after init (isRunning, processIdentifier, waitUntilExit, at stop) are thread-safe.
    private let process: Process
    public let outputPath: String
    private let port: Int
    private let extra: [String]

    /// Starts the subscriber on `topics` (plus a probe topic) and returns once it is subscribed (a probe
    /// message published with `mosquitto_pub` came back).
    public init(port: Int, topics: [String], directory: TemporaryDirectory, clientID: String = "scand-test-sub",
                extraArguments: [String] = [], host: String = "127.0.0.1") throws {
        self.port = port
        self.extra = extraArguments
        outputPath = directory.url.appendingPathComponent("sub-\(clientID)-\(UUID().uuidString).txt").path
        let (program, arguments) = withDefaultSignals(
            "/usr/bin/mosquitto_sub", ["-h", host, "-p", "\(port)", "-v", "-q", "1", "-c", "-i", clientID, "-t", "probe/ready"]
                + topics.flatMap { ["-t", $0] } + extraArguments)
        process = try TestProcess.start(program.path, arguments, stdout: .file(outputPath))
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            _ = try? runTool("/usr/bin/mosquitto_pub", ["-h", host, "-p", "\(port)", "-q", "1", "-t", "probe/ready", "-m", "ready"] + extraArguments)
            usleep(100_000)
            if lines().contains(where: { $0.topic == "probe/ready" }) { return }
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "mosquitto_sub did not subscribe"])
    }

    deinit { stop() }

    public func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() }
    }

    /// Every message so far, in arrival order (the probe included).
    public func lines() -> [(topic: String, payload: String)] {
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// Payloads on `topic`, in arrival order.
    public func payloads(on topic: String) -> [String] { lines().filter { $0.topic == topic }.map(\.payload) }
}

/// Runs `program` with an empty signal mask: a child started from a libdispatch worker thread inherits that
/// thread's mask, with SIGTERM blocked, and mosquitto would then never see the SIGTERM that makes it save
/// its persistence database and exit.
func withDefaultSignals(_ program: String, _ arguments: [String]) -> (URL, [String]) {
    (URL(fileURLWithPath: "/usr/bin/python3"),
     ["-c", "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
      program] + arguments)
}

/// A CA and a server certificate for `localhost`/127.0.0.1 signed by it, made with `openssl` in `directory`.
public func makeTestCertificates(in directory: TemporaryDirectory) throws -> (ca: String, cert: String, key: String) {
    let d = directory.url.path
    let openssl = "/usr/bin/openssl"
    _ = try runTool(openssl, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=scand test CA",
                              "-keyout", d + "/ca.key", "-out", d + "/ca.pem"])
    _ = try runTool(openssl, ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                              "-keyout", d + "/server.key", "-out", d + "/server.csr"])
    try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: d + "/san.ext", atomically: true, encoding: .utf8)
    _ = try runTool(openssl, ["x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.pem", "-CAkey", d + "/ca.key",
                              "-CAcreateserial", "-days", "2", "-extfile", d + "/san.ext", "-out", d + "/server.pem"])
    return (d + "/ca.pem", d + "/server.pem", d + "/server.key")
}
