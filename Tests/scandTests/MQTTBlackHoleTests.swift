import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP port that drops every new SYN, as a black-holed broker does: a listener that never accepts,
/// its accept queue filled by connections of its own (Linux drops SYNs to a full queue; the connecting side
/// retransmits for about two minutes). Closes its descriptors when released.
final class BlackHolePort {
    let port: Int
    private var fds: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EIO) }
        fds.append(listener)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) == 0 && getsockname(listener, $0, &len) == 0 }
        }
        guard bound, listen(listener, 0) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: addr.sin_port))
        // Fill the accept queue (backlog 0 holds one; a few more make sure), without blocking.
        for _ in 0..<4 {
            let c = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard c >= 0 else { continue }
            fds.append(c)
            var to = addr
            _ = withUnsafePointer(to: &to) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(c, $0, len) } }
        }
        usleep(300_000)
    }

    deinit { fds.forEach { close($0) } }

    /// Whether a fresh blocking connect gets nowhere within `seconds` (the port really is a black hole).
    func swallows(within seconds: Int) -> Bool {
        let c = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(c) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(c, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var p = pollfd(fd: c, events: Int16(POLLOUT), revents: 0)
        return poll(&p, 1, Int32(seconds * 1000)) == 0
    }
}

/// An unreachable (black-holed) broker never holds scand: the connection attempt is bounded
/// (`mqtt.connectTimeout`), reported, retried; the other sinks go on; SIGTERM ends the run at once (issue 52).
@Suite(.serialized) struct MQTTBlackHoleTests {
    @Test func aBlackHoledBrokerIsReportedAndRetriedAndNeverDelaysTheStop() throws {
        let hole = try BlackHolePort()
        #expect(hole.swallows(within: 1), "the port answers: the test's black hole does not hold")
        let dir = DaemonPaths.tempDir("mqtt-hole")
        defer { DaemonPaths.remove(dir) }
        let config = dir + "/scand.json"
        try #"{"mqtt": {"url": "mqtt://127.0.0.1:\#(hole.port)", "connectTimeout": 1, "reconnectMax": 1}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", config, "--input", DaemonPaths.kiosk, "--loop", "--stdout",
                                   "--log-level", "notice"], dir: dir)
        // Each attempt ends after 1 s with one error line (the same reason is reported once, then at debug).
        #expect(daemonEventually(10) { d.stderr.contains("connection failed: no answer within 1 s") }, "\(d.stderr)")
        // Meanwhile stdout is served, frame after frame.
        let before = daemonReadText(d.stdoutPath).count
        #expect(daemonEventually(5) { daemonReadText(d.stdoutPath).count > before })
        let events = daemonReadText(d.stdoutPath).split(separator: "\n").compactMap { DaemonEventLine(String($0)) }
        #expect(events.contains { $0.event == "device" && $0.object["kind"] as? String == "runtimeError"
                    && ($0.object["reason"] as? String ?? "").contains("no answer within 1 s") },
                "the failed attempt is an event for the scripts")
        // A stop in the middle of an attempt is immediate: before, a blocking connect held the MQTT thread
        // (SIGTERM took 8 s, and the thread was left behind).
        let t0 = Date()
        let status = d.terminate(timeout: 10)
        let took = Date().timeIntervalSince(t0)
        #expect(status == 0, "\(d.stderr)")
        #expect(took < 2, "SIGTERM took \(took) s with a black-holed broker")
        #expect(!d.stderr.contains("did not finish in time"), "\(d.stderr)")
    }

    @Test func theConnectTimeoutIsCheckedInTheConfigFile() throws {
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("scand.json").path
        try #"{"input": "\#(DaemonPaths.kiosk)", "mqtt": {"url": "mqtt://127.0.0.1:1883", "connectTimeout": 0}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let r = try ScandBinary.run(["run", "--check-config", config])
        #expect(r.status != 0 && r.stderr.contains("mqtt.connectTimeout"), "\(r.stderr)")
    }
}
