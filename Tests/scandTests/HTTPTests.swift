import Foundation
import Testing
import ScanTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `scand run --http`: a real daemon replaying a clip with one QR code at a known place, and real clients:
/// headless Chromium (Debian `chromium`, over the DevTools protocol), python3-websocket, prometheus_client's
/// text parser, urllib. The scripts are Tests/Fixtures/http_page_check.py and http_client.py.
@Suite("scand run --http", .serialized)
struct HTTPTests {
    static let python = "/usr/bin/python3"
    static let fixtures = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures").path
    /// The clip: 640×480, a 210 px QR code (21 modules × 10 px) with its top-left corner at (220, 140).
    static let code = (x: 220.0, y: 140.0, size: 210.0)
    /// Where the code of each camera but the first is (frame pixels; modules of 8 px).
    static let otherCode = (x: 380, y: 240, module: 8)

    /// A daemon serving HTTP on a free loopback port, with a token unless `token` is false.
    final class Server {
        let daemon: DaemonProcess
        let dir: String
        let base: String
        let token: String?

        /// - Parameter cameras: names of cameras (`--camera NAME=CLIP`); none: `--input`. The first replays
        ///   the clip; each other its own, whose code reads `scand-http-NAME`, at ``HTTPTests/otherCode``.
        init(token: Bool = true, extra: [String] = [], cameras: [String] = []) throws {
            dir = DaemonPaths.tempDir("http")
            let clip = dir + "/clip.y4m"
            _ = try runTool(HTTPTests.python, [HTTPTests.fixtures + "/make_http_clip.py", clip, "640", "480", "220", "140", "10", "30"])
            var source = cameras.isEmpty ? ["--input", clip] : []
            for (i, name) in cameras.enumerated() {
                let other = dir + "/clip-\(name).y4m", c = HTTPTests.otherCode
                if i > 0 {
                    _ = try runTool(HTTPTests.python, [HTTPTests.fixtures + "/make_http_clip.py", other, "640", "480",
                                                       "\(c.x)", "\(c.y)", "\(c.module)", "30", "scand-http-\(name)"])
                }
                source += ["--camera", "\(name)=\(i == 0 ? clip : other)"]
            }
            var args = ["run"] + source + ["--loop", "--no-stdout", "--log-level", "notice", "--http", "127.0.0.1:0"]
            if token {
                let t = (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                let path = dir + "/token"
                _ = FileManager.default.createFile(atPath: path, contents: Data(t.utf8), attributes: [.posixPermissions: 0o600])
                args += ["--http-token", path]
                self.token = t
            } else {
                self.token = nil
            }
            let d = try DaemonProcess(args + extra, dir: dir)
            #expect(d.waitReady(), "daemon not ready: \(d.stderr)")
            // The HTTP service logs its port once it listens (it starts beside the pipeline, in the group).
            let port = { d.stderr.firstMatch(of: /port=(\d+) \[ScanHTTP\] http listening/).map { String($0.1) } }
            let listening = daemonEventually(20) { port() != nil }
            #expect(listening, "no 'http listening' line: \(d.stderr)")
            daemon = d
            base = "http://127.0.0.1:\(port() ?? "0")"
        }

        deinit {
            _ = daemon.terminate()
            DaemonPaths.remove(dir)
        }

        func client(_ args: [String]) throws -> [String: Any] {
            let out = try runTool(HTTPTests.python, [HTTPTests.fixtures + "/http_client.py"] + args)
            return try #require(try JSONSerialization.jsonObject(with: out) as? [String: Any])
        }
    }

    struct PageCase: Sendable, CustomTestStringConvertible {
        var width: Int, height: Int, gravity: String
        var testDescription: String { "\(gravity) in \(width)x\(height)" }
    }

