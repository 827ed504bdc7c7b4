import Foundation
import Testing
import ScanTestSupport
import ScanDaemon
#if canImport(Glibc)
import Glibc
#endif

/// A systemd-like notification socket: a Unix datagram socket bound at `path`, read without blocking; each
/// message is kept with its arrival time. The descriptor is closed when released.
final class NotifySocket {
    let path: String
    private let fd: Int32
    private(set) var messages: [(time: Date, text: String)] = []

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        let fd = self.fd
        let rc = withUnixAddress(path) { bind(fd, $0, $1) }
        guard rc == 0 else { close(fd); throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit { close(fd) }

    /// Reads what has arrived; returns every message so far.
    @discardableResult
    func drain() -> [(time: Date, text: String)] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            messages.append((Date(), String(decoding: buffer[0..<n], as: UTF8.self)))
        }
        return messages
    }

    /// The arrival times of `WATCHDOG=1`.
    var pings: [Date] { drain().filter { $0.text.split(separator: "\n").contains("WATCHDOG=1") }.map(\.time) }
}

/// The systemd watchdog (issue 52): with `WATCHDOG_USEC` set, scand pings `WATCHDOG=1` on `$NOTIFY_SOCKET`
/// while its pipeline makes progress or legitimately waits, and stops when the pipeline hangs in a frame
/// (the `SCAND_TEST_HANG_PIPELINE_AFTER` test hook plants the hang).
@Suite(.serialized) struct WatchdogTests {
    static func environment(_ notify: NotifySocket, extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["NOTIFY_SOCKET"] = notify.path
        env["WATCHDOG_USEC"] = "1000000"
        env.removeValue(forKey: "WATCHDOG_PID")
        return env.merging(extra) { $1 }
    }

    @Test func pingsWhileFramesAreProcessedAndStopWhenThePipelineHangs() throws {
        let dir = DaemonPaths.tempDir("wd")
        defer { DaemonPaths.remove(dir) }
        let notify = try NotifySocket(path: dir + "/notify")
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--stdout", "--log-level", "notice"], dir: dir,
                                  environment: Self.environment(notify, extra: ["SCAND_TEST_HANG_PIPELINE_AFTER": "40"]))
        // 10 frames/s: 4 s of pings, then the hang.
        #expect(daemonEventually(15) { d.stderr.contains("the pipeline hangs now") }, "\(d.stderr)")
        let before = notify.pings
        #expect(before.count >= 5, "pings while frames were processed: \(before.count)")
        #expect(notify.drain().contains { $0.text.contains("READY=1") })
        // The hang is seen after half the timeout (0.5 s); from then on, no ping.
        usleep(1_500_000)
        let settled = notify.pings.count
        usleep(3_000_000)
        #expect(notify.pings.count == settled, "pings went on during the hang")
        // At most the pings of the half timeout it takes to call a frame stuck (period 0.5 s).
        #expect(settled - before.count <= 2, "\(settled - before.count) pings after the hang")
        #expect(d.stderr.contains("watchdog pings stopped"), "\(d.stderr)")
        #expect(notify.drain().contains { $0.text.hasPrefix("STATUS=pipeline stuck") })
        #expect(d.process.isRunning, "the hung process is systemd's to kill")
        d.signal(SIGKILL)
    }

    @Test func waitingForAnAbsentCameraKeepsThePingsGoing() throws {
        let dir = DaemonPaths.tempDir("wd-absent")
        defer { DaemonPaths.remove(dir) }
        let notify = try NotifySocket(path: dir + "/notify")
        let d = try DaemonProcess(["run", "--device", dir + "/video-absent", "--stdout", "--log-level", "notice"], dir: dir,
                                  environment: Self.environment(notify))
        #expect(daemonEventually(15) { d.stderr.contains("waiting for it to appear") }, "\(d.stderr)")
        let start = notify.pings.count
        usleep(3_000_000)
        #expect(notify.pings.count - start >= 4, "a legitimate wait is not a hang")
        #expect(d.terminate() == 0, "\(d.stderr)")
    }

    @Test func noWatchdogWithoutWatchdogUsecOrForAnotherPID() {
        #expect(SystemdNotifier(socketPath: "/run/x", watchdog: nil).watchdogTimeout == nil)
        #expect(SystemdNotifier.watchdogTimeout(usec: "30000000", pid: nil, ownPID: 7) == 30)
        #expect(SystemdNotifier.watchdogTimeout(usec: "30000000", pid: "7", ownPID: 7) == 30)
        #expect(SystemdNotifier.watchdogTimeout(usec: "30000000", pid: "8", ownPID: 7) == nil)
        #expect(SystemdNotifier.watchdogTimeout(usec: "0", pid: nil, ownPID: 7) == nil)
        #expect(SystemdNotifier.watchdogTimeout(usec: "soon", pid: nil, ownPID: 7) == nil)
        // No notification socket, no watchdog (there is nobody to ping).
        #expect(SystemdNotifier(socketPath: nil, watchdog: 30).watchdogTimeout == nil)
    }
}
