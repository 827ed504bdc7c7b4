import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// scand under a low open-file limit (`prlimit --nofile`), with the real binary. Before the start-up check
/// (`StartupDescriptors`), libdispatch trapped (SIGILL, no message) when its event loop could not get a
/// descriptor: always at `--nofile=4`, and at 5 or 6 depending on whether an input was opened first;
/// `scand run` trapped in SwiftNIO at 8 and, with `--http`, at 20.
@Suite("open-file limit", .serialized)
struct DescriptorLimitTests {
    struct Outcome {
        var exited: Bool
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `prlimit --nofile=SOFT:HARD scand ARGS` in the fixtures folder and reports how it ended: an exit
    /// (with its status) or a signal (`exited` false, `status` the signal number).
    static func run(soft: Int, hard: Int, _ args: [String], timeout: Double = 60) throws -> Outcome {
        let dir = DaemonPaths.tempDir("nofile-\(soft)")
        defer { DaemonPaths.remove(dir) }
        return try underLimit("--nofile=\(soft):\(hard)", args, in: dir, timeout: timeout)
    }

    /// Runs `prlimit LIMIT scand ARGS` in the fixtures folder, with stdout and stderr in files of `dir`, and
    /// reports how it ended; `status` -1 when it was still running after `timeout` seconds
    /// (``TestProcess/wait(_:timeout:)`` then kills it). The one runner of both suites in this file.
    static func underLimit(_ limit: String, _ args: [String], in dir: String, timeout: Double) throws -> Outcome {
        let p = try TestProcess.start("/usr/bin/prlimit", [limit, DaemonPaths.scand] + args,
                                      directory: Fixtures.directory, stdout: .file(dir + "/out"), stderr: .file(dir + "/err"))
        let status = TestProcess.wait(p, timeout: timeout)
        return Outcome(exited: status != nil && p.terminationReason == .exit, status: status ?? -1,
                       stdout: daemonReadText(dir + "/out"), stderr: daemonReadText(dir + "/err"))
    }

    static let inputs = ["clip-420jpeg.y4m", "clip-422.y4m", "exact.png"]

