import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's Unix socket as an operator meets it: whose file the path is at shutdown, what happens when
/// descriptors run out, and the listen backlog. Real daemons, real clients, `prlimit` and `ss`.
@Suite struct SocketOwnershipTests {
    let scand = DaemonPaths.scand

    func startDaemon(_ sock: String, dir: String, executable: String = DaemonPaths.scand, prefix: [String] = []) throws -> DaemonProcess {
        try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--loop", "--log-level", "notice"],
                          dir: dir, executable: executable, prefix: prefix)
    }

    /// The first line a new client gets within `timeout` seconds, parsed (returns as soon as it arrives).
    func firstLine(_ c: BannerClient, within timeout: Double) -> DaemonEventLine? {
        c.firstLine(within: timeout).flatMap(DaemonEventLine.init)
    }

    @Test func replacedSocketFileIsLeftInPlaceAtShutdown() throws {
        let dir = DaemonPaths.tempDir("own")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try startDaemon(sock, dir: dir)
        #expect(d.waitReady())
        // Someone removes the socket and puts their own file at the path while scand runs.
        #expect(unlink(sock) == 0)
        try "not scand's".write(toFile: sock, atomically: false, encoding: .utf8)
        #expect(d.terminate() == 0)
        #expect(daemonReadText(sock) == "not scand's", "scand deleted a file it did not create")
        #expect(d.stderr.contains("socket path now names another file; left in place"))
    }

    /// A run that fails after binding its socket (here the HTTP token file cannot be read) is a usage error and
    /// removes the socket file it made; it used to leave it behind.
    @Test func aRunThatCannotStartRemovesTheSocketItBound() throws {
        let dir = DaemonPaths.tempDir("failstart")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let r = try ScandBinary.run(["run", "--input", DaemonPaths.kiosk, "--socket", sock,
                                     "--http", "127.0.0.1:0", "--http-token", dir + "/no-such-token"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("no-such-token"))
        #expect(access(sock, F_OK) != 0, "the socket file of a run that never started was left behind")
    }

    @Test func secondDaemonOnTheSamePathKeepsItsSocketWhenTheFirstStops() throws {
        let dir = DaemonPaths.tempDir("own2")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let a = try startDaemon(sock, dir: dir)
        #expect(a.waitReady())
        #expect(unlink(sock) == 0)
        let dirB = DaemonPaths.tempDir("own2b")
        defer { DaemonPaths.remove(dirB) }
        let b = try startDaemon(sock, dir: dirB)
        #expect(b.waitReady())
        #expect(a.terminate() == 0)
        var st = stat()
        #expect(lstat(sock, &st) == 0 && (st.st_mode & S_IFMT) == S_IFSOCK, "A removed B's live socket")
        // B still serves on the path: hello, then events from its replay.
        let c = try DaemonSocketClient(path: sock)
        let lines = c.readLines(for: 3).lines.compactMap(DaemonEventLine.init)
        #expect(lines.first?.event == "hello")
        #expect(lines.contains { $0.event == "device" || $0.event == "appeared" || $0.event == "metadata" })
        #expect(b.terminate() == 0)
        #expect(access(sock, F_OK) != 0, "B removes its own socket file")
    }

    @Test func listeningSocketHasTheConfiguredBacklogAndMode() throws {
        let dir = DaemonPaths.tempDir("backlog")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try startDaemon(sock, dir: dir)
        #expect(d.waitReady())
        // `ss -lxn`: for a listening socket, Send-Q is the backlog.
        let out = dir + "/ss.txt"
        let ss = try DaemonRun.start("/bin/ss", ["-lxn"], stdout: out)
        #expect(DaemonRun.wait(ss, timeout: 10) == 0)
        let row = daemonReadText(out).split(separator: "\n").first { $0.contains(sock) }
        let fields = row?.split(separator: " ", omittingEmptySubsequences: true).map(String.init) ?? []
        #expect(fields.count >= 5 && fields[0] == "u_str" && fields[1] == "LISTEN")
        #expect(fields.count >= 5 && fields[3] == "1024", "ss row: \(row.map(String.init) ?? "none")")
        var st = stat()
        #expect(lstat(sock, &st) == 0 && st.st_mode & 0o7777 == 0o660)
        #expect(d.terminate() == 0)
    }

    /// CPU seconds (utime + stime) of a process, or of one of its threads.
    func cpuSeconds(_ statPath: String) -> Double {
        let text = daemonReadText(statPath)
        guard let close = text.lastIndex(of: ")") else { return -1 }
        let f = text[text.index(after: close)...].split(separator: " ")
        guard f.count > 12, let u = Double(f[11]), let s = Double(f[12]) else { return -1 }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The daemon's event-loop thread (SwiftNIO names it `NIO-ELT-…`).
    func eventLoopThreadStat(_ pid: Int32) -> String? {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.map { "/proc/\(pid)/task/\($0)" }
            .first { daemonReadText($0 + "/comm").hasPrefix("NIO-ELT") }.map { $0 + "/stat" }
    }

    @Test func outOfDescriptorsPausesAcceptingInsteadOfSpinning() throws {
        let dir = DaemonPaths.tempDir("nofile")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        // A limit just above what scand asks for at start-up (StartupDescriptors.minimumFree, 32 free; the
        // daemon itself uses ~12 of them).
        let d = try startDaemon(sock, dir: dir, executable: "/usr/bin/prlimit", prefix: ["--nofile=40:40", DaemonPaths.scand])
        #expect(d.waitReady())
        let elt = try #require(eventLoopThreadStat(d.pid))

        // Connect until a client gets no banner: the daemon is out of descriptors.
        var accepted: [BannerClient] = []
        var waiting: BannerClient?
        while accepted.count < 80 {
            let c = try BannerClient(path: sock)
            if firstLine(c, within: 0.7)?.event == "hello" { accepted.append(c) } else { waiting = c; break }
        }
        let pending = try #require(waiting, "never ran out of descriptors with \(accepted.count) clients")
        #expect(accepted.count >= 3)

        // Keep connecting for 3 s (they queue in the backlog) and watch the CPU time.
        let cpu0 = cpuSeconds("/proc/\(d.pid)/stat"), loop0 = cpuSeconds(elt)
        var queued: [BannerClient] = []
        let end = Date().addingTimeInterval(3)
        while Date() < end {
            queued.append(try BannerClient(path: sock))
            usleep(100_000)
        }
        let process = cpuSeconds("/proc/\(d.pid)/stat") - cpu0, loopThread = cpuSeconds(elt) - loop0
        #expect(loopThread >= 0 && loopThread < 0.3, "event loop used \(loopThread) s CPU in 3 s (process \(process) s)")
        #expect(process < 1.0, "daemon used \(process) s CPU in 3 s")
        let warnings = d.stderr.components(separatedBy: "cannot accept new clients").count - 1
        #expect(warnings == 1, "one log line for the episode, not one per failure (got \(warnings))")

        // A client leaves: the first waiting client is accepted and greeted.
        accepted.removeLast(3)
        #expect(firstLine(pending, within: 3)?.event == "hello")
        // Everyone queued goes away; a newcomer gets the banner and then events.
        queued.removeAll()
        accepted.removeAll()
        usleep(500_000)
        let newcomer = try DaemonSocketClient(path: sock)
        var got: [DaemonEventLine] = []
        let deadline = Date().addingTimeInterval(8)
        while Date() < deadline && !got.contains(where: { $0.event != "hello" }) {
            got += newcomer.readLines(for: 0.5).lines.compactMap(DaemonEventLine.init)
        }
        #expect(got.first?.event == "hello")
        #expect(got.contains { $0.event != "hello" }, "no events after the pause: \(got.map(\.event))")
        #expect(d.stderr.contains("accepting clients again"))
        #expect(d.terminate() == 0)
    }
}

/// A client that only connects and reads its first line, returning as soon as it arrives (the harness's
/// client reads for its whole timeout, too slow for connecting dozens of clients one after another).
final class BannerClient {
    private let fd: Int32

    init(path: String) throws { fd = try connectUnixSocket(path) }

    deinit { close(fd) }

    /// The first line (without its newline) received within `timeout` seconds, nil if none.
    func firstLine(within timeout: Double) -> String? {
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var byte: UInt8 = 0
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(1, min(200, deadline.timeIntervalSinceNow * 1000)))
            guard poll(&p, 1, ms) > 0 else { continue }
            guard read(fd, &byte, 1) == 1 else { return nil }
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}
