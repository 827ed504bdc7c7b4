import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `scand run` as a user runs it: real processes, real sockets, real clients (socat, Python, Swift).
@Suite struct DaemonTests {
    let scand = DaemonPaths.scand
    let py = DaemonPaths.python
    let client = DaemonPaths.client

    // MARK: kiosk presence

    func kioskEvents(_ extra: [String]) throws -> (events: [DaemonEventLine], status: Int32?, seconds: Double) {
        let dir = DaemonPaths.tempDir("kiosk")
        defer { DaemonPaths.remove(dir) }
        let start = Date()
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--stdout", "--exit-at-end", "--no-metadata"] + extra, dir: dir)
        let status = DaemonRun.wait(d.process, timeout: 60)
        let seconds = Date().timeIntervalSince(start)
        let events = daemonReadText(d.stdoutPath).split(separator: "\n").compactMap { DaemonEventLine(String($0)) }
        return (events, status, seconds)
    }

    @Test func kioskQRShownThreeTimesGivesThreeAppeared() throws {
        let (events, status, _) = try kioskEvents(["--no-pacing"])
        #expect(status == 0)
        let qr = events.filter { $0.type == "qr" }
        #expect(qr.map(\.event) == ["appeared", "lost", "appeared", "lost", "appeared", "lost"])
        #expect(qr.allSatisfy { $0.object["value"] as? String == "TICKET-42" })
        // Shown at 0.5, 4.0 and 7.5 s; lost 1 s (grace) after the last sighting at 1.9, 5.4, 8.9 s.
        let times = qr.compactMap { ($0.object["time"] as? NSNumber)?.doubleValue }
        #expect(times == [0.5, 2.9, 4.0, 6.4, 7.5, 9.9])
        let ean = events.filter { $0.type == "ean13" }
        #expect(ean.map(\.event) == ["appeared", "lost"])
        #expect(!events.contains { $0.event == "metadata" })
        let seqs = events.compactMap(\.seq)
        #expect(seqs.count == events.count && seqs.first == 1 && isGaplessSeq(seqs))
        #expect(events.allSatisfy { ($0.object["timestamp"] as? NSNumber).map { $0.doubleValue > 1.7e9 } ?? false })
        #expect(events.first?.event == "device" && events.last?.event == "device")
    }

    @Test func kioskPacedReplayTakesItsDurationAndStillGivesThreeAppeared() throws {
        let (events, status, seconds) = try kioskEvents([])
        #expect(status == 0)
        #expect(events.filter { $0.type == "qr" && $0.event == "appeared" }.count == 3)
        #expect(seconds >= 9.5, "a paced 10 s replay took \(seconds) s")
    }

    @Test func presenceRulesAreConfigurable() throws {
        // A 5 s cooldown after 'lost' at 2.9 s swallows the second showing; the third (7.5-9 s) is still
        // in view when the cooldown ends at 7.9 s.
        let cooled = try kioskEvents(["--no-pacing", "--cooldown", "5"])
        #expect(cooled.events.filter { $0.type == "qr" && $0.event == "appeared" }.compactMap { ($0.object["time"] as? NSNumber)?.doubleValue } == [0.5, 7.9])
        // A 3 s grace period bridges the 2 s gaps: one presence.
        let graced = try kioskEvents(["--no-pacing", "--lost-after", "3"])
        #expect(graced.events.filter { $0.type == "qr" }.map(\.event) == ["appeared", "lost"])
        // Debounce: 20 frames are needed; each showing has 15.
        let debounced = try kioskEvents(["--no-pacing", "--appear-after", "20"])
        #expect(debounced.events.filter { $0.type == "qr" }.isEmpty)
        #expect(debounced.events.filter { $0.type == "ean13" && $0.event == "appeared" }.count == 1)
    }

    @Test func stdoutReaderGoingAwayStopsCleanly() throws {
        let dir = DaemonPaths.tempDir("epipe")
        defer { DaemonPaths.remove(dir) }
        // `| head -n 3` closes the pipe after three lines; scand must notice (EPIPE) and exit 0 by itself.
        let p = try DaemonRun.start("/bin/bash", ["-c", "set -o pipefail; '\(scand)' run --input '\(DaemonPaths.kiosk)' --stdout --loop --no-pacing 2>'\(dir)/err' | head -n 3 > '\(dir)/head'"])
        let status = DaemonRun.wait(p, timeout: 20)
        #expect(status == 0, "scand did not stop cleanly after its reader went away: \(String(describing: status)) \(daemonReadText(dir + "/err"))")
        #expect(daemonReadText(dir + "/head").split(separator: "\n").count == 3)
    }