    @Test("a limit too low to start: exit 2 with one message saying so, never a signal, nothing on stdout")
    func tooLowIsAClearError() throws {
        for limit in [4, 5, 6, 8, 12, 20, 30] {
            for _ in 0..<2 { // the old trap at 5 and 6 came and went with thread timing
                let r = try Self.run(soft: limit, hard: limit, ["scan"] + Self.inputs)
                #expect(r.exited, "--nofile=\(limit): killed by signal \(r.status); stderr: \(r.stderr)")
                #expect(r.status == 2, "--nofile=\(limit): \(r.stderr)")
                #expect(r.stdout.isEmpty, "--nofile=\(limit)")
                #expect(r.stderr.hasPrefix("scand: the open-file limit is too low: \(limit) (hard limit \(limit))"), "\(r.stderr)")
                #expect(r.stderr.contains("ulimit -n"))
                #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            }
        }
    }

    @Test("just enough: the scan is the same as without a limit")
    func enoughGivesTheSameOutput() throws {
        let free = try ScandBinary.run(["scan"] + Self.inputs)
        #expect(free.status == 0)
        #expect(free.lines.count > 10)
        let r = try Self.run(soft: 40, hard: 40, ["scan"] + Self.inputs)
        #expect(r.exited && r.status == 0, "\(r.stderr)")
        #expect(r.stdout == free.stdoutText)
    }

    @Test("a low soft limit under a higher hard one is raised, and the scan runs")
    func lowSoftLimitIsRaised() throws {
        let free = try ScandBinary.run(["scan"] + Self.inputs)
        for soft in [4, 8, 20] {
            let r = try Self.run(soft: soft, hard: 4096, ["scan"] + Self.inputs)
            #expect(r.exited && r.status == 0, "soft \(soft): \(r.stderr)")
            #expect(r.stdout == free.stdoutText, "soft \(soft)")
        }
    }

    @Test("run with a socket and --http: too low is exit 2 with the message; enough serves and finishes")
    func daemonUnderALimit() throws {
        let dir = DaemonPaths.tempDir("nofile-run")
        defer { DaemonPaths.remove(dir) }
        let args = ["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--socket", dir + "/s.sock", "--http", "127.0.0.1:0"]
        for limit in [8, 20] { // SwiftNIO trapped at both before the check
            let r = try Self.run(soft: limit, hard: limit, args)
            #expect(r.exited, "--nofile=\(limit): killed by signal \(r.status); stderr: \(r.stderr)")
            #expect(r.status == 2 && r.stderr.contains("the open-file limit is too low"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/s.sock"))
        }
        let r = try Self.run(soft: 40, hard: 40, args)
        #expect(r.exited && r.status == 0, "\(r.stderr)")
        let events = r.stdout.split(separator: "\n").compactMap { DaemonEventLine(String($0)) }
        #expect(events.contains { $0.event == "appeared" }, "\(r.stdout.prefix(400))")
    }

    /// The limit lowered while scand serves (`prlimit --pid`), then a flood of socket and HTTP clients: scand keeps
    /// DescriptorHeadroom.reserve (8) descriptors free and refuses the rest with a warning, the client connected
    /// before keeps its stream, and once the limit is back new clients are served. Before, the clients took
    /// every descriptor, and libdispatch's once-a-second check of its workers (an `open` of /proc/TID/stat)
    /// then trapped: the chaos soak's SIGILL (bench/soak/README.md).
    @Test("a limit lowered mid-run: clients are refused before they take the last 8 descriptors")
    func clientsNeverTakeTheLastDescriptors() throws {
        let dir = DaemonPaths.tempDir("nofile-flood")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock", port = try MosquittoBroker.freePort()
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--socket", sock, "--http", "127.0.0.1:\(port)",
                                   "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        let steady = try DaemonSocketClient(path: sock)
        let before = steady.readLines(for: 1.5).lines.compactMap(DaemonEventLine.init)
        #expect(before.contains { $0.event == "metadata" })

        let pid = d.pid
        let old = try #require(openFileLimit(pid))
        let open = d.openFDs
        let soft = open + 12 // 12 free: room for about 4 clients
        #expect(try setOpenFileLimit(pid, soft: soft, hard: old.hard))
        #expect(openFileLimit(pid)?.soft == soft)

        // Sample scand's descriptors while 20 socket and 20 HTTP clients connect and stay.
        let most = Locked(0), sampling = Locked(true)
        let sampler = Thread {
            while sampling.value {
                let n = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
                most.mutate { $0 = max($0, n) }
                usleep(1_000)
            }
        }
        sampler.start()
        var kept: [Int32] = []
        var socketServed = 0, socketRefused = 0, httpServed = 0, httpRefused = 0
        for _ in 0..<20 {
            if let fd = try? connectUnixSocket(sock) {
                kept.append(fd)
                // Refused: closed at once, or left in the listen backlog while accepting is paused.
                if readSome(fd, timeout: 0.8).contains("\"hello\"") { socketServed += 1 } else { socketRefused += 1 }
            } else { socketRefused += 1 }
            if let fd = connectTCP(port) {
                kept.append(fd)
                _ = "GET /state HTTP/1.1\r\nHost: scand\r\n\r\n".withCString { write(fd, $0, strlen($0)) }
                if readSome(fd, timeout: 0.8).hasPrefix("HTTP/1.1 200") { httpServed += 1 } else { httpRefused += 1 }
            } else { httpRefused += 1 }
        }
        usleep(300_000)
        sampling.value = false
        while sampler.isExecuting { usleep(1_000) }
        // 8 kept free; the sampler may see up to 2 connections accepted and not yet refused (an HTTP accept is
        // checked on its own event loop). Without the reserve scand reached the limit itself.
        #expect(most.value <= soft - DescriptorHeadroomReserve + 2,
                "scand held \(most.value) descriptors under a limit of \(soft): fewer than 6 left free")
        #expect(socketServed >= 1 && socketRefused >= 1, "socket clients: \(socketServed) served, \(socketRefused) refused")
        #expect(httpServed >= 1 && httpRefused >= 1, "HTTP clients: \(httpServed) served, \(httpRefused) refused")
        #expect(d.stderr.contains("cannot accept new clients: only"), "the socket server says why: \(d.stderr.suffix(600))")
        #expect(d.stderr.contains("http: refusing new connections: only"), "the HTTP server says why")
        let during = steady.readLines(for: 1.0)
        #expect(!during.eof && during.lines.compactMap(DaemonEventLine.init).contains { $0.event == "metadata" },
                "the client connected before keeps its stream")