    @Test("the page draws the code's outline within 8 px of the code on the screenshot, and WebSocket events arrive",
          arguments: [PageCase(width: 960, height: 540, gravity: "resizeAspect"),
                      PageCase(width: 960, height: 540, gravity: "resizeAspectFill"),
                      PageCase(width: 500, height: 600, gravity: "resizeAspect"),
                      PageCase(width: 500, height: 600, gravity: "resizeAspectFill")])
    func pageOutline(_ c: PageCase) throws {
        let server = try Server()
        let url = "\(server.base)/?videoGravity=\(c.gravity)#token=\(server.token!)"
        let out = try runTool(Self.python, [Self.fixtures + "/http_page_check.py", url, "\(c.width)", "\(c.height)",
                                            server.dir + "/shot"])
        let r = try #require(try JSONSerialization.jsonObject(with: out) as? [String: Any])
        let code = try #require(r["code"] as? [[Double]], "OpenCV found no code on the plain screenshot: \(r)")
        #expect(code.count == 4)
        let corners = try #require(r["cornerDistances"] as? [Double], "no outline drawn: \(r)")
        #expect(corners.allSatisfy { $0 <= 8 }, "outline too far from a corner of the code: \(corners)")
        #expect((r["outlineMaxDistance"] as? Double ?? 99) <= 8, "outline pixels off the code's edges: \(r)")
        #expect((r["outlinePixels"] as? Int ?? 0) > 200)
        // The code's side on screen follows the gravity: 210 px × the picture's scale.
        let side = hypot(code[1][0] - code[0][0], code[1][1] - code[0][1])
        let sx = Double(c.width) / 640, sy = Double(c.height) / 480
        let scale = c.gravity == "resizeAspectFill" ? max(sx, sy) : min(sx, sy)
        #expect(abs(side - 210 * scale) <= 8, "code side \(side) px on screen, expected \(210 * scale)")
        // WebSocket events reached the page: the banner and the code's `appeared`.
        let names = r["eventNames"] as? [String] ?? []
        #expect(names.contains("hello") && names.contains("appeared"), "events in the page: \(names)")
    }

    @Test("/metrics parses with prometheus_client and its frame counter moves")
    func metrics() throws {
        let server = try Server()
        let r = try server.client(["metrics", server.base, server.token!, "1.5"])
        let first = try #require(r["first"] as? [String: Double]), second = try #require(r["second"] as? [String: Double])
        let types = try #require(r["types"] as? [String: String])
        #expect(types["scand_frames_processed"] == "counter")
        #expect(types["scand_frames_captured"] == "counter")
        #expect(types["scand_stage_duration_seconds"] == "histogram")
        #expect(types["scand_detections"] == "counter")
        // The camera's series carry its name: `default` for --input (issue 49).
        let processed = "scand_frames_processed_total{camera=\"default\"}"
        let p1 = try #require(first[processed]), p2 = try #require(second[processed])
        #expect(p2 > p1, "processed frames did not move: \(p1) → \(p2)")
        #expect((second["scand_detections_total{camera=\"default\",type=\"qr\"}"] ?? 0) > 0)
        #expect((second["scand_stage_duration_seconds_count{camera=\"default\",stage=\"barcode\"}"] ?? 0) > 0)
        #expect(second["scand_device_up{camera=\"default\"}"] == 1)
        #expect(second["scand_jpeg_encodes_total"] == 0, "nobody watched, yet JPEGs were encoded")
        let preview = try server.client(["json", server.base + "/state", server.token!])["preview"] as? [String: Any]
        #expect(preview?["jpegEncodes"] as? Int == 0, "/state: nobody watched, yet JPEGs were encoded: \(preview ?? [:])")
        #expect((r["contentType"] as? String ?? "").hasPrefix("text/plain"))
    }

