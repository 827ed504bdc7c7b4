import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 20, the script writer's part: `--raw`, `--raw-bytes`, exit 4, `--oneshot`, `run` ending with its
/// file, snapshots on connect, `poll`, `devices`, and `scand watch`. Real binary, real clients (socat, jq,
/// Python), real sockets.
@Suite struct ScriptTests {
    let scand = DaemonPaths.scand

    /// Makes a QR image of `payload` (exact bytes, qrencode 8-bit mode) in `dir`.
    func qr(_ payload: [UInt8], _ name: String, in dir: String) throws -> String {
        let path = dir + "/" + name
        let p = try TestProcess.run("/usr/bin/qrencode", ["-8", "-s", "4", "-o", path], stdin: payload)
        #expect(p.status == 0)
        return path
    }

    /// Runs `bash -c script` in a session of its own; returns (status, stdout bytes, stderr). Past `timeout`
    /// the whole pipeline (its process group) is killed, and the status is nil.
    func shell(_ script: String, timeout: Double = 60) throws -> (status: Int32?, out: [UInt8], err: String) {
        let dir = DaemonPaths.tempDir("sh")
        defer { DaemonPaths.remove(dir) }
        let p = try DaemonRun.start("/usr/bin/setsid", ["/bin/bash", "-c", script], stdout: dir + "/out", stderr: dir + "/err")
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { kill(-p.processIdentifier, SIGKILL) }
        let status = DaemonRun.wait(p, timeout: 5)
        return (status, [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: dir + "/out"))) ?? Data()),
                daemonReadText(dir + "/err"))
    }

    // MARK: scan --raw, --raw-bytes, exit 4

    @Test func rawPrintsValuesOnlyAndSkipsBinaryWithOneNote() throws {
        let dir = DaemonPaths.tempDir("raw")
        defer { DaemonPaths.remove(dir) }
        let text = try qr(Array("hello raw".utf8), "text.png", in: dir)
        let newline = try qr(Array("line1\nline2".utf8), "nl.png", in: dir)
        let binary = try qr([0xFF, 0xFE, 0x00, 0x01, 0x80], "bin.png", in: dir)
        let r = try ScandBinary.run(["scan", "--raw", text, binary, newline])
        #expect(r.status == 0)
        // Values only; the newline inside a value is printed as is (zbarimg --raw does the same).
        #expect(r.stdoutText == "hello raw\nline1\nline2\n")
        let notes = r.stderr.split(separator: "\n")
        #expect(notes.count == 2 && notes[0].contains("bin.png") && notes[0].contains("--raw-bytes"), "\(r.stderr)")
        #expect(notes.last?.hasPrefix("scanned 3 objects from 3 inputs (3 frames)") == true, "then the summary")
        // -q: no note; the value is still printed.
        let quiet = try ScandBinary.run(["scan", "--raw", "-q", binary, text])
        #expect(quiet.stdoutText == "hello raw\n" && quiet.stderr.isEmpty && quiet.status == 0)
    }

    @Test func rawBytesPrintsExactPayloadBytes() throws {
        let dir = DaemonPaths.tempDir("rawb")
        defer { DaemonPaths.remove(dir) }
        let payload: [UInt8] = [0xFF, 0xFE, 0x00, 0x01, 0x80, 0x0A, 0x41]
        let binary = try qr(payload, "bin.png", in: dir)
        let r = try ScandBinary.run(["scan", "--raw-bytes", binary])
        #expect(r.status == 0)
        #expect(r.stdout == payload + [0x0A])
        #expect(r.stderr.hasPrefix("scanned 1 object from 1 input (1 frame) in "), "no note, only the summary: \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    @Test func rawOnAVideoPrintsEachShowingOnceNotEveryFrame() throws {
        // kiosk.y4m shows the QR three times (15 frames each) and an EAN-13 all along.
        let r = try ScandBinary.run(["scan", "--raw", DaemonPaths.kiosk])
        #expect(r.status == 0)
        #expect(r.lines.filter { $0 == "TICKET-42" }.count == 3)
        #expect(r.lines.filter { $0 == "5901234123457" }.count == 1)
    }

    @Test func exitFourWhenNoInputHasAnObjectAndFailuresTakePrecedence() throws {
        let dir = DaemonPaths.tempDir("exit4")
        defer { DaemonPaths.remove(dir) }
        let code = try qr(Array("x".utf8), "code.png", in: dir)
        let none = try ScandBinary.run(["scan", "empty-scene.png"])
        #expect(none.status == 4)
        #expect(none.stderr.contains("no object found") && none.stderr.contains("empty-scene.png"))
        #expect(try none.jsonLines().count == 1, "the JSON line is still printed")
        // 4 only when nothing was found in any input: one input with a code among empty ones is a success.
        #expect(try ScandBinary.run(["scan", code, "empty-scene.png"]).status == 0)
        #expect(try ScandBinary.run(["scan", "empty-scene.png", "empty-scene.png"]).status == 4)
        #expect(try ScandBinary.run(["scan", "-q", "empty-scene.png"]).stderr.isEmpty)
        #expect(try ScandBinary.run(["scan", code]).status == 0)
        // Failed inputs win: 1 (some failed), 2 (all failed).
        #expect(try ScandBinary.run(["scan", "empty-scene.png", "nope.png"]).status == 1)
        #expect(try ScandBinary.run(["scan", "nope.png"]).status == 2)
        // The shell sees it.
        let s = try shell("'\(scand)' scan --raw '\(Fixtures.directory.path)/empty-scene.png' 2>/dev/null; echo \"status=$?\"")
        #expect(String(decoding: s.out, as: UTF8.self) == "status=4\n")
    }

    // MARK: --oneshot

    @Test func scanOneshotStopsAtTheFirstObject() throws {
        let dir = DaemonPaths.tempDir("one")
        defer { DaemonPaths.remove(dir) }
        let a = try qr(Array("first".utf8), "a.png", in: dir), b = try qr(Array("second".utf8), "b.png", in: dir)
        let raw = try ScandBinary.run(["scan", "--oneshot", "--raw", "empty-scene.png", a, b])
        #expect(raw.status == 0 && raw.stdoutText == "first\n")
        let json = try ScandBinary.run(["scan", "--oneshot", "empty-scene.png", a, b])
        #expect(json.status == 0)
        #expect(try json.jsonLines().map { $0["source"] as? String } == ["empty-scene.png", a])
        // On a video: the first frame with a code, then stop.
        let video = try ScandBinary.run(["scan", "--oneshot", "--raw", "--types", "qr", DaemonPaths.kiosk])
        #expect(video.status == 0 && video.stdoutText == "TICKET-42\n")
        #expect(try ScandBinary.run(["scan", "--oneshot", "empty-scene.png"]).status == 4)
    }

    @Test func runOneshotRawPrintsExactlyTheValueAndExitsQuickly() throws {
        let dir = DaemonPaths.tempDir("run1")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let start = Date()
        // The kiosk script's form: code=$(scand run … --types qr --oneshot --raw). Paced: the QR shows at 0.5 s.
        let s = try shell("code=$('\(scand)' run --input '\(DaemonPaths.kiosk)' --types qr --oneshot --raw --socket '\(sock)') && printf '<%s>' \"$code\"",
                          timeout: 30)
        let seconds = Date().timeIntervalSince(start)
        #expect(s.status == 0, "\(s.err)")
        #expect(String(decoding: s.out, as: UTF8.self) == "<TICKET-42>")
        #expect(seconds < 5, "took \(seconds) s; the clip is 10 s")
        #expect(access(sock, F_OK) != 0, "the socket file is removed at the clean stop")
        // JSON: the one appeared event.
        let j = try ScandBinary.run(["run", "--input", DaemonPaths.kiosk, "--types", "qr", "--oneshot", "--no-pacing"])
        #expect(j.status == 0)
        let lines = try j.jsonLines()
        #expect(lines.count == 1)
        #expect(lines.first?["event"] as? String == "appeared" && lines.first?["value"] as? String == "TICKET-42")
        // Nothing of the types in the file: 4.
        let none = try ScandBinary.run(["run", "--input", DaemonPaths.kiosk, "--types", "code128", "--oneshot", "--raw", "--no-pacing"])
        #expect(none.status == 4 && none.stdout.isEmpty)
    }

    // MARK: run ends with its file

    @Test func runOnAFileEndsAtItsEndAndPipesToJq() throws {
        // The README's example, which used to serve forever.
        let s = try shell("'\(scand)' run --input '\(DaemonPaths.kiosk)' --stdout --no-pacing | jq -r 'select(.event==\"appeared\" and .type==\"qr\") | .value'",
                          timeout: 30)
        #expect(s.status == 0, "did not end by itself: \(s.err)")
        #expect(String(decoding: s.out, as: UTF8.self) == "TICKET-42\nTICKET-42\nTICKET-42\n")
        // stdin too.
        let t = try shell("'\(scand)' run --input - --stdout --no-pacing --no-metadata < '\(DaemonPaths.kiosk)' | jq -c .event | tail -n 1",
                          timeout: 30)
        #expect(t.status == 0 && String(decoding: t.out, as: UTF8.self) == "\"device\"\n")
    }

    @Test func keepRunningStillServesAfterTheEnd() throws {
        let dir = DaemonPaths.tempDir("keep")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--no-pacing", "--keep-running",
                                   "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        #expect(daemonEventually(30) { d.stderr.contains("source ended; serving clients until stopped") })
        #expect(d.process.isRunning)
        let c = try DaemonSocketClient(path: sock)
        c.send(#"{"devices":{}}"# + "\n")
        let lines = c.readLines(for: 1).lines.compactMap(DaemonEventLine.init)
        #expect(lines.first?.event == "hello")
        let devices = lines.first { $0.event == "devices" }?.object["devices"] as? [[String: Any]]
        #expect(devices?.first?["state"] as? String == "stopped")
        #expect((devices?.first?["framesProcessed"] as? NSNumber)?.intValue == 100)
        #expect(d.terminate() == 0)
        // --exit-at-end and --keep-running contradict each other.
        #expect(try ScandBinary.run(["run", "--input", DaemonPaths.kiosk, "--stdout", "--keep-running", "--exit-at-end"]).status == 64)
    }

    // MARK: snapshot on connect, poll, devices

    @Test func clientConnectingWhileAQRIsInViewGetsAppearedFirst() throws {
        let dir = DaemonPaths.tempDir("snap")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--no-metadata", "--log-level", "notice"],
                                  dir: dir)
        #expect(d.waitReady())
        // Paced: the QR is in view from 0.5 to 1.9 s (lost at 2.9 s). Connect at ~1.2 s with socat.
        usleep(1_200_000)
        let s = try shell("timeout -s KILL 3 socat -u UNIX-CONNECT:'\(sock)' - | head -n 8", timeout: 10)
        let lines = String(decoding: s.out, as: UTF8.self).split(separator: "\n").compactMap { DaemonEventLine(String($0)) }
        #expect(lines.first?.event == "hello")
        let qr = lines.filter { $0.type == "qr" }
        #expect(qr.first?.event == "appeared", "\(lines.map(\.raw))")
        #expect(qr.first?.object["snapshot"] as? Bool == true && qr.first?.seq == nil)
        #expect(qr.first?.object["value"] as? String == "TICKET-42")
        #expect(qr.dropFirst().first?.event == "lost", "then its lost, live")
        #expect(qr.dropFirst().first?.seq != nil)
        #expect(d.terminate() == 0)
    }

    @Test func pollAndDevicesAnswerAtAnyTime() throws {
        let dir = DaemonPaths.tempDir("poll")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--loop", "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        // A Python client (standard library only), polling at 1.2 s (QR and EAN-13 in view) and at 3.5 s
        // (only the EAN-13), then asking for the device state.
        let script = """
        import json, socket, sys, time
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
        def ask(cmd):
            f.write((json.dumps(cmd) + "\\n").encode()); f.flush()
            out = []
            for line in f:
                e = json.loads(line)
                if e["event"] == "hello" or "seq" in e: continue
                out.append(e)
                if e["event"] in ("polled", "devices", "error"): return out
        for line in f:  # up to the banner (a connect snapshot, if any, is appeared lines like the poll reply)
            if json.loads(line)["event"] == "hello": break
        time.sleep(1.2); a = ask({"poll": {}})
        time.sleep(2.3); b = ask({"poll": {}})
        c = ask({"devices": {}}); e = ask({"pol": {}})
        print(json.dumps({"a": a, "b": b, "c": c, "e": e}))
        """
        try script.write(toFile: dir + "/poll.py", atomically: true, encoding: .utf8)
        let r = try shell("\(DaemonPaths.python) '\(dir)/poll.py' '\(sock)'", timeout: 20)
        #expect(r.status == 0, "\(r.err)")
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(r.out)) as? [String: [[String: Any]]])
        let a = obj["a"]!, b = obj["b"]!, c = obj["c"]!, e = obj["e"]!
        #expect(Set(a.dropLast().compactMap { $0["type"] as? String }) == ["qr", "ean13"])
        #expect(a.dropLast().allSatisfy { $0["event"] as? String == "appeared" && $0["snapshot"] as? Bool == true })
        #expect(a.last?["event"] as? String == "polled" && (a.last?["present"] as? NSNumber)?.intValue == 2)
        #expect(((a.last?["lastSeq"] as? NSNumber)?.intValue ?? 0) > 0)
        #expect(b.dropLast().compactMap { $0["type"] as? String } == ["ean13"])
        #expect((b.last?["present"] as? NSNumber)?.intValue == 1)
        let device = (c.first?["devices"] as? [[String: Any]])?.first
        #expect(device?["device"] as? String == DaemonPaths.kiosk)
        #expect(device?["state"] as? String == "started" && device?["live"] as? Bool == false)
        #expect(((device?["framesProcessed"] as? NSNumber)?.intValue ?? 0) >= 25)
        #expect(device?["framesDropped"] != nil && device?["framesRead"] != nil)
        #expect((e.first?["message"] as? String)?.contains("known: subscribe, poll, devices") == true)
        #expect(d.terminate() == 0)
    }

    // MARK: scand watch

    @Test func watchPrintsCountEventsFromARunningDaemon() throws {
        let dir = DaemonPaths.tempDir("watch")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--socket", sock, "--loop", "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        let r = try ScandBinary.run(["watch", "--socket", sock, "-n", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try r.jsonLines()
        #expect(lines.count == 3)
        #expect(!lines.contains { $0["event"] as? String == "hello" })
        // Filtered and raw: the next QR value, once.
        let raw = try ScandBinary.run(["watch", "--socket", sock, "-n", "1", "--types", "qr", "--events", "appeared", "--raw", "-x", "15"])
        #expect(raw.status == 0 && raw.stdoutText == "TICKET-42\n", "\(raw.stderr)")
        // Nothing of that kind within 1 s: exit 1.
        let none = try ScandBinary.run(["watch", "--socket", sock, "--types", "code128", "--events", "appeared", "-x", "1"])
        #expect(none.status == 1 && none.stdout.isEmpty)
        #expect(d.terminate() == 0)
    }

    @Test func watchWithNoDaemonExitsTwoNamingThePath() throws {
        let dir = DaemonPaths.tempDir("nowatch")
        defer { DaemonPaths.remove(dir) }
        let r = try ScandBinary.run(["watch", "--socket", dir + "/missing.sock", "-n", "1"])
        #expect(r.status == 2)
        #expect(r.stderr.contains(dir + "/missing.sock"))
        #expect(r.stdout.isEmpty)
        #expect(try ScandBinary.run(["watch", "--socket", dir + "/x.sock", "--types", "qrr"]).status == 64)
    }
}