        // The limit back: new clients are served again.
        for fd in kept { close(fd) }
        #expect(try setOpenFileLimit(pid, soft: old.soft, hard: old.hard))
        let fresh = daemonEventually(5) {
            guard let fd = try? connectUnixSocket(sock) else { return false }
            defer { close(fd) }
            return readSome(fd, timeout: 1).contains("\"hello\"")
        }
        #expect(fresh, "a socket client is served once the limit is back")
        let web = daemonEventually(5) {
            guard let fd = connectTCP(port) else { return false }
            defer { close(fd) }
            _ = "GET /state HTTP/1.1\r\nHost: scand\r\n\r\n".withCString { write(fd, $0, strlen($0)) }
            return readSome(fd, timeout: 1).hasPrefix("HTTP/1.1 200")
        }
        #expect(web, "an HTTP client is served once the limit is back")
        #expect(d.terminate() == 0)
    }
}

/// scand under an address-space limit (`prlimit --as`, as `ulimit -v` or systemd's `LimitAS=` set it), with the
/// real binary and a 4032×3024 noise image (a 12 MP photo's size; nothing to read, so every pass runs).
/// Before: OpenBLAS's worker thread (started while the libraries load) spun for ever on its failed 128 MiB
/// buffer at 250–400 MiB, so the run held a core and never exited; and zxing-cpp's `std::bad_alloc` was
/// logged as `detector: zxing: std::bad_alloc`, naming no input.
@Suite("address-space limit", .serialized)
struct AddressSpaceLimitTests {
    /// A grey 4032×3024 PGM of deterministic noise (a linear congruential generator, seed 1).
    static func noiseImage(in dir: String) throws -> String {
        let (w, h) = (4032, 3024)
        var bytes = Array("P5\n\(w) \(h)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + w * h)
        var x: UInt32 = 1
        for _ in 0..<(w * h) {
            x = x &* 1_664_525 &+ 1_013_904_223
            bytes.append(UInt8(truncatingIfNeeded: x >> 24))
        }
        let path = dir + "/noise-12mp.pgm"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("it ends, the next input is read, and a failure names its input")
    func endsAndNamesTheInput() throws {
        let dir = DaemonPaths.tempDir("as-limit")
        defer { DaemonPaths.remove(dir) }
        let big = try Self.noiseImage(in: dir)
        let exact = Fixtures.path("exact.png")
        for megabytes in [320, 400, 500] { // OpenBLAS spun at 250–400; the start-up check wants 175 + 128 MiB (debug)
            let r = try Self.run(megabytes: megabytes, ["scan", big, exact], in: dir, timeout: 240)
            let out = r.stdout, err = r.stderr
            #expect(r.status != -1, "--as=\(megabytes)M: still running after 240 s; stderr: \(err)")
            guard r.status != -1 else { continue }
            let status = r.status
            #expect(r.exited, "--as=\(megabytes)M: killed by signal \(status); stderr: \(err)")
            #expect(out.contains(#""source":"\#(exact)""#) && out.contains(#""value":"LOGIN:ab12""#),
                    "--as=\(megabytes)M: the second input was not read: \(out.suffix(300)) \(err)")
            let errors = err.split(separator: "\n").filter { $0.contains(" error ") }
            #expect(errors.allSatisfy { $0.contains("\(big): ") }, "--as=\(megabytes)M: \(errors)")
            // 0: both read, a code found; 1: the noise image failed (named above), the other read.
            #expect(status == (errors.isEmpty ? 0 : 1), "--as=\(megabytes)M: status \(status), \(err)")
        }
    }

    /// Runs `prlimit --as=MEGABYTES MiB scand ARGS` (``DescriptorLimitTests/underLimit(_:_:in:timeout:)``).
    static func run(megabytes: Int, _ args: [String], in dir: String, timeout: Double = 90) throws -> DescriptorLimitTests.Outcome {
        try DescriptorLimitTests.underLimit("--as=\(megabytes << 20)", args, in: dir, timeout: timeout)
    }

    /// Before the start-up check, a limit a little above what the libraries map hung for ever (libdispatch
    /// retrying a thread it could not start) or crashed (SIGSEGV in the Swift runtime's report of a refused
    /// allocation, SIGILL in SwiftNIO's thread start), with no message saying why.
    @Test("too low to start: exit 2 with one message naming the limit, never a hang or a signal")
    func tooLowIsAClearError() throws {
        let dir = DaemonPaths.tempDir("as-low")
        defer { DaemonPaths.remove(dir) }
        let commands = [["scan", "exact.png"],
                        ["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--socket", dir + "/s.sock", "--http", "127.0.0.1:0"]]
        for megabytes in [200, 220, 260] {
            for args in commands {
                let r = try Self.run(megabytes: megabytes, args, in: dir, timeout: 30)
                let what = "--as=\(megabytes)M \(args[0])"
                #expect(r.status != -1, "\(what): still running after 30 s; stderr: \(r.stderr)")
                #expect(r.exited, "\(what): killed by signal \(r.status); stderr: \(r.stderr.prefix(600))")
                #expect(r.status == 2, "\(what): \(r.stderr.prefix(600))")
                #expect(r.stdout.isEmpty, "\(what): \(r.stdout.prefix(300))")
                #expect(r.stderr.hasPrefix("scand: the address-space limit is too low: \(megabytes) MiB with "), "\(what): \(r.stderr.prefix(600))")
                #expect(r.stderr.contains("ulimit -v") && r.stderr.split(separator: "\n").count == 1, "\(what): \(r.stderr.prefix(600))")
                #expect(!FileManager.default.fileExists(atPath: dir + "/s.sock"), "\(what)")
            }
        }
    }

    /// Before the process ran with one malloc arena (`MALLOC_ARENA_MAX=1`), each thread's arena reserved
    /// 64 MiB and took the room SwiftNIO's threads needed: `scand run` with a socket trapped (SIGILL) in NIO's
    /// thread start on 8 of 9 runs at 300, 340 and 400 MiB, yet ran at 240 and 500.
    @Test("run with a socket and --http under 340 and 400 MiB: every frame published, exit 0")
    func daemonRunsUnderALimit() throws {
        let dir = DaemonPaths.tempDir("as-run")
        defer { DaemonPaths.remove(dir) }
        let args = ["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--socket", dir + "/s.sock", "--http", "127.0.0.1:0"]
        let free = try ScandBinary.run(args)
        let frames = free.lines.filter { $0.contains(#""event":"metadata""#) }.count
        #expect(free.status == 0 && frames > 10, "\(free.stderr)")
        for megabytes in [340, 400] {
            for _ in 0..<2 {
                let r = try Self.run(megabytes: megabytes, args, in: dir)
                let what = "--as=\(megabytes)M"
                #expect(r.exited && r.status == 0, "\(what): status \(r.status) (exited: \(r.exited)); stderr: \(r.stderr.prefix(800))")
                let got = r.stdout.split(separator: "\n").filter { $0.contains(#""event":"metadata""#) }.count
                #expect(got == frames, "\(what): \(got) metadata events against \(frames) without a limit")
                #expect(!FileManager.default.fileExists(atPath: dir + "/s.sock"), "\(what): the socket was left behind")
            }
        }
    }
}

/// DescriptorHeadroom.reserve, as scand keeps it (the test target does not link ScanCore's internals).
private let DescriptorHeadroomReserve = 8

/// A value shared with the sampler thread.
private final class Locked<T>: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `stored` is read and written only under `lock`.
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
    func mutate(_ body: (inout T) -> Void) { lock.lock(); body(&stored); lock.unlock() }
}

/// A TCP connection to 127.0.0.1:`port` (nil: refused).
private func connectTCP(_ port: Int) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    if rc != 0 { close(fd); return nil }
    return fd
}

/// What arrives on `fd` within `timeout` seconds (up to 4 KiB; "" on EOF, a reset or nothing).
private func readSome(_ fd: Int32, timeout: Double) -> String {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, Int32(timeout * 1000)) == 1 else { return "" }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let n = read(fd, &buffer, buffer.count)
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
}

/// `RLIMIT_NOFILE` of process `pid`, from /proc/PID/limits.
private func openFileLimit(_ pid: Int32) -> (soft: Int, hard: Int)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
    let fields = line.split(separator: " ").compactMap { Int($0) }
    return fields.count >= 2 ? (fields[0], fields[1]) : nil
}

/// Sets process `pid`'s open-file limit with util-linux's `prlimit --pid` (the syscall is not in Glibc's module).
private func setOpenFileLimit(_ pid: Int32, soft: Int, hard: Int) throws -> Bool {
    try TestProcess.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(soft):\(hard)"]).status == 0
}
