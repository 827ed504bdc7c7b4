import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `scand run --mqtt` against a real Eclipse Mosquitto started by the test (own config, free loopback port),
/// with `mosquitto_sub` as the consumer (issue 19).
@Suite(.serialized) struct MQTTTests {
    /// The `seq` of each JSON line that has one, in order.
    static func seqs(_ lines: [String]) -> [Int] { lines.compactMap { DaemonEventLine($0)?.seq } }

    static func stdoutLines(_ d: DaemonProcess) -> [String] {
        daemonReadText(d.stdoutPath).split(separator: "\n").map(String.init)
    }

    /// The distinct `seq`s in order of first arrival (QoS 1 is at least once: a resend after a lost
    /// connection may repeat one).
    static func firstArrivals(_ seqs: [Int]) -> [Int] {
        var seen = Set<Int>()
        return seqs.filter { seen.insert($0).inserted }
    }

    static func json(_ s: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(s.utf8))) as? [String: Any] ?? [:]
    }

    // MARK: every event, in order

    @Test func everyStdoutEventArrivesOnTheBrokerInOrder() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events", "scand/+/status", "scand/+/appeared"],
                                          directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-all")
        defer { DaemonPaths.remove(dir) }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", url,
                                   "--mqtt-id", "kiosk1", "--mqtt-metadata", "--mqtt-kind-topics", "--log-level", "notice"], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        let printed = Self.stdoutLines(d)
        #expect(printed.count > 100) // 100 metadata events, presence and device events
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk1/events").count >= printed.count })
        let received = sub.payloads(on: "scand/kiosk1/events")
        // The same JSON lines, one per message, in the same order, seq kept.
        #expect(received == printed)
        #expect(Self.seqs(received) == Array(1...printed.count))
        // The broker connection shows as a device-style event.
        #expect(printed.contains { Self.json($0)["event"] as? String == "device" && Self.json($0)["kind"] as? String == "deviceConnected"
            && Self.json($0)["device"] as? String == url })
        // One topic per kind: the appeared events again.
        let appeared = printed.filter { Self.json($0)["event"] as? String == "appeared" }
        #expect(!appeared.isEmpty && sub.payloads(on: "scand/kiosk1/appeared") == appeared)
        // Retained status: online with device and version, then offline at the clean stop.
        let status = sub.payloads(on: "scand/kiosk1/status").map(Self.json)
        #expect(status.first?["status"] as? String == "online" && status.first?["device"] as? String == DaemonPaths.kiosk
                && status.first?["version"] as? String != nil)
        #expect(status.last?["status"] as? String == "offline" && status.last?["reason"] as? String == "stopped")
        // A late subscriber gets the retained status.
        let late = try runTool("/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "scand/kiosk1/status", "-C", "1", "-W", "5"])
        #expect(Self.json(String(decoding: late, as: UTF8.self))["status"] as? String == "offline")
    }

    /// Every thread scand starts itself is named, the MQTT client's too (Foundation's `Thread` left it with
    /// the name of the libdispatch worker that started it, so a soak's thread count by name could not tell
    /// it from that pool): `top -H`, `ps -L` and the soak's threads.txt say which thread is which.
    @Test func theDaemonsOwnThreadsAreNamed() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/status"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-threads")
        defer { DaemonPaths.remove(dir) }
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--stdout", "--socket", dir + "/s.sock",
                                   "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "named", "--log-level", "notice"], dir: dir)
        #expect(daemonEventually(20) { sub.payloads(on: "scand/named/status").contains { Self.json($0)["status"] as? String == "online" } },
                "\(d.stderr)")
        let names = d.threadNames
        for own in ["scand-pipeline", "scand-read", "scand-writer", "scand-mqtt"] {
            #expect(names.filter { $0 == own }.count == 1, "\(own) in \(names.sorted())")
        }
        #expect(d.terminate(timeout: 15) == 0, "\(d.stderr)")
    }

    // MARK: broker restart

    @Test func brokerStoppedThreeSecondsMidRunLosesNothing() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-restart")
        defer { DaemonPaths.remove(dir) }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        // Paced: the kiosk replay lasts 10 s at 10 frames/s.
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--stdout", "--mqtt", url, "--mqtt-id", "kiosk2", "--mqtt-metadata",
                                   "--mqtt-reconnect-max", "1", "--log-level", "notice"], dir: dir)
        #expect(daemonEventually(15) { sub.payloads(on: "scand/kiosk2/events").count >= 15 })
        broker.stop()
        sub.stop()
        let downAt = Self.seqs(Self.stdoutLines(d)).last ?? 0
        usleep(3_000_000)
        let producedWhileDown = (Self.seqs(Self.stdoutLines(d)).last ?? 0) - downAt
        try broker.start()
        // The same persistent session (client id): the broker kept what arrived for it while it was away.
        let sub2 = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory,
                                           clientID: "scand-test-sub", extraArguments: [])
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        let printed = Self.seqs(Self.stdoutLines(d))
        #expect(producedWhileDown >= 20, "the run went on while the broker was down")
        let got = { Self.firstArrivals(Self.seqs(sub.payloads(on: "scand/kiosk2/events") + sub2.payloads(on: "scand/kiosk2/events"))) }
        #expect(daemonEventually(15) { got().count >= printed.count })
        #expect(got() == printed, "missing: \(Set(printed).subtracting(got()).sorted())")
        let kinds = Self.stdoutLines(d).map(Self.json).filter { $0["device"] as? String == url }.compactMap { $0["kind"] as? String }
        #expect(kinds.first == "deviceConnected" && kinds.contains("deviceDisconnected") && kinds.last == "deviceConnected")
    }

    // MARK: reload during outages

    /// Issue 52's report: SIGHUPs just before and during broker outages lost the events published in the
    /// outages. Here, with the spool, a persistent QoS 1 consumer and the config file switching between two
    /// versions at each SIGHUP, every event printed reaches the consumer. (bench/soak/reload_loss.py runs the
    /// same thing longer and many times.)
    @Test func sighupBeforeAndDuringBrokerOutagesLosesNothing() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory,
                                          clientID: "reload-sub", extraArguments: [])
        let dir = DaemonPaths.tempDir("mqtt-reload")
        defer { DaemonPaths.remove(dir) }
        let spool = dir + "/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let config = dir + "/scand.json"
        func writeConfig(density: Int) throws {
            try #"{"input": "\#(DaemonPaths.kiosk)", "scanDensity": \#(density), "mqtt": {"url": "mqtt://127.0.0.1:\#(broker.port)", "id": "kiosk7", "metadata": true, "spool": "\#(spool)", "reconnectMax": 1}}"#
                .write(toFile: config, atomically: true, encoding: .utf8)
        }
        try writeConfig(density: 1)
        // Paced: the kiosk replay lasts 10 s at 10 frames/s.
        let d = try DaemonProcess(["run", "--config", config, "--stdout", "--log-level", "notice"], dir: dir)
        #expect(daemonEventually(15) { sub.payloads(on: "scand/kiosk7/events").count >= 10 })
        var subs = [sub]
        for (round, density) in [2, 1].enumerated() {
            try writeConfig(density: density)
            if round == 0 { d.signal(SIGHUP); usleep(300_000) } // just before the outage
            broker.stop()
            subs.last?.stop()
            usleep(1_000_000)
            try writeConfig(density: density == 2 ? 1 : 2)
            d.signal(SIGHUP) // in the middle of it
            usleep(1_000_000)
            try broker.start()
            subs.append(try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory,
                                                clientID: "reload-sub", extraArguments: []))
            usleep(1_500_000)
        }
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        #expect(d.stderr.components(separatedBy: "SIGHUP: configuration reloaded").count - 1 == 3, "\(d.stderr)")
        let printed = Self.seqs(Self.stdoutLines(d))
        let brokerEvents = Self.stdoutLines(d).map(Self.json).filter { $0["device"] as? String == "mqtt://127.0.0.1:\(broker.port)" }
        #expect(brokerEvents.filter { $0["kind"] as? String == "deviceDisconnected" }.count == 2, "both outages were seen")
        #expect(printed.count >= 90, "a whole replay's events (\(printed.count))")
        let got = { Self.firstArrivals(Self.seqs(subs.flatMap { $0.payloads(on: "scand/kiosk7/events") })) }
        #expect(daemonEventually(15) { Set(got()).isSuperset(of: printed) })
        #expect(Set(printed).subtracting(got()).isEmpty, "lost: \(Set(printed).subtracting(got()).sorted())")
    }

    // MARK: broker down at start

    @Test func brokerDownAtStartGetsTheEventsOnceUp() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        // Register the consumer's persistent session, then take the broker away.
        try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "late-sub").stop()
        broker.stop()
        let dir = DaemonPaths.tempDir("mqtt-down")
        defer { DaemonPaths.remove(dir) }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--stdout", "--mqtt", url, "--mqtt-id", "kiosk3", "--mqtt-metadata",
                                   "--mqtt-reconnect-max", "1", "--log-level", "notice"], dir: dir)
        usleep(2_500_000)
        #expect(d.stderr.contains("cannot connect"), "\(d.stderr)")
        #expect(!Self.stdoutLines(d).isEmpty)
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "late-sub")
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        let printed = Self.seqs(Self.stdoutLines(d))
        #expect(daemonEventually(15) { Self.firstArrivals(Self.seqs(sub.payloads(on: "scand/kiosk3/events"))).count >= printed.count })
        #expect(Self.firstArrivals(Self.seqs(sub.payloads(on: "scand/kiosk3/events"))) == printed)
        let mqttEvents = Self.stdoutLines(d).map(Self.json).filter { $0["device"] as? String == url }
        #expect(mqttEvents.first?["kind"] as? String == "runtimeError" && (mqttEvents.first?["reason"] as? String ?? "").contains("cannot connect"))
        #expect(mqttEvents.contains { $0["kind"] as? String == "deviceConnected" })
    }

    // MARK: spool

    /// scand's spool segments for `id` in `dir` (`scand-<id>-<16 digits>.mqtt-spool`), oldest first.
    static func spoolSegments(_ dir: String, id: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [])
            .filter { $0.hasPrefix("scand-\(id)-") && $0.hasSuffix(".mqtt-spool") }.sorted().map { dir + "/" + $0 }
    }

    /// The payloads of the whole records on an events topic in a spool segment, read independently of scand's
    /// reader: `UInt32 LE length | UInt32 LE CRC | flags | UInt16 LE topic length | topic | payload`. (The
    /// segment also holds the retained state and discovery messages, on other topics.)
    static func spoolPayloads(_ path: String) -> [String] {
        let b = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        func le(_ at: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 | Int(b[at + $1]) << (8 * $1) } }
        var out: [String] = [], at = 0
        while b.count - at >= 8, b.count - at - 8 >= le(at, 4) {
            let length = le(at, 4), topic = le(at + 9, 2)
            if String(decoding: b[(at + 11)..<(at + 11 + topic)], as: UTF8.self).hasSuffix("/events") {
                out.append(String(decoding: b[(at + 11 + topic)..<(at + 8 + length)], as: UTF8.self))
            }
            at += 8 + length
        }
        return out
    }

    /// Files in the spool directory that are not scand's: scand must never delete them.
    static func plantForeignFiles(_ dir: String) -> [String] {
        let names = ["keep.txt", "scand-other.mqtt-spool", "scand-kiosk7-notes.mqtt-spool", "scand-kiosk7-1.mqtt-spool"]
        for n in names { _ = FileManager.default.createFile(atPath: dir + "/" + n, contents: Data("not scand's\n".utf8)) }
        return names.map { dir + "/" + $0 }
    }

    @Test func theSpoolKeepsWhatTheBrokerMissedForTheNextStart() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "spool-sub").stop()
        broker.stop()
        let dir = DaemonPaths.tempDir("mqtt-spool")
        defer { DaemonPaths.remove(dir) }
        let foreign = Self.plantForeignFiles(dir)
        let args = ["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                    "--mqtt-id", "kiosk7", "--mqtt-metadata", "--mqtt-spool", dir, "--log-level", "notice"]
        let first = try DaemonProcess(args, dir: dir)
        #expect(DaemonRun.wait(first.process, timeout: 60) == 0, "\(first.stderr)")
        let missed = Self.stdoutLines(first)
        let segments = Self.spoolSegments(dir, id: "kiosk7")
        #expect(!segments.isEmpty)
        #expect(segments.flatMap(Self.spoolPayloads) == missed)
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "spool-sub")
        let second = try DaemonProcess(args, dir: dir)
        #expect(DaemonRun.wait(second.process, timeout: 60) == 0, "\(second.stderr)")
        let now = Self.stdoutLines(second)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk7/events").count >= missed.count + now.count })
        // The spooled messages first, then the second run's events, in order.
        #expect(sub.payloads(on: "scand/kiosk7/events") == missed + now)
        // All acknowledged: scand's segments are gone, every other file is still there.
        #expect(Self.spoolSegments(dir, id: "kiosk7").filter { !foreign.contains($0) }.isEmpty)
        #expect(foreign.allSatisfy { daemonReadText($0) == "not scand's\n" })
    }

    @Test func eventsPrintedBeforeASigkillReachTheBrokerAfterTheRestart() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "kill-sub").stop()
        broker.stop()
        let dir = DaemonPaths.tempDir("mqtt-spool-kill")
        defer { DaemonPaths.remove(dir) }
        let common = ["--stdout", "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "kiosk8", "--mqtt-metadata", "--mqtt-spool", dir,
                      "--mqtt-reconnect-max", "1", "--log-level", "notice"]
        // Paced (10 frames/s): killed in the middle of the replay, broker down all along.
        let first = try DaemonProcess(["run", "--input", DaemonPaths.kiosk] + common, dir: dir)
        #expect(daemonEventually(20) { Self.stdoutLines(first).count >= 40 })
        first.signal(SIGKILL)
        _ = DaemonRun.wait(first.process, timeout: 10)
        let printed = Self.stdoutLines(first).filter { DaemonEventLine($0) != nil } // whole lines only
        #expect(printed.count >= 40 && printed.count < 111, "killed mid-run")
        #expect(!Self.spoolSegments(dir, id: "kiosk8").isEmpty)
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "kill-sub")
        try FileManager.default.createDirectory(atPath: dir + "/2", withIntermediateDirectories: true)
        let second = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing"] + common, dir: dir + "/2")
        #expect(DaemonRun.wait(second.process, timeout: 60) == 0, "\(second.stderr)")
        #expect(second.stderr.contains("from the spool queued first"), "\(second.stderr)")
        let received = { Set(sub.payloads(on: "scand/kiosk8/events")) }
        #expect(daemonEventually(15) { received().isSuperset(of: printed) })
        // Every line printed before the kill arrived, in the order printed (by first arrival).
        var seen = Set<String>()
        let firstArrivals = sub.payloads(on: "scand/kiosk8/events").filter { seen.insert($0).inserted }
        #expect(firstArrivals.filter(Set(printed).contains) == printed,
                "missing seqs: \(Self.seqs(printed.filter { !received().contains($0) }))")
        #expect(Self.spoolSegments(dir, id: "kiosk8").isEmpty)
    }

    @Test func aTornLastRecordIsSkippedWithALogLineAndTheRestIsSent() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "torn-sub").stop()
        broker.stop()
        let dir = DaemonPaths.tempDir("mqtt-spool-torn")
        defer { DaemonPaths.remove(dir) }
        let args = ["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                    "--mqtt-id", "kiosk9", "--mqtt-metadata", "--mqtt-spool", dir, "--log-level", "notice"]
        let first = try DaemonProcess(args, dir: dir)
        #expect(DaemonRun.wait(first.process, timeout: 60) == 0, "\(first.stderr)")
        let missed = Self.stdoutLines(first)
        guard let last = Self.spoolSegments(dir, id: "kiosk9").last else { Issue.record("no spool segment"); return }
        // A crash in the middle of a write: a header announcing 500 bytes, then only 20 of them.
        let size = (try FileManager.default.attributesOfItem(atPath: last)[.size] as? Int) ?? 0
        let h = try #require(FileHandle(forWritingAtPath: last))
        h.seekToEndOfFile()
        h.write(Data([0xF4, 0x01, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF] + Array(repeating: 0x41, count: 20)))
        try h.close()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "torn-sub")
        try FileManager.default.createDirectory(atPath: dir + "/2", withIntermediateDirectories: true)
        let second = try DaemonProcess(args, dir: dir + "/2")
        #expect(DaemonRun.wait(second.process, timeout: 60) == 0, "\(second.stderr)")
        #expect(second.stderr.contains("\(last): torn or corrupt record at byte \(size) of \(size + 28)"), "\(second.stderr)")
        let now = Self.stdoutLines(second)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk9/events").count >= missed.count + now.count })
        #expect(sub.payloads(on: "scand/kiosk9/events") == missed + now)
    }

    @Test func aFullDiskIsAnErrorEventAndTheStreamGoesOnInMemory() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-spool-full")
        defer { DaemonPaths.remove(dir) }
        // A 20,000-byte file-size limit (ulimit -f) makes the spool's writes fail with EFBIG about a third of
        // the way through the run, as a full disk does with ENOSPC. stdout is not written (it is a file
        // here and would hit the limit too); the broker is the witness.
        let d = try DaemonProcess(["--fsize=20000", DaemonPaths.scand, "run", "--input", DaemonPaths.kiosk, "--no-pacing", "--no-stdout",
                                   "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "kiosk10", "--mqtt-metadata", "--mqtt-spool", dir,
                                   "--log-level", "notice"], dir: dir, executable: "/usr/bin/prlimit")
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        #expect(d.stderr.contains("cannot write \(dir)/scand-kiosk10-0000000000000001.mqtt-spool: File too large; keeping messages in memory only"),
                "\(d.stderr)")
        let total = Int(d.stderr.components(separatedBy: "events=").last?.prefix { $0.isNumber } ?? "") ?? -1
        #expect(total > 111) // the kiosk run's events and the broker's device events, the spool error among them
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk10/events").count >= total })
        let received = sub.payloads(on: "scand/kiosk10/events")
        #expect(Self.seqs(received) == Array(1...total), "nothing lost, in order")
        let reason = received.map(Self.json).first { $0["kind"] as? String == "runtimeError" }?["reason"] as? String ?? ""
        #expect(reason.contains("File too large; keeping messages in memory only"), "\(reason)")
        #expect(Self.spoolSegments(dir, id: "kiosk10").isEmpty)
    }

    @Test func aRealFullTmpfsIsAnErrorEventAndTheStreamGoesOnInMemory() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-spool-enospc")
        defer { DaemonPaths.remove(dir) }
        let spool = dir + "/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        // A 32 KiB tmpfs as the spool directory, mounted in a private user+mount namespace (no root needed):
        // the run's ~70 kB of records hit ENOSPC half way.
        let d = try DaemonProcess(["-rm", "/bin/sh", "-c", #"mount -t tmpfs -o size=32k tmpfs "$0" && exec "$@""#, spool,
                                   DaemonPaths.scand, "run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout",
                                   "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "kiosk11", "--mqtt-metadata", "--mqtt-spool", spool,
                                   "--log-level", "notice"], dir: dir, executable: "/usr/bin/unshare")
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        #expect(d.stderr.contains("cannot write \(spool)/scand-kiosk11-0000000000000001.mqtt-spool: No space left on device; keeping messages in memory only"),
                "\(d.stderr)")
        let printed = Self.stdoutLines(d)
        #expect(printed.count > 111)
        #expect(printed.contains { Self.json($0)["kind"] as? String == "runtimeError"
            && (Self.json($0)["reason"] as? String ?? "").contains("No space left on device") })
        // Nothing lost: the broker has every line stdout printed, in order.
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk11/events").count >= printed.count })
        #expect(sub.payloads(on: "scand/kiosk11/events") == printed)
    }

    // MARK: credentials

    @Test func wrongPasswordIsAClearErrorAndOtherSinksGoOn() throws {
        let broker = try MosquittoBroker(users: ["kiosk4": "right-secret"])
        try broker.start()
        let dir = DaemonPaths.tempDir("mqtt-auth")
        defer { DaemonPaths.remove(dir) }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        try "wrong-secret\n".write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", url, "--mqtt-id", "kiosk4", "--mqtt-metadata",
                                   "--mqtt-username", "kiosk4", "--mqtt-password-file", dir + "/pw"], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        #expect(d.stderr.contains("\(url) refused the connection: Connection Refused: not authorised") && d.stderr.contains("username 'kiosk4'"),
                "\(d.stderr)")
        #expect(!d.stderr.contains("wrong-secret"))
        let events = Self.stdoutLines(d).map(Self.json)
        // stdout got the whole run.
        #expect(events.filter { $0["event"] as? String == "metadata" }.count == 100)
        #expect(events.last?["kind"] as? String == "stopped")
        #expect(events.contains { $0["device"] as? String == url && $0["kind"] as? String == "runtimeError"
            && ($0["reason"] as? String ?? "").contains("not authorised") })

        // The right password, from an environment variable, gets through.
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory,
                                          extraArguments: ["-u", "kiosk4", "-P", "right-secret"])
        let ok = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", url, "--mqtt-id", "kiosk4", "--mqtt-metadata",
                                    "--mqtt-username", "kiosk4", "--mqtt-password-env", "KIOSK_MQTT_PASSWORD"], dir: dir,
                                   environment: ["KIOSK_MQTT_PASSWORD": "right-secret"])
        #expect(DaemonRun.wait(ok.process, timeout: 60) == 0, "\(ok.stderr)")
        let printed = Self.stdoutLines(ok)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk4/events").count >= printed.count })
        #expect(sub.payloads(on: "scand/kiosk4/events") == printed)
    }

    // MARK: TLS

    @Test func tlsWithATestCA() throws {
        let certs = try TemporaryDirectory()
        let tls = try makeTestCertificates(in: certs)
        let broker = try MosquittoBroker(tls: tls)
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory,
                                          extraArguments: ["--cafile", tls.ca], host: "localhost")
        let dir = DaemonPaths.tempDir("mqtt-tls")
        defer { DaemonPaths.remove(dir) }
        let url = "mqtts://localhost:\(broker.port)"
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", url,
                                   "--mqtt-ca", tls.ca, "--mqtt-id", "kiosk5", "--mqtt-metadata"], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        let printed = Self.stdoutLines(d)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk5/events").count >= printed.count })
        #expect(sub.payloads(on: "scand/kiosk5/events") == printed)

        // Plain MQTT to the TLS listener never delivers, and says so.
        let plain = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt",
                                       "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "kiosk5b", "--mqtt-metadata"], dir: dir)
        #expect(DaemonRun.wait(plain.process, timeout: 60) == 0, "\(plain.stderr)")
        #expect(sub.payloads(on: "scand/kiosk5b/events").isEmpty)
        #expect(plain.stderr.contains("mqtt: mqtt://127.0.0.1:\(broker.port)"), "\(plain.stderr)")
    }

    // MARK: last will

    /// The will is on the availability topic (plain `offline`, what Home Assistant and Frigate read); the JSON
    /// status is updated at connect and at a clean stop only (docs/fleet.md).
    @Test func lastWillTurnsAvailabilityOfflineWhenKilled() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/status", "scand/+/availability"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-will")
        defer { DaemonPaths.remove(dir) }
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--no-stdout", "--mqtt",
                                   "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "kiosk6", "--mqtt-metadata"], dir: dir)
        // Both are published at connect, one after the other: kill only once the subscriber has both.
        #expect(daemonEventually(15) {
            sub.payloads(on: "scand/kiosk6/status").last.map(Self.json)?["status"] as? String == "online"
                && sub.payloads(on: "scand/kiosk6/availability") == ["online"]
        })
        d.signal(SIGKILL)
        _ = DaemonRun.wait(d.process, timeout: 10)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk6/availability").last == "offline" })
        #expect(sub.payloads(on: "scand/kiosk6/availability") == ["online", "offline"])
        let last = sub.payloads(on: "scand/kiosk6/status").last.map(Self.json) ?? [:]
        #expect(last["status"] as? String == "online" && last["device"] as? String == DaemonPaths.kiosk)
    }
}
