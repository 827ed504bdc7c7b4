import Foundation
import ScanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Several cameras in one `scand run` (issue 49): each camera's events carry its name, one `seq` for the
/// process, identifiers never shared between cameras, socket clients that follow one camera. Real processes:
/// scand, a Python writer feeding a FIFO in random-sized pieces, a socket client.
@Suite struct MultiCameraTests {
    /// The appeared/lost events of `camera` (all when nil) as comparable tuples: event, type, value, frame.
    static func presence(_ events: [[String: Any]], camera: String? = nil) -> [String] {
        events.filter { e in
            ["appeared", "lost"].contains(e["event"] as? String) && (camera == nil || e["camera"] as? String == camera)
        }.map {
            "\($0["event"] ?? "") \($0["type"] ?? "") \($0["value"] as? String ?? "face") \($0["frame"] ?? "")"
        }
    }

    static func lines(_ path: String) -> [[String: Any]] {
        daemonReadText(path).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// A one-camera run of `clip`, unpaced: what each camera of a multi-camera run must match.
    static func oneCamera(_ clip: String, _ extra: [String] = []) throws -> [[String: Any]] {
        let r = try ScandBinary.run(["run", "--input", clip, "--stdout", "--no-pacing", "--no-metadata"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return try r.jsonLines()
    }

    @Test func threeFileCamerasEachGiveTheirOneCameraEventsUnderOneSeq() throws {
        let dir = DaemonPaths.tempDir("multicam")
        defer { DaemonPaths.remove(dir) }
        let kiosk = DaemonPaths.kiosk
        let demo = dir + "/demo.y4m"
        _ = try runTool(DaemonPaths.python, [DaemonPaths.root + "/demo/make-demo-clip.py", demo])
        // The third camera is a FIFO whose writer sends the kiosk clip in random pieces with pauses.
        let fifo = dir + "/pipe.y4m"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = try DaemonRun.start(
            DaemonPaths.python,
            [
                "-c",
                "import os,random,sys,time\nrandom.seed(49)\nd=open(sys.argv[1],'rb').read()\nf=os.open(sys.argv[2],os.O_WRONLY)\ni=0\nwhile i<len(d):\n n=random.randint(1,200000)\n os.write(f,d[i:i+n]); i+=n\n if random.random()<0.2: time.sleep(0.05)\nos.close(f)\n",
                kiosk, fifo,
            ])
        let d = try DaemonProcess(
            [
                "run", "--camera", "kiosk=\(kiosk)", "--camera", "demo=\(demo)", "--camera", "pipe=\(fifo)",
                "--stdout", "--no-pacing", "--no-metadata", "--types", "qr,ean13,face",
            ], dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 180) == 0, "\(d.stderr)")
        #expect(DaemonRun.wait(writer, timeout: 10) == 0)
        let events = Self.lines(d.stdoutPath)
        #expect(events.count > 10)
        // One seq for the process, from 1, without a gap; every event names its camera.
        #expect(events.compactMap { $0["seq"] as? Int } == Array(1...events.count))
        #expect(Set(events.compactMap { $0["camera"] as? String }) == ["kiosk", "demo", "pipe"])
        #expect(events.allSatisfy { $0["camera"] is String })
        // Each camera: `started` first and `stopped` last among its own events, and the same presence
        // sequence as a one-camera run of its clip.
        let types = ["--types", "qr,ean13,face"]
        let expected = [
            "kiosk": Self.presence(try Self.oneCamera(kiosk, types)), "pipe": Self.presence(try Self.oneCamera(kiosk, types)),
            "demo": Self.presence(try Self.oneCamera(demo, types)),
        ]
        for (camera, want) in expected {
            let own = events.filter { $0["camera"] as? String == camera }
            #expect(own.first?["kind"] as? String == "started" && own.last?["kind"] as? String == "stopped", "\(camera)")
            #expect(!want.isEmpty)
            #expect(Self.presence(events, camera: camera) == want, "\(camera)")
        }
        // The cameras really ran at the same time: their events interleave.
        let order = events.compactMap { $0["camera"] as? String }
        let switches = zip(order, order.dropFirst()).filter { $0 != $1 }.count
        #expect(switches > 3, "\(order)")
    }

    @Test func aPipeWhoseWriterStallsIsReportedStalledAndNeverSlowsTheOtherCamera() throws {
        let dir = DaemonPaths.tempDir("multicam-stall")
        defer { DaemonPaths.remove(dir) }
        let kiosk = DaemonPaths.kiosk
        let fifo = dir + "/pipe.y4m"
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer sends 20 frames, stops sending for 4 s (the pipe stays open), then sends the rest.
        let writer = try DaemonRun.start(
            DaemonPaths.python,
            [
                "-c",
                "import os,sys,time\nd=open(sys.argv[1],'rb').read()\nparts=d.split(b'FRAME')\nf=os.open(sys.argv[2],os.O_WRONLY)\nos.write(f,parts[0]+b''.join(b'FRAME'+p for p in parts[1:21]))\ntime.sleep(4)\nos.write(f,b''.join(b'FRAME'+p for p in parts[21:]))\nos.close(f)\n",
                kiosk, fifo,
            ])
        let d = try DaemonProcess(
            ["run", "--camera", "clip=\(kiosk)", "--camera", "pipe=\(fifo)", "--stdout", "--stall-timeout", "1"],
            dir: dir)
        #expect(DaemonRun.wait(d.process, timeout: 120) == 0, "\(d.stderr)")
        #expect(DaemonRun.wait(writer, timeout: 10) == 0)
        let events = Self.lines(d.stdoutPath)
        let device = events.filter { $0["event"] as? String == "device" && $0["camera"] as? String == "pipe" }
        #expect(device.compactMap { $0["kind"] as? String } == ["started", "wasInterrupted", "interruptionEnded", "stopped"])
        let stalled = try #require(device.first { $0["kind"] as? String == "wasInterrupted" })
        let resumed = try #require(device.first { $0["kind"] as? String == "interruptionEnded" })
        #expect((stalled["reason"] as? String)?.contains("no frame for 1") == true)
        let from = try #require(stalled["timestamp"] as? Double), to = try #require(resumed["timestamp"] as? Double)
        #expect(to - from > 2, "stalled at \(from), resumed at \(to)")
        // Meanwhile the clip camera kept its paced 10 fps: the stalled pipe never held it up.
        let clipFrames = events.filter {
            $0["event"] as? String == "metadata" && $0["camera"] as? String == "clip"
                && ($0["timestamp"] as? Double).map { $0 > from && $0 < to } == true
        }
        #expect(Double(clipFrames.count) >= 0.7 * 10 * (to - from), "\(clipFrames.count) clip frames in \(to - from) s")
        // The pipe went on after the stall: its frames after the 20th were read too.
        let pipeFrames = events.filter { $0["event"] as? String == "metadata" && $0["camera"] as? String == "pipe" }
        let clipTotal = events.filter { $0["event"] as? String == "metadata" && $0["camera"] as? String == "clip" }
        #expect(pipeFrames.count > 20 && clipTotal.count > 20)
    }

    @Test func sighupAddsAndRemovesCamerasAndTheUntouchedCameraKeepsItsFaceID() throws {
        let dir = DaemonPaths.tempDir("multicam-hup")
        defer { DaemonPaths.remove(dir) }
        let config = dir + "/scand.json"
        let steady = DaemonPaths.root + "/Tests/Fixtures/generated/faces/steady.y4m"  // 8 s, two faces throughout
        let kiosk = DaemonPaths.kiosk
        func write(_ cameras: String) throws {
            try #"{"stdout": true, "metadata": true, "types": ["qr", "ean13", "face"], "cameras": {\#(cameras)}}"#
                .write(toFile: config, atomically: true, encoding: .utf8)
        }
        try write(#""steady": {"input": "\#(steady)"}, "old": {"input": "\#(kiosk)"}"#)
        let d = try DaemonProcess(["run", "--config", config, "--log-level", "notice"], dir: dir)
        #expect(d.waitReady())
        #expect(daemonEventually(30) {
            Self.lines(d.stdoutPath).contains { $0["camera"] as? String == "steady" && $0["event"] as? String == "appeared" }
        })
        try write(#""steady": {"input": "\#(steady)"}, "new": {"input": "\#(kiosk)", "types": ["qr"]}"#)
        d.signal(SIGHUP)
        #expect(DaemonRun.wait(d.process, timeout: 120) == 0, "\(d.stderr)")
        let events = Self.lines(d.stdoutPath)
        let reload = try #require(events.firstIndex { $0["event"] as? String == "configuration" }, "\(d.stderr)")
        let changed = (events[reload]["changed"] as? [String: Any] ?? [:]).keys
        #expect(changed.contains("cameras.new.types"), "\(changed.sorted())")
        // "old" stops at the reload (its last event is `device stopped`, nothing from it after); "new" starts.
        let old = events.enumerated().filter { $0.element["camera"] as? String == "old" }
        #expect(old.last?.element["kind"] as? String == "stopped")
        #expect(old.last.map { abs($0.offset - reload) < 40 } == true, "old stopped at \(old.last?.offset ?? -1), reload at \(reload)")
        let new = events.enumerated().filter { $0.element["camera"] as? String == "new" }
        #expect(new.first?.element["kind"] as? String == "started" && new.first!.offset > reload - 40)
        #expect(new.contains { $0.element["event"] as? String == "appeared" && $0.element["type"] as? String == "qr" })
        #expect(!new.contains { $0.element["type"] as? String == "ean13" }, "the new camera reads QR only")
        // The untouched camera: two faces, the same two faceIDs from its first frame to its last (as a
        // one-camera run gives), the reload between: each appeared once, lost once at the clip's end.
        let steadyFaces = events.filter { $0["camera"] as? String == "steady" && $0["event"] as? String == "metadata" }
            .flatMap { ($0["objects"] as? [[String: Any]] ?? []).compactMap { $0["faceID"] as? Int } }
        #expect(Set(steadyFaces).count == 2 && steadyFaces.count > 40, "\(Set(steadyFaces))")
        let steadyPresence = Self.presence(events, camera: "steady")
        let kinds = steadyPresence.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
        #expect(kinds == ["appeared face", "appeared face", "lost face", "lost face"], "\(steadyPresence)")
        #expect(steadyPresence.suffix(2).allSatisfy { $0.hasSuffix(" 239") }, "\(steadyPresence)")
        let steadyIndices = events.indices.filter { events[$0]["camera"] as? String == "steady" }
        #expect(steadyIndices.contains { $0 < reload } && steadyIndices.contains { $0 > reload + 40 })
    }

    @Test func faceIDsAndTrackIDsAreNeverSharedBetweenCameras() throws {
        let dir = DaemonPaths.tempDir("multicam-ids")
        defer { DaemonPaths.remove(dir) }
        let demo = dir + "/demo.y4m"
        _ = try runTool(DaemonPaths.python, [DaemonPaths.root + "/demo/make-demo-clip.py", demo])
        // The same clip on two cameras: a one-camera run numbers its face 1 and its codes' tracks from 1; two
        // cameras must not both say faceID 1 (or trackID 1) for two different things.
        let r = try ScandBinary.run([
            "run", "--camera", "a=\(demo)", "--camera", "b=\(demo)", "--stdout", "--no-pacing", "--no-metadata",
            "--types", "qr,ean13,face", "--presence-by", "instance",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let events = try r.jsonLines()
        func ids(_ key: String, _ camera: String) -> Set<Int> {
            Set(events.filter { $0["camera"] as? String == camera && $0["event"] as? String == "appeared" }
                .compactMap { $0[key] as? Int })
        }
        for key in ["faceID", "trackID"] {
            let a = ids(key, "a")
            let b = ids(key, "b")
            #expect(!a.isEmpty && !b.isEmpty, "\(key): \(a) \(b)")
            #expect(a.isDisjoint(with: b), "\(key) shared between cameras: \(a) \(b)")
        }
    }

    @Test func aSocketClientSubscribedToOneCameraGetsOnlyItsEvents() throws {
        let dir = DaemonPaths.tempDir("multicam-sock")
        defer { DaemonPaths.remove(dir) }
        let sock = dir + "/s.sock"
        let kiosk = DaemonPaths.kiosk
        let d = try DaemonProcess(
            [
                "run", "--camera", "left=\(kiosk)", "--camera", "right=\(kiosk)", "--loop", "--socket", sock,
                "--stdout", "--log-level", "notice",
            ], dir: dir)
        #expect(d.waitReady())
        let client = try DaemonSocketClient(path: sock)
        client.send(#"{"subscribe":{"cameras":["right"],"events":["metadata","appeared","lost","device"]}}"# + "\n")
        let read = client.readLines(for: 4)
        client.send(#"{"poll":{}}"# + "\n" + #"{"devices":{}}"# + "\n")
        let replies = client.readLines(for: 2)
        #expect(d.terminate() == 0)
        let lines = (read.lines + replies.lines).compactMap(DaemonEventLine.init)
        let reply = try #require(lines.firstIndex { $0.event == "subscribed" }, "no subscribed reply")
        #expect(lines[reply].object["cameras"] as? [String] == ["right"])
        let after = lines[(reply + 1)...].filter { $0.seq != nil }
        #expect(after.count > 20)
        #expect(after.allSatisfy { $0.object["camera"] as? String == "right" })
        // The left camera was publishing in the same range: the filter, not chance, kept it out.
        let stdout = Self.lines(d.stdoutPath)
        let range = (after.first!.seq!)...(after.last!.seq!)
        #expect(stdout.contains { range.contains($0["seq"] as? Int ?? 0) && $0["camera"] as? String == "left" })
        // `poll` answers with the subscribed camera's objects only; `devices` lists both cameras.
        let polled = replies.lines.compactMap(DaemonEventLine.init)
        let snapshot = polled.filter { $0.object["snapshot"] != nil }
        #expect(polled.contains { $0.event == "polled" })
        #expect(snapshot.allSatisfy { $0.object["camera"] as? String == "right" })
        // On connect, before subscribing, the snapshot covered every camera.
        let onConnect = lines[..<reply].filter { $0.object["snapshot"] != nil }
        #expect(onConnect.allSatisfy { ["left", "right"].contains($0.object["camera"] as? String ?? "") })
        let devices = try #require(lines.last { $0.event == "devices" })
        let listed = (devices.object["devices"] as? [[String: Any]] ?? []).compactMap { $0["camera"] as? String }
        #expect(Set(listed) == ["left", "right"])
    }

    @Test func configFileCamerasTakeTheirOwnSettingsOverTheTopLevel() throws {
        let dir = DaemonPaths.tempDir("multicam-config")
        defer { DaemonPaths.remove(dir) }
        let config = dir + "/scand.json"
        let kiosk = DaemonPaths.kiosk
        // Top level: QR only. "retail" reads EAN-13 only; "tickets" takes the top level's types.
        try """
        {"types": ["qr"], "stdout": true, "metadata": false, "pacing": false,
         "cameras": {"tickets": {"input": "\(kiosk)"},
                     "retail": {"input": "\(kiosk)", "types": ["ean13"], "presence": {"lostAfter": 0.5}}}}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let check = try ScandBinary.run(["run", "--check-config", config])
        #expect(check.status == 0, "\(check.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout)) as? [String: Any])
        let cameras = try #require(doc["cameras"] as? [String: [String: Any]])
        #expect(cameras["retail"]?["types"] as? [String] == ["ean13"] && cameras["tickets"]?["types"] as? [String] == ["qr"])
        #expect(cameras["retail"]?["presence.lostAfter"] as? Double == 0.5 && cameras["tickets"]?["presence.lostAfter"] as? Double == 1)
        #expect(cameras["retail"]?["input"] as? String == kiosk && cameras["retail"]?["socket.path"] == nil)
        let r = try ScandBinary.run(["run", "--config", config])
        #expect(r.status == 0, "\(r.stderr)")
        let events = try r.jsonLines()
        let appeared = events.filter { $0["event"] as? String == "appeared" }
        #expect(Set(appeared.filter { $0["camera"] as? String == "retail" }.compactMap { $0["type"] as? String }) == ["ean13"])
        #expect(Set(appeared.filter { $0["camera"] as? String == "tickets" }.compactMap { $0["type"] as? String }) == ["qr"])
        #expect(appeared.filter { $0["camera"] as? String == "tickets" }.count == 3)
    }

    @Test func theShippedKioskConfigIsValidAndNamesBothCameras() throws {
        let config = DaemonPaths.root + "/contrib/scand-kiosk.json"
        let r = try ScandBinary.run(["run", "--check-config", config])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        let cameras = try #require(doc["cameras"] as? [String: [String: Any]])
        #expect(cameras["door"]?["types"] as? [String] == ["face"] && cameras["door"]?["device"] as? String == "/dev/scand-door")
        #expect(cameras["plate"]?["size"] as? String == "1280x720" && cameras["plate"]?["fps"] as? Double == 30)
        // Neither camera is plugged in here: a warning each, not an error (scand run waits for them).
        #expect(r.stderr.contains("camera 'door': device '/dev/scand-door' does not exist now"), "\(r.stderr)")
        #expect(r.stderr.contains("camera 'plate': device '/dev/scand-plate' does not exist now"), "\(r.stderr)")
    }

    @Test(arguments: [
        (#"{"cameras": {"a": {"input": "x.y4m", "socket": "/tmp/s"}}}"#, "1:38", "'socket.path' is a setting of the whole run"),
        (#"{"cameras": {"a": {"types": ["qr"]}}}"#, "1:14", "camera 'a' needs one 'input' or 'device'"),
        (#"{"cameras": {"a b": {"input": "x.y4m"}}}"#, "1:14", "must be 1 to 64 letters, digits"),
        (#"{"input": "x.y4m", "cameras": {"a": {"input": "x.y4m"}}}"#, "1:20", "not at the top level"),
        ("{\"cameras\": {\"a\": {\"input\": \"x.y4m\",\n  \"fps\": -3}}}", "2:3", "camera 'a': 'fps'"),
        (#"{"cameras": {"a": {"input": "x.y4m", "scanDensty": 2}}}"#, "1:38", "did you mean 'cameras.a.scanDensity'"),
    ])
    func aMistakeInACameraEntryNamesItsLineAndColumn(config: String, position: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let path = dir.url.appendingPathComponent("scand.json").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try ScandBinary.run(["run", "--check-config", path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("\(path):\(position):") && r.stderr.contains(message), "\(r.stderr)")
    }

    @Test func cameraFlagsAreChecked() throws {
        let kiosk = DaemonPaths.kiosk
        for (arguments, message) in [
            (["--camera", "a=\(kiosk)", "--input", kiosk], "not --input or --device"),
            (["--camera", "a"], "--camera takes NAME=SOURCE"),
            (["--camera", "a/b=\(kiosk)"], "must be 1 to 64 letters"),
            (["--camera", "a=\(kiosk)", "--camera", "a=\(kiosk)"], "'a' given twice"),
            (["--camera", "a=-", "--camera", "b=-"], "only one camera can read stdin"),
        ] {
            let r = try ScandBinary.run(["run", "--stdout"] + arguments)
            #expect(r.status == 64, "\(arguments): \(r.status)")
            #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
    }
}