    // MARK: socket clients

    @Test func threeClientsGetIdenticalSequencesAndSubscriberGetsOnlyQR() throws {
        let dir = DaemonPaths.tempDir("three")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--stdout", "--loop", "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        var st = stat()
        #expect(stat(sock, &st) == 0 && (st.st_mode & 0o777) == 0o660 && (st.st_mode & S_IFMT) == S_IFSOCK)

        let socat = try DaemonRun.start("/usr/bin/socat", ["-u", "UNIX-CONNECT:" + sock, "STDOUT"], stdout: dir + "/socat.txt")
        let pyc = try DaemonRun.start(py, [client, "read", sock, dir + "/py.txt", "--duration", "30"])
        let qr = try DaemonRun.start(py, [client, "read", sock, dir + "/qr.txt", "--duration", "30",
                                    "--subscribe", #"{"subscribe":{"types":["qr"]}}"#])
        let swiftClient = try DaemonSocketClient(path: sock)
        let swiftLines = swiftClient.readLines(for: 4.5)
        #expect(d.terminate() == 0)
        #expect(access(sock, F_OK) != 0, "SIGTERM must remove the socket file")
        let rest = swiftClient.readLines(for: 5)
        #expect(rest.eof, "clients are closed at shutdown")
        for p in [socat, pyc, qr] { DaemonRun.wait(p, timeout: 10) }

        let swiftEvents = (swiftLines.lines + rest.lines).compactMap(DaemonEventLine.init)
        let socatEvents = daemonReadText(dir + "/socat.txt").split(separator: "\n").compactMap { DaemonEventLine(String($0)) }
        let pyEvents = parseDaemonClientFile(dir + "/py.txt").events
        let qrParsed = parseDaemonClientFile(dir + "/qr.txt")
        for events in [swiftEvents, socatEvents, pyEvents, qrParsed.events] {
            let hello = events.first
            #expect(hello?.event == "hello")
            #expect((hello?.object["protocol"] as? NSNumber)?.intValue == 1)
            #expect(hello?.object["version"] is String)
            #expect((hello?.object["types"] as? [String])?.contains("qr") == true)
        }
        let full = [swiftEvents, socatEvents, pyEvents].map { $0.filter { $0.seq != nil } }
        for events in full {
            #expect(events.count > 20)
            #expect(isGaplessSeq(events.compactMap(\.seq)))
            #expect(events.contains { $0.event == "metadata" } && events.contains { $0.event == "appeared" })
        }
        // Identical over the range all three saw (they connected at slightly different times).
        let first = full.map { $0.first?.seq ?? 0 }.max()!, last = full.map { $0.last?.seq ?? 0 }.min()!
        let windows = full.map { $0.filter { $0.seq! >= first && $0.seq! <= last }.map(\.raw) }
        #expect(windows[0].count > 20)
        #expect(windows[0] == windows[1] && windows[1] == windows[2])
        // stdout, a sink of its own, carries the same numbered stream from seq 1.
        let stdoutEvents = daemonReadText(d.stdoutPath).split(separator: "\n").compactMap { DaemonEventLine(String($0)) }
        #expect(stdoutEvents.first?.seq == 1 && isGaplessSeq(stdoutEvents.compactMap(\.seq)))
        #expect(stdoutEvents.filter { $0.seq! >= first && $0.seq! <= last }.map(\.raw) == windows[0])
        // The subscriber: a "subscribed" reply, then exactly the events concerning qr (and device events).
        // (After the banner, what is in view when it connected: appeared lines marked "snapshot", no seq.)
        // The subscription applies from its reply on: the daemon streams live events from the connection, so
        // some may come between the banner and the reply when the daemon is slow to read the command (it was
        // under ASan in CI; docs/daemon.md, "Clients": commands come "at any time").
        let afterBanner = Array(qrParsed.events.dropFirst())
        #expect(afterBanner.prefix { $0.object["snapshot"] != nil }.allSatisfy { $0.event == "appeared" && $0.seq == nil })
        let reply = try #require(afterBanner.firstIndex { $0.event == "subscribed" }, "no subscribed reply")
        #expect(afterBanner[..<reply].allSatisfy { $0.object["snapshot"] != nil || $0.seq != nil })
        #expect(afterBanner[(reply + 1)...].allSatisfy { $0.event != "subscribed" })
        let qrEvents = afterBanner[(reply + 1)...].filter { $0.seq != nil }
        #expect(!qrEvents.isEmpty && qrEvents.allSatisfy { $0.event == "device" || $0.objectTypes.contains("qr") })
        let range = (qrEvents.first!.seq!)...(min(qrEvents.last!.seq!, last))
        let expected = full[1].filter { range.contains($0.seq!) && ($0.event == "device" || $0.objectTypes.contains("qr")) }.map(\.raw)
        #expect(qrEvents.filter { range.contains($0.seq!) }.map(\.raw) == expected)
        #expect(full[1].contains { range.contains($0.seq!) && !$0.objectTypes.contains("qr") && $0.event != "device" },
                "the window holds events the subscriber must not get")
    }

    @Test func slowClientOverflowsThenIsDisconnectedWhileOthersMissNothing() throws {
        let dir = DaemonPaths.tempDir("slow")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        try #"{"socket":{"sendBuffer":4096,"clientQueue":20,"stallTimeout":4}}"#.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", dir + "/c.json", "--input", DaemonPaths.kiosk, "--socket", sock,
                                   "--loop", "--no-pacing", "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        let fast = try DaemonRun.start(py, [client, "read", sock, dir + "/fast.txt", "--duration", "12"])
        // Not reading for 2.5 s (< the 4 s stall limit) overflows the 20-event queue; reading again brings
        // the overflow line; not reading for 6 s (> 4 s) gets the client disconnected.
        let slow = try DaemonRun.start(py, [client, "slow", sock, dir + "/slow.txt", "--pause", "2.5", "--drain", "0.5",
                                      "--stall", "6", "--timeout", "10"])
        DaemonRun.wait(slow, timeout: 30)
        DaemonRun.wait(fast, timeout: 30)
        #expect(d.process.isRunning, "a stuck client must not affect the daemon")
        #expect(d.terminate() == 0)

        let s = parseDaemonClientFile(dir + "/slow.txt")
        #expect(s.end == "EOF", "the stuck client is disconnected")
        let overflows = s.events.enumerated().filter { $0.element.event == "overflow" }
        #expect(!overflows.isEmpty)
        // Each overflow line says exactly how many events are missing at that point of the stream.
        for (i, o) in overflows {
            let dropped = (o.object["dropped"] as? NSNumber)?.intValue ?? 0
            let before = s.events[..<i].last { $0.seq != nil }?.seq
            let after = s.events[(i + 1)...].first { $0.seq != nil }?.seq
            #expect(dropped > 0)
            if let before, let after { #expect(after - before - 1 == dropped) }
        }
        let f = parseDaemonClientFile(dir + "/fast.txt")
        let seqs = f.events.compactMap(\.seq)
        #expect(seqs.count > 200)
        #expect(isGaplessSeq(seqs), "the fast client must see every event")
        #expect(!f.events.contains { $0.event == "overflow" })
        #expect(d.stderr.contains("disconnecting stalled client"))
    }

    @Test func garbageBinaryAndHalfClosedClientsAffectNobody() throws {
        let dir = DaemonPaths.tempDir("garbage")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--loop", "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        let good = try DaemonRun.start(py, [client, "read", sock, dir + "/good.txt", "--duration", "4"])
        let bad = try DaemonRun.start(py, [client, "garbage", sock, dir + "/bad.txt", "--duration", "3.5"])
        DaemonRun.wait(bad, timeout: 20); DaemonRun.wait(good, timeout: 20)
        #expect(d.process.isRunning)
        #expect(d.terminate() == 0)
        let b = parseDaemonClientFile(dir + "/bad.txt")
        let errors = b.events.filter { $0.event == "error" }
        #expect(errors.count >= 5, "each bad line gets an error line: \(errors.map(\.raw))")
        #expect(errors.contains { ($0.object["message"] as? String)?.contains("longer than") == true })
        #expect(errors.contains { ($0.object["message"] as? String)?.contains("unknown event 'bogus'") == true })
        // Still connected after all that, half-closed, and the last valid subscription applies.
        #expect(b.events.contains { $0.event == "subscribed" })
        let afterSub = b.events.drop { $0.event != "subscribed" }.filter { $0.seq != nil }
        #expect(afterSub.count > 5, "a half-closed client keeps receiving events")
        #expect(b.end == "TIMEOUT")
        let g = parseDaemonClientFile(dir + "/good.txt")
        #expect(isGaplessSeq(g.events.compactMap(\.seq)) && g.events.filter { $0.seq != nil }.count > 20)
        #expect(!g.events.contains { $0.event == "error" })
    }

    @Test func twoHundredClientsChurningLeakNoDescriptors() throws {
        let seconds = ProcessInfo.processInfo.environment["SCAND_CHURN_SECONDS"] ?? "30"
        let dir = DaemonPaths.tempDir("churn")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--loop", "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        usleep(300_000)
        let before = d.openFDs
        let watcher = try DaemonRun.start(py, [client, "read", sock, dir + "/watch.txt", "--duration", "\((Double(seconds) ?? 30) + 2)"])
        let churn = try DaemonRun.start(py, [client, "churn", sock, "--clients", "200", "--duration", seconds],
                                  stdout: dir + "/churn.txt", stderr: dir + "/churn.err")
        DaemonRun.wait(churn, timeout: (Double(seconds) ?? 30) + 60)
        DaemonRun.wait(watcher, timeout: 30)
        let counts = daemonReadText(dir + "/churn.txt").split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] > 1000, "connections made, errors: \(counts) \(daemonReadText(dir + "/churn.err"))")
        #expect(counts.count == 2 && counts[1] == 0, "client errors: \(daemonReadText(dir + "/churn.err"))")
        #expect(daemonEventually(5) { d.openFDs == before }, "descriptors: \(before) before, \(d.openFDs) after")
        let w = parseDaemonClientFile(dir + "/watch.txt")
        #expect(isGaplessSeq(w.events.compactMap(\.seq)) && w.events.filter { $0.seq != nil }.count > 100)
        #expect(d.terminate() == 0)
    }