    @Test("/state lists every camera with its name, device and frames; one camera is `default` (issue 49)")
    func stateListsTheCameras() throws {
        let one = try Server()
        let single = try one.client(["json", one.base + "/state", one.token!])["cameras"] as? [[String: Any]] ?? []
        #expect(single.count == 1 && single.first?["name"] as? String == "default", "\(single)")
        let two = try Server(cameras: ["left", "right"])
        #expect(daemonEventually(20) {
            let cameras = (try? two.client(["json", two.base + "/state", two.token!])["cameras"] as? [[String: Any]]) ?? []
            return cameras.allSatisfy { (($0["frames"] as? [String: Any])?["processed"] as? Int ?? 0) > 0 } && cameras.count == 2
        })
        let cameras = try two.client(["json", two.base + "/state", two.token!])["cameras"] as? [[String: Any]] ?? []
        #expect(cameras.compactMap { $0["name"] as? String } == ["left", "right"], "\(cameras)")
        #expect(cameras.allSatisfy { ($0["device"] as? String ?? "").hasSuffix(".y4m") && $0["state"] as? String == "started" })
        // /metrics: every camera's frame series under its own label, each moving.
        let samples = try two.client(["samples", two.base, two.token!]) as? [String: Double] ?? [:]
        for camera in ["left", "right"] {
            #expect((samples["scand_frames_processed_total{camera=\"\(camera)\"}"] ?? 0) > 0, "\(camera): \(samples.keys.sorted().prefix(40))")
            #expect((samples["scand_detections_total{camera=\"\(camera)\",type=\"qr\"}"] ?? 0) > 0)
            #expect(samples["scand_device_up{camera=\"\(camera)\"}"] == 1)
        }
    }

    @Test("the MQTT sink's connection and outbox show on /state and /metrics, and follow a broker that stops")
    func brokerStateAndMetrics() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let server = try Server(extra: ["--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-id", "httpkiosk",
                                        "--mqtt-reconnect-max", "1", "--mqtt-metadata"])
        func mqtt() throws -> [String: Any] { try server.client(["json", server.base + "/state", server.token!])["mqtt"] as? [String: Any] ?? [:] }
        func samples() throws -> [String: Double] {
            let out = try runTool(HTTPTests.python, [HTTPTests.fixtures + "/http_client.py", "samples", server.base, server.token!])
            return try #require(try JSONSerialization.jsonObject(with: out) as? [String: Double])
        }
        #expect(daemonEventually(20) { ((try? mqtt())?["acknowledgedMessages"] as? Int ?? 0) > 0 }, "no acknowledged message on /state")
        let up = try mqtt()
        #expect(up["connected"] as? Bool == true)
        #expect(up["broker"] as? String == "mqtt://127.0.0.1:\(broker.port)")
        #expect(up["connections"] as? Int == 1)
        let s1 = try samples()
        #expect(s1["scand_mqtt_connected"] == 1)
        #expect((s1["scand_mqtt_acknowledged_total"] ?? 0) > 0)
        #expect(s1["scand_mqtt_connections_total"] == 1)
        #expect(s1["scand_event_overflows_total{transport=\"socket\"}"] == 0)
        broker.stop()
        // The daemon keeps looping the clip: the outbox fills while the broker is away.
        #expect(daemonEventually(20) { (try? mqtt())?["connected"] as? Bool == false }, "/state still says connected")
        #expect(daemonEventually(10) { ((try? mqtt())?["queuedMessages"] as? Int ?? 0) > 0 })
        let s2 = try samples()
        #expect(s2["scand_mqtt_connected"] == 0)
        #expect((s2["scand_mqtt_outbox_messages"] ?? 0) > 0)
        #expect(((try mqtt())["lastError"] as? String ?? "").contains("127.0.0.1:\(broker.port)"))
    }

    @Test("a request without the token is refused; the page shell is not secret")
    func token() throws {
        let server = try Server()
        for path in ["/state", "/metrics", "/snapshot.jpg", "/stream.mjpg"] {
            #expect(try server.client(["status", server.base + path])["status"] as? Int == 401, "\(path) without token")
            #expect(try server.client(["status", server.base + path, "wrong-token-wrong-token"])["status"] as? Int == 401, "\(path) wrong token")
        }
        #expect(try server.client(["status", server.base + "/state", server.token!])["status"] as? Int == 200)
        let refused = try server.client(["ws", server.base, "-"])
        #expect(refused["refused"] != nil, "WebSocket without token: \(refused)")
        let page = try server.client(["status", server.base + "/"])
        #expect(page["status"] as? Int == 200 && (page["type"] as? String ?? "").hasPrefix("text/html"))
        let snapshot = try server.client(["status", server.base + "/snapshot.jpg?annotate=1", server.token!])
        #expect(snapshot["jpeg"] as? Bool == true)
    }

    @Test("WebSocket /events: the socket's banner, snapshot and subscribe replies")
    func webSocket() throws {
        let server = try Server()
        let r = try server.client(["ws", server.base, server.token!, #"{"subscribe":{"types":["qr"],"events":["appeared","lost"]}}"#,
                                   #"{"poll":{}}"#, #"{"bogus":1}"#])
        let connect = try #require(r["connect"] as? [[String: Any]])
        #expect(connect.first?["event"] as? String == "hello")
        #expect((connect.first?["events"] as? [String])?.contains("configuration") == true)
        #expect(connect.contains { $0["snapshot"] as? Bool == true && $0["value"] as? String == "scand-http-17" },
                "no snapshot line for the code in view: \(connect)")
        let replies = try #require(r["replies"] as? [[String: Any]])
        #expect(replies.contains { $0["event"] as? String == "subscribed" && $0["types"] as? [String] == ["qr"] })
        #expect(replies.contains { $0["event"] as? String == "polled" && $0["present"] as? Int == 1 })
        #expect(replies.last?["event"] as? String == "error")
    }

    @Test("a rect dragged on the page becomes the rect of interest, as a configuration event; only with a token")
    func rectOfInterest() throws {
        let server = try Server()
        // 960×540 view, resizeAspect: the picture is 720×540 at x 120. View (300,100)-(600,400) is device
        // ((300-120)/720, 100/540, 300/720, 300/540).
        let r = try server.client(["roi", server.base, server.token!, "300", "100", "300", "300", "960", "540"])
        #expect(r["status"] as? Int == 200)
        let roi = try #require((r["event"] as? [String: Any])?["rectOfInterest"] as? [String: Double], "\(r)")
        #expect(abs(roi["x"]! - 0.25) < 1e-5 && abs(roi["y"]! - 100.0 / 540) < 1e-5)
        #expect(abs(roi["width"]! - 300.0 / 720) < 1e-5 && abs(roi["height"]! - 300.0 / 540) < 1e-5)

        let open = try Server(token: false)
        let refused = try open.client(["roi", open.base, "-", "300", "100", "300", "300", "960", "540"])
        #expect(refused["status"] as? Int == 403)
    }

    @Test("MJPEG and WebSocket clients that stall or go away do not stop detection or other viewers")
    func stalledClients() throws {
        let server = try Server()
        let r = try server.client(["stall", server.base, server.token!, "10", "3"])
        let before = try #require(r["before"] as? Double), after = try #require(r["after"] as? Double)
        // Paced at 15 fps: 3 s is ~45 frames; detection must keep going (the figure is in bench/http).
        #expect(after - before >= 15, "frames processed while 20 clients stalled: \(after - before)")
        #expect(r["freshParts"] as? Int ?? 0 >= 3, "a new viewer got no frames while others stalled")
        let clients = try #require(r["clientsAfter"] as? [String: Int])
        #expect(clients["stream"] == 0 && clients["websocket"] == 0, "clients still counted after they went: \(clients)")
    }

    @Test("scan --annotate draws the outline where the code is")
    func annotate() throws {
        let dir = DaemonPaths.tempDir("annotate")
        defer { DaemonPaths.remove(dir) }
        let clip = dir + "/clip.y4m"
        _ = try runTool(Self.python, [Self.fixtures + "/make_http_clip.py", clip, "640", "480", "220", "140", "10", "3"])
        let result = try ScandBinary.run(["scan", "--annotate", dir + "/out", clip])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").sorted()
        #expect(files == ["clip-000000.jpg", "clip-000001.jpg", "clip-000002.jpg"])
        let out = try runTool(Self.python, [Self.fixtures + "/http_client.py", "outline", dir + "/out/clip-000001.jpg",
                                            "220", "140", "430", "350"])
        let r = try #require(try JSONSerialization.jsonObject(with: out) as? [String: Any])
        let corners = try #require(r["cornerDistances"] as? [Double], "no outline: \(r)")
        #expect(corners.allSatisfy { $0 <= 8 }, "\(corners)")
        #expect((r["maxDistance"] as? Double ?? 99) <= 8, "\(r)")
        // Never overwrites: a second run into the same directory fails and names the file.
        let again = try ScandBinary.run(["scan", "--annotate", dir + "/out", clip])
        #expect(again.status != 0 && again.stderr.contains("clip-000000.jpg"))
    }
}
