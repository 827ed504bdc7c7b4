import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Waiting costs nothing (issue 52): a daemon waiting for an absent camera sleeps; no timer wakes it.
@Suite struct IdleTests {
    /// Voluntary context switches of every thread of `pid` (each is a wake-up after a wait).
    static func wakeups(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { sum, t in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
            return sum + (line.flatMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0)
        }
    }

    @Test func waitingForAnAbsentCameraWakesNoThread() throws {
        let dir = DaemonPaths.tempDir("idle")
        defer { DaemonPaths.remove(dir) }
        let d = try DaemonProcess(["run", "--device", dir + "/video-absent", "--stdout", "--log-level", "notice"], dir: dir)
        #expect(daemonEventually(15) { d.stderr.contains("waiting for it to appear") }, "\(d.stderr)")
        usleep(1_500_000) // start-up settles
        let before = Self.wakeups(d.pid)
        usleep(5_000_000)
        let woke = Self.wakeups(d.pid) - before
        // Before: the pipeline thread woke every 0.25 s (20 in 5 s) to look for a reload.
        #expect(woke <= 5, "\(woke) wake-ups in 5 s while waiting for a camera")
        #expect(d.terminate() == 0, "\(d.stderr)")
    }
}
