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
                                   "--mqtt-id", "kiosk1", "--mqtt-kind-topics", "--log-level", "notice"], dir: dir)
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

    // MARK: broker restart

    @Test func brokerStoppedThreeSecondsMidRunLosesNothing() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-restart")
        defer { DaemonPaths.remove(dir) }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        // Paced: the kiosk replay lasts 10 s at 10 frames/s.
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--stdout", "--mqtt", url, "--mqtt-id", "kiosk2",
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
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--stdout", "--mqtt", url, "--mqtt-id", "kiosk3",
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

    @Test func theSpoolKeepsWhatTheBrokerMissedForTheNextStart() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "spool-sub").stop()
        broker.stop()
        let dir = DaemonPaths.tempDir("mqtt-spool")
        defer { DaemonPaths.remove(dir) }
        let args = ["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                    "--mqtt-id", "kiosk7", "--mqtt-spool", dir, "--log-level", "notice"]
        let first = try DaemonProcess(args, dir: dir)
        #expect(DaemonRun.wait(first.process, timeout: 60) == 0, "\(first.stderr)")
        let missed = Self.stdoutLines(first)
        let spool = daemonReadText(dir + "/scand-kiosk7.spool").split(separator: "\n").map(String.init)
        #expect(spool.count == missed.count)
        #expect(spool.map { $0.split(separator: "\t", maxSplits: 3).last.map(String.init) ?? "" } == missed)
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/events"], directory: broker.directory, clientID: "spool-sub")
        let second = try DaemonProcess(args, dir: dir)
        #expect(DaemonRun.wait(second.process, timeout: 60) == 0, "\(second.stderr)")
        let now = Self.stdoutLines(second)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk7/events").count >= spool.count + now.count })
        // The spooled messages first, then the second run's events, in order.
        #expect(sub.payloads(on: "scand/kiosk7/events") == missed + now)
        #expect(access(dir + "/scand-kiosk7.spool", F_OK) != 0)
    }

    // MARK: credentials

    @Test func wrongPasswordIsAClearErrorAndOtherSinksGoOn() throws {
        let broker = try MosquittoBroker(users: ["kiosk4": "right-secret"])
        try broker.start()
        let dir = DaemonPaths.tempDir("mqtt-auth")
        defer { DaemonPaths.remove(dir) }
        let url = "mqtt://127.0.0.1:\(broker.port)"
        try "wrong-secret\n".write(toFile: dir + "/pw", atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", url, "--mqtt-id", "kiosk4",
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
        let ok = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt", url, "--mqtt-id", "kiosk4",
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
                                   "--mqtt-ca", tls.ca, "--mqtt-id", "kiosk5"], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0, "\(d.stderr)")
        let printed = Self.stdoutLines(d)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk5/events").count >= printed.count })
        #expect(sub.payloads(on: "scand/kiosk5/events") == printed)

        // Plain MQTT to the TLS listener never delivers, and says so.
        let plain = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--no-pacing", "--stdout", "--mqtt",
                                       "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "kiosk5b"], dir: dir)
        #expect(DaemonRun.wait(plain.process, timeout: 60) == 0, "\(plain.stderr)")
        #expect(sub.payloads(on: "scand/kiosk5b/events").isEmpty)
        #expect(plain.stderr.contains("mqtt: mqtt://127.0.0.1:\(broker.port)"), "\(plain.stderr)")
    }

    // MARK: last will

    @Test func lastWillTurnsStatusOfflineWhenKilled() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/+/status"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("mqtt-will")
        defer { DaemonPaths.remove(dir) }
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--no-stdout", "--mqtt",
                                   "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "kiosk6"], dir: dir)
        #expect(daemonEventually(15) { sub.payloads(on: "scand/kiosk6/status").last.map(Self.json)?["status"] as? String == "online" })
        d.signal(SIGKILL)
        _ = DaemonRun.wait(d.process, timeout: 10)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/kiosk6/status").last.map(Self.json)?["status"] as? String == "offline" })
        let last = sub.payloads(on: "scand/kiosk6/status").last.map(Self.json) ?? [:]
        #expect(last["reason"] as? String == "connection lost" && last["device"] as? String == DaemonPaths.kiosk)
    }
}