    // MARK: operating it

    @Test func sighupReloadsConfigurationWithoutDroppingClients() throws {
        let dir = DaemonPaths.tempDir("hup")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock", config = dir + "/scand.json"
        try #"{"metadata": true, "presence": {"lostAfter": 1.0}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", config, "--input", DaemonPaths.kiosk, "--socket", sock, "--loop",
                                   "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        let c = try DaemonSocketClient(path: sock)
        let before = c.readLines(for: 1.5).lines.compactMap(DaemonEventLine.init)
        #expect(before.contains { $0.event == "metadata" })

        // A broken file is refused and the running configuration kept.
        try "{ not json".write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        #expect(daemonEventually(5) { d.stderr.contains("configuration not reloaded") })

        try #"{"metadata": false, "types": ["qr"]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        #expect(daemonEventually(5) { d.stderr.contains("configuration applied") })
        let during = c.readLines(for: 0.5)
        let after = c.readLines(for: 6)
        #expect(!during.eof && !after.eof, "the client stays connected")
        let events = after.lines.compactMap(DaemonEventLine.init)
        #expect(!events.contains { $0.event == "hello" })
        #expect(!events.contains { $0.event == "metadata" })
        #expect(events.contains { $0.event == "appeared" && $0.type == "qr" })
        #expect(!events.contains { $0.type == "ean13" && $0.event == "appeared" }, "ean13 is no longer enabled")
        let all = (before + during.lines.compactMap(DaemonEventLine.init) + events).compactMap(\.seq)
        #expect(isGaplessSeq(all))
        // New clients see the new types in their banner.
        let newcomer = try DaemonSocketClient(path: sock)
        let hello = newcomer.readLines(for: 0.5).lines.first.flatMap(DaemonEventLine.init)
        #expect(hello?.object["types"] as? [String] == ["qr"])
        #expect(d.terminate() == 0)
    }

