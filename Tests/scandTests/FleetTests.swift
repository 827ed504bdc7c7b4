import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The fleet topics Home Assistant and Frigate users recognise (issue 46), against a real Mosquitto started by
/// the test: plain `online`/`offline` availability with a last will, Home Assistant discovery configs seen by a
/// subscriber that connects afterwards, the `tag` topic and its template giving each code, the face binary
/// sensor following a face, per-type retained state, `metadata` off by default, and `tcp://` URLs.
@Suite("MQTT fleet: Home Assistant and Frigate topics", .serialized)
struct FleetTests {
    static func json(_ s: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(s.utf8))) as? [String: Any] ?? [:]
    }

    /// Renders a Home Assistant value template on an MQTT payload with Jinja2, as Home Assistant does
    /// (`value` is the payload, `value_json` the payload parsed).
    static func render(_ template: String, payload: String) throws -> String {
        let script = """
        import json, sys, jinja2
        value = sys.argv[2]
        print(jinja2.Environment().from_string(sys.argv[1]).render(value=value, value_json=json.loads(value)), end="")
        """
        return String(decoding: try runTool("/usr/bin/python3", ["-c", script, template, payload]), as: UTF8.self)
    }

    /// What a client connecting now gets on `topic` (retained messages only), as `topic payload` lines.
    static func retained(port: Int, topic: String, directory: TemporaryDirectory) throws -> [(topic: String, payload: String)] {
        let sub = try MosquittoSubscriber(port: port, topics: [topic], directory: directory, clientID: "late-\(UUID().uuidString.prefix(8))")
        usleep(500_000)
        sub.stop()
        return sub.lines().filter { $0.topic != "probe/ready" }
    }

    /// The demo clip (a QR code, an EAN-13 and a face), made once per test.
    static func demoClip(_ dir: TemporaryDirectory) throws -> String {
        let clip = dir.url.appendingPathComponent("demo.y4m").path
        _ = try runTool("/usr/bin/python3", [Fixtures.repositoryRoot.appendingPathComponent("demo/make-demo-clip.py").path, clip])
        return clip
    }

    @Test("discovery configs are retained for a later subscriber; the tag template gives each code; the face sensor follows the face")
    func homeAssistantDiscoveryTagAndFace() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clip = try Self.demoClip(broker.directory)
        let live = try MosquittoSubscriber(port: broker.port, topics: ["scand/fleet1/#"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("fleet-ha")
        defer { DaemonPaths.remove(dir) }
        let d = try DaemonProcess(["run", "--input", clip, "--no-pacing", "--stdout", "--types", "qr,ean13,face",
                                   "--mqtt", "tcp://127.0.0.1:\(broker.port)", "--mqtt-id", "fleet1", "--mqtt-discovery",
                                   "--log-level", "notice"], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 120) == 0, "\(d.stderr)")
        let printed = daemonReadText(d.stdoutPath).split(separator: "\n").map { Self.json(String($0)) }
        let codes = printed.filter { $0["event"] as? String == "appeared" && $0["type"] as? String != "face" }
        #expect(codes.count == 2, "the demo clip's QR code and EAN-13: \(codes)")
        #expect(daemonEventually(10) { live.payloads(on: "scand/fleet1/availability").last == "offline" })

        // A subscriber that connects after the run gets the three configs (retained).
        let configs = try Self.retained(port: broker.port, topic: "homeassistant/#", directory: broker.directory)
        let byTopic = Dictionary(configs.map { ($0.topic, Self.json($0.payload)) }, uniquingKeysWith: { $1 })
        #expect(Set(byTopic.keys) == ["homeassistant/tag/fleet1/code/config", "homeassistant/binary_sensor/fleet1/face/config",
                                      "homeassistant/sensor/fleet1/last_code/config"], "\(configs)")
        for (topic, config) in byTopic {
            let device = config["device"] as? [String: Any] ?? [:]
            #expect(device["identifiers"] as? [String] == ["scand_fleet1"] && device["name"] != nil && device["model"] != nil
                    && device["sw_version"] != nil, "\(topic): \(config)")
            if !topic.contains("/tag/") {
                #expect(config["unique_id"] as? String != nil, "\(topic)")
                #expect(config["availability_topic"] as? String == "scand/fleet1/availability", "\(topic)")
            }
        }
        // The tag scanner: each message on its topic, through its template, is the code that appeared.
        let tag = try #require(byTopic["homeassistant/tag/fleet1/code/config"])
        let tagTopic = try #require(tag["topic"] as? String), template = try #require(tag["value_template"] as? String)
        let tags = live.payloads(on: tagTopic)
        #expect(try tags.map { try Self.render(template, payload: $0) } == codes.compactMap { $0["value"] as? String })
        // The last-code sensor's state topic and template give the last code; retained for a late subscriber.
        let sensor = try #require(byTopic["homeassistant/sensor/fleet1/last_code/config"])
        let stateTopic = try #require(sensor["state_topic"] as? String)
        let lastCode = try Self.retained(port: broker.port, topic: stateTopic, directory: broker.directory)
        #expect(try lastCode.map { try Self.render(sensor["value_template"] as? String ?? "", payload: $0.payload) }
                == [codes.last?["value"] as? String ?? "?"])
        // Per-type retained state: the last value of each type, as plain text.
        for code in codes {
            let type = code["type"] as? String ?? "?"
            #expect(try Self.retained(port: broker.port, topic: "scand/fleet1/state/\(type)", directory: broker.directory).map(\.payload)
                    == [code["value"] as? String ?? "?"])
        }
        // The binary sensor follows the face: OFF at start, ON when it appeared, OFF when it was lost.
        let face = try #require(byTopic["homeassistant/binary_sensor/fleet1/face/config"])
        let faceTopic = try #require(face["state_topic"] as? String)
        #expect(live.payloads(on: faceTopic) == ["OFF", "ON", "OFF"], "\(live.payloads(on: faceTopic))")
        #expect(face["payload_on"] as? String == "ON" && face["payload_off"] as? String == "OFF")
        // Availability: plain online, then offline at the clean stop; the JSON status stays on its topic.
        #expect(live.payloads(on: "scand/fleet1/availability") == ["online", "offline"])
        #expect(Self.json(live.payloads(on: "scand/fleet1/status").last ?? "")["status"] as? String == "offline")
        // metadata is off on the broker by default; the presence and device events are there.
        let events = live.payloads(on: "scand/fleet1/events").map(Self.json)
        #expect(!events.isEmpty && !events.contains { $0["event"] as? String == "metadata" })
        #expect(events.filter { $0["event"] as? String == "appeared" }.count == 3)
        #expect(printed.contains { $0["event"] as? String == "metadata" }, "stdout still has metadata")

        // The same scand with discovery off removes its configs (empty retained payloads).
        let again = try DaemonProcess(["run", "--input", clip, "--no-pacing", "--no-stdout", "--types", "qr",
                                       "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "fleet1"], dir: dir)
        #expect(DaemonRun.wait(again.process, timeout: 120) == 0, "\(again.stderr)")
        #expect(try Self.retained(port: broker.port, topic: "homeassistant/#", directory: broker.directory).isEmpty)
    }

    @Test("several cameras: one events topic for all, and each camera's own events and state topics (issue 49)")
    func camerasGetTheirOwnTopics() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clip = try Self.demoClip(broker.directory)
        let live = try MosquittoSubscriber(port: broker.port, topics: ["scand/#"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("fleet-cameras")
        defer { DaemonPaths.remove(dir) }
        // "door" sees faces only, "plate" codes only: the same clip, two cameras.
        let config = dir + "/scand.json"
        try #"{"cameras": {"door": {"input": "\#(clip)", "types": ["face"]}, "plate": {"input": "\#(clip)", "types": ["qr", "ean13"]}}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let d = try DaemonProcess(["run", "--config", config, "--no-pacing", "--stdout",
                                   "--mqtt", "tcp://127.0.0.1:\(broker.port)", "--log-level", "notice"], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 120) == 0, "\(d.stderr)")
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "scand"
        let prefix = "scand/" + host.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? String($0) : "_" }.joined() + "-door_plate"
        #expect(daemonEventually(10) { live.payloads(on: prefix + "/availability").last == "offline" }, "\(live.lines().map(\.topic).prefix(5))")
        live.stop()
        let all = live.payloads(on: prefix + "/events").map(Self.json)
        let door = live.payloads(on: prefix + "/cameras/door/events").map(Self.json)
        let plate = live.payloads(on: prefix + "/cameras/plate/events").map(Self.json)
        #expect(Set(all.compactMap { $0["camera"] as? String }) == ["door", "plate"])
        #expect(!door.isEmpty && door.allSatisfy { $0["camera"] as? String == "door" })
        #expect(!plate.isEmpty && plate.allSatisfy { $0["camera"] as? String == "plate" })
        // Every camera's event is on its camera's topic too; the broker connection's own device events name none.
        #expect(door.count + plate.count == all.filter { $0["camera"] != nil }.count)
        #expect(all.filter { $0["camera"] == nil }.allSatisfy { $0["event"] as? String == "device" })
        // Each camera's face state: the door saw the face (ON then OFF), the plate never did (OFF only).
        #expect(live.payloads(on: prefix + "/cameras/door/state/face") == ["OFF", "ON", "OFF"])
        #expect(live.payloads(on: prefix + "/cameras/plate/state/face") == ["OFF"])
        #expect(live.payloads(on: prefix + "/state/face") == ["OFF", "ON", "OFF"])
        // Codes: the plate's state topics have them, the door's none; the tag names the camera.
        #expect(live.payloads(on: prefix + "/cameras/plate/state/qr") == ["https://example.com/login?t=demo-7f3a"])
        #expect(live.payloads(on: prefix + "/cameras/door/state/qr").isEmpty)
        let tags = live.payloads(on: prefix + "/tag").map(Self.json)
        #expect(tags.count == 2 && tags.allSatisfy { $0["camera"] as? String == "plate" }, "\(tags)")
    }

    @Test("a camera a reload adds gets its own topics at once; a camera it removes publishes nothing after its stop (issue 49)")
    func reloadAddsAndRemovesCameraTopics() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let clip = try Self.demoClip(broker.directory)
        let live = try MosquittoSubscriber(port: broker.port, topics: ["scand/hup/#"], directory: broker.directory)
        let dir = DaemonPaths.tempDir("fleet-hup")
        defer { DaemonPaths.remove(dir) }
        let config = dir + "/scand.json"
        func write(_ cameras: String) throws {
            try #"{"loop": true, "types": ["qr", "face"], "cameras": {\#(cameras)}}"#
                .write(toFile: config, atomically: true, encoding: .utf8)
        }
        try write(#""door": {"input": "\#(clip)", "types": ["face"]}, "gone": {"input": "\#(clip)"}"#)
        let d = try DaemonProcess(["run", "--config", config, "--no-stdout", "--log-level", "notice",
                                   "--mqtt", "tcp://127.0.0.1:\(broker.port)", "--mqtt-id", "hup"], dir: dir)
        #expect(daemonEventually(30) { live.payloads(on: "scand/hup/cameras/gone/state/qr").count >= 1 }, "\(d.stderr)")
        try write(#""door": {"input": "\#(clip)", "types": ["face"]}, "plate": {"input": "\#(clip)", "types": ["qr"]}"#)
        d.signal(SIGHUP)
        // The added camera: its events topic and its code state, at once (not after a restart).
        #expect(daemonEventually(30) { live.payloads(on: "scand/hup/cameras/plate/state/qr").count >= 1 }, "\(d.stderr)")
        #expect(daemonEventually(30) { live.payloads(on: "scand/hup/cameras/plate/state/face") == ["OFF"] })
        let goneBefore = live.payloads(on: "scand/hup/cameras/gone/events").count
        usleep(1_500_000)
        d.signal(SIGTERM)
        #expect(DaemonRun.wait(d.process, timeout: 30) == 0, "\(d.stderr)")
        #expect(daemonEventually(10) { live.payloads(on: "scand/hup/availability").last == "offline" })
        live.stop()
        let plate = live.payloads(on: "scand/hup/cameras/plate/events").map(Self.json)
        #expect(!plate.isEmpty && plate.allSatisfy { $0["camera"] as? String == "plate" })
        #expect(plate.first?["event"] as? String == "device" && plate.first?["kind"] as? String == "started", "\(plate.prefix(2))")
        #expect(plate.contains { $0["event"] as? String == "appeared" && $0["value"] as? String == "https://example.com/login?t=demo-7f3a" })
        #expect(live.payloads(on: "scand/hup/cameras/plate/state/qr").last == "https://example.com/login?t=demo-7f3a")
        // The removed camera: its last event is its `device stopped`, and nothing came after the reload settled.
        let gone = live.payloads(on: "scand/hup/cameras/gone/events").map(Self.json)
        #expect(gone.last?["event"] as? String == "device" && gone.last?["kind"] as? String == "stopped", "\(gone.suffix(2))")
        #expect(gone.count == goneBefore)
        // The untouched camera kept publishing across the reload, on its own topic only.
        let door = live.payloads(on: "scand/hup/cameras/door/events").map(Self.json)
        #expect(door.allSatisfy { $0["camera"] as? String == "door" })
        #expect(door.filter { $0["event"] as? String == "device" && $0["kind"] as? String == "started" }.count == 1)
    }

    @Test("availability is a plain retained online, and the last will turns it offline when scand is killed")
    func availabilityLastWill() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let dir = DaemonPaths.tempDir("fleet-will")
        defer { DaemonPaths.remove(dir) }
        let d = try DaemonProcess(["run", "--input", DaemonPaths.kiosk, "--loop", "--no-stdout", "--mqtt",
                                   "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "fleet2", "--mqtt-metadata"], dir: dir)
        let sub = try MosquittoSubscriber(port: broker.port, topics: ["scand/fleet2/availability", "scand/fleet2/events"],
                                          directory: broker.directory)
        #expect(daemonEventually(15) { sub.payloads(on: "scand/fleet2/availability").last == "online" })
        // --mqtt-metadata: the per-frame events go to the broker too.
        #expect(daemonEventually(15) { sub.payloads(on: "scand/fleet2/events").contains { Self.json($0)["event"] as? String == "metadata" } })
        d.signal(SIGKILL)
        _ = DaemonRun.wait(d.process, timeout: 10)
        #expect(daemonEventually(10) { sub.payloads(on: "scand/fleet2/availability").last == "offline" })
        #expect(try Self.retained(port: broker.port, topic: "scand/fleet2/availability", directory: broker.directory).map(\.payload) == ["offline"])
    }

    @Test("tcp:// is mqtt://; the config file's mqtt section takes metadata, discovery and discoveryPrefix")
    func tcpSchemeAndConfigKeys() throws {
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("scand.json").path
        try #"{"input": "\#(DaemonPaths.kiosk)", "mqtt": {"url": "tcp://broker.lan", "metadata": true, "discovery": true, "discoveryPrefix": "ha"}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let r = try ScandBinary.run(["run", "--check-config", config])
        #expect(r.status == 0, "\(r.stderr)")
        let effective = (try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])?["effective"] as? [String: Any] ?? [:]
        #expect(effective["mqtt.url"] as? String == "mqtt://broker.lan:1883")
        #expect(effective["mqtt.metadata"] as? Bool == true && effective["mqtt.discovery"] as? Bool == true)
        let bad = try ScandBinary.run(["run", "--input", DaemonPaths.kiosk, "--mqtt", "http://broker.lan"])
        #expect(bad.status == 64 && bad.stderr.contains("tcp://HOST:PORT"), "\(bad.stderr)")
    }
}