    /// A SIGHUP while scand starts (systemd's `reload` right after `start`, a logrotate hook) is applied once it
    /// runs; before, its default action ended the process until the pipeline service trapped it.
    @Test func sighupWhileStartingIsAReloadNotAnExit() throws {
        let dir = DaemonPaths.tempDir("hupstart")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock", config = dir + "/scand.json"
        try #"{"types": ["qr"]}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", config, "--input", DaemonPaths.kiosk, "--socket", sock, "--loop",
                                   "--log-level", "notice"], dir: dir, environment: ["SCAND_TEST_SLOW_START": "3"])
        // The hook logs once SIGHUP is trapped, and waits 3 s; at that moment SIGHUP is caught (SigCgt, bit 0).
        // Before, the trap came after the slow start, with the pipeline service.
        #expect(daemonEventually(20) { d.stderr.contains("test hook: starting slowly") }, "\(d.stderr)")
        let status = (try? String(contentsOfFile: "/proc/\(d.pid)/status", encoding: .utf8)) ?? ""
        let mask = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
            .flatMap { UInt64($0.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        #expect(mask & 1 != 0, "SIGHUP not trapped while starting: \(status)")
        for _ in 0..<3 { d.signal(SIGHUP); usleep(100_000) }
        #expect(!d.stderr.contains("] ready"), "the SIGHUPs were sent before it was ready")
        #expect(kill(d.pid, 0) == 0, "scand survived the SIGHUPs: \(d.stderr)")
        #expect(d.waitReady())
        #expect(daemonEventually(5) { d.stderr.contains("SIGHUP: configuration reloaded") }, "the reload is applied once running: \(d.stderr)")
        let c = try DaemonSocketClient(path: sock)
        #expect(c.readLines(for: 3).lines.compactMap(DaemonEventLine.init).contains { $0.event == "appeared" && $0.type == "qr" })
        #expect(d.terminate() == 0)
    }

    @Test func staleSocketIsReplacedAndLiveOneRefused() throws {
        let dir = DaemonPaths.tempDir("stale")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        // A socket file nobody listens on (a crashed scand leaves one behind).
        let mk = try DaemonRun.start(py, ["-c", "import socket; s=socket.socket(socket.AF_UNIX); s.bind('\(sock)'); s.close()"])
        #expect(DaemonRun.wait(mk, timeout: 10) == 0)
        #expect(access(sock, F_OK) == 0)
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--loop", "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        #expect(d.stderr.contains("replaced stale socket file"))

        let dir2 = DaemonPaths.tempDir("live")

        defer { DaemonPaths.remove(dir2) }
        let second = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock], dir: dir2)
        #expect(DaemonRun.wait(second.process, timeout: 20) == 2)
        #expect(second.stderr.contains("already serving"))
        // The first one still serves.
        let c = try DaemonSocketClient(path: sock)
        #expect(c.readLines(for: 1).lines.first.flatMap(DaemonEventLine.init)?.event == "hello")

        // Something that is not a socket is never removed.
        let file = dir2 + "/plain"
        try "keep me".write(toFile: file, atomically: true, encoding: .utf8)
        let third = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", file], dir: dir2)
        #expect(DaemonRun.wait(third.process, timeout: 20) == 2)
        #expect(daemonReadText(file) == "keep me")
        d.signal(SIGINT)
        #expect(DaemonRun.wait(d.process, timeout: 10) == 0)
        #expect(access(sock, F_OK) != 0, "SIGINT removes the socket file too")
    }

    @Test func socketActivationAndReadyNotification() throws {
        let dir = DaemonPaths.tempDir("act")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock", notify = dir + "/notify.sock"
        let listener = try DaemonRun.start(py, [client, "notify-listen", notify, dir + "/notify.txt"])
        defer { kill(listener.processIdentifier, SIGTERM); DaemonRun.wait(listener, timeout: 5) }
        #expect(daemonEventually(5) { daemonReadText(dir + "/notify.txt").contains("LISTENING") })
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--log-level", "notice"], dir: dir,
                                  environment: ["NOTIFY_SOCKET": notify], executable: py,
                                  prefix: [client, "activate", sock, "--", scand])
        #expect(d.waitReady())
        #expect(d.stderr.contains("using socket(s) passed by systemd"))
        #expect(daemonEventually(5) { daemonReadText(dir + "/notify.txt").contains("READY=1") })
        let c = try DaemonSocketClient(path: sock)
        let lines = c.readLines(for: 1.5).lines.compactMap(DaemonEventLine.init)
        #expect(lines.first?.event == "hello")
        #expect(lines.contains { $0.event == "metadata" })
        #expect(d.terminate() == 0)
        #expect(daemonEventually(5) { daemonReadText(dir + "/notify.txt").contains("STOPPING=1") })
        #expect(access(sock, F_OK) == 0, "the activated socket belongs to systemd and stays")
    }

    @Test func badConfigurationIsAUsageErrorNamingTheKey() throws {
        let dir = DaemonPaths.tempDir("badcfg")
        defer { DaemonPaths.remove(dir) }
        try #"{"presence": {"lostafter": 2}}"#.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", dir + "/c.json", "--input", DaemonPaths.kiosk, "--stdout"], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 20) == 64)
        #expect(d.stderr.contains("presence.lostafter"))
        let e = try DaemonProcess(["run", "--input", dir + "/missing.y4m", "--stdout"], dir: dir)
        #expect(DaemonRun.wait(e.process, timeout: 20) == 2)
        #expect(e.stderr.contains("missing.y4m"))
        let f = try DaemonProcess(["run", "--input", DaemonPaths.kiosk], dir: dir)
        #expect(DaemonRun.wait(f.process, timeout: 20) == 64)
        #expect(f.stderr.contains("nothing to deliver to"))
    }
}
