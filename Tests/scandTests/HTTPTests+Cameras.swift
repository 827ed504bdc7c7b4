import Foundation
import Testing
import ScanTestSupport

/// The HTTP service of a daemon with several cameras (issue 49): the page shows every camera with its
/// outlines, and each camera has its own page, snapshot, stream, state and rect of interest.
extension HTTPTests {
    @Test("the page shows two cameras, each with its own picture, outline and events, checked in headless Chromium")
    func pageOfTwoCameras() throws {
        let server = try Server(cameras: ["left", "right"])
        let url = "\(server.base)/#token=\(server.token!)"
        let out = try runTool(Self.python, [Self.fixtures + "/http_page_check.py", url, "1280", "480",
                                            server.dir + "/shot", "2"])
        let r = try #require(try JSONSerialization.jsonObject(with: out) as? [String: Any])
        let views = try #require(r["views"] as? [[String: Any]], "\(r)")
        #expect(views.compactMap { $0["camera"] as? String } == ["left", "right"], "\(views)")
        for view in views {
            let camera = view["camera"] as? String ?? "?"
            #expect((view["frames"] as? Int ?? 0) >= 3 && (view["objects"] as? Int ?? 0) >= 1, "\(camera): \(view)")
            #expect((view["names"] as? [String] ?? []).contains("appeared"), "\(camera): \(view)")
            // Each camera's page follows its own camera's events only.
            #expect(view["eventCameras"] as? [String] == [camera], "\(camera): \(view)")
        }
        // Both codes on the screenshot (OpenCV, nothing of scand's), each outlined within 8 px of its corners.
        let codes = try #require(r["codes"] as? [[String: Any]])
        #expect(codes.count == 2, "codes on the plain screenshot: \(codes)")
        for code in codes {
            let d = code["cornerDistances"] as? [Double] ?? []
            #expect(d.count == 4 && d.allSatisfy { $0 <= 8 }, "outline too far from a corner: \(code)")
        }
        // Left half, right half: one code in each camera's frame.
        let xs = codes.compactMap { ($0["corners"] as? [[Double]])?.map { $0[0] }.min() }.sorted()
        #expect(xs.count == 2 && xs[0] < 640 && xs[1] >= 640, "code positions: \(xs)")
    }

    @Test("each camera has its own snapshot, stream, state and rect of interest under /cameras/NAME/")
    func routesOfEachCamera() throws {
        let server = try Server(cameras: ["left", "right"])
        let token = server.token!
        // Snapshots: each camera's own picture; OpenCV finds its code where that camera's clip has it.
        func codeAt(_ path: String) -> [Double]? {
            guard let corners = (try? server.client(["qr", server.base + path, token]))?["corners"] as? [[Double]],
                corners.count == 4
            else { return nil }
            return [corners.map { $0[0] }.min()!, corners.map { $0[1] }.min()!, corners.map { $0[0] }.max()!]
        }
        // The side of the right camera's code depends on its text's QR version: its top-left corner tells.
        let o = Self.otherCode
        for (camera, x, y, size) in [("left", Self.code.x, Self.code.y, Self.code.size), ("right", Double(o.x), Double(o.y), nil)] {
            var found: [Double]?
            #expect(daemonEventually(20) { found = codeAt("/cameras/\(camera)/snapshot.jpg"); return found != nil },
                    "\(camera): no code on its snapshot")
            if let f = found {
                #expect(abs(f[0] - x) <= 3 && abs(f[1] - y) <= 3 && (size.map { abs(f[2] - f[0] + 1 - $0) <= 4 } ?? true), "\(camera): code at \(f)")
            }
        }
        // The camera-less routes serve the first camera.
        #expect(codeAt("/snapshot.jpg").map { abs($0[0] - Self.code.x) <= 3 } == true)
        let stream = try server.client(["status", server.base + "/cameras/right/stream.mjpg", token])
        #expect(stream["status"] as? Int == 200 && (stream["type"] as? String ?? "").hasPrefix("multipart/x-mixed-replace"))
        // State: the camera's own source and objects.
        let state = try server.client(["json", server.base + "/cameras/right/state", token])
        #expect(state["camera"] as? String == "right")
        #expect((state["device"] as? String ?? "").hasSuffix("clip-right.y4m"), "\(state)")
        let objects = state["objects"] as? [[String: Any]] ?? []
        #expect(objects.compactMap { $0["value"] as? String } == ["scand-http-right"], "\(objects)")
        #expect((state["cameras"] as? [[String: Any]])?.count == 1)
        let present = state["present"] as? [[String: Any]] ?? []
        #expect(!present.isEmpty && present.allSatisfy { $0["camera"] as? String == "right" }, "\(present)")
        // Unknown camera: 404; the page shell needs no token; without the slash, a redirect to it.
        #expect(try server.client(["status", server.base + "/cameras/nope/state", token])["status"] as? Int == 404)
        #expect(try server.client(["status", server.base + "/cameras/right/state"])["status"] as? Int == 401)
        let page = try server.client(["status", server.base + "/cameras/right/"])
        #expect(page["status"] as? Int == 200 && (page["type"] as? String ?? "").hasPrefix("text/html"))
        let redirected = try server.client(["status", server.base + "/cameras/right"])
        #expect(redirected["status"] as? Int == 200 && (redirected["type"] as? String ?? "").hasPrefix("text/html"))
        // The rect of interest of one camera: its configuration event names it.
        let r = try server.client(["roi", server.base + "/cameras/right", token, "300", "100", "300", "300", "960", "540"])
        #expect(r["status"] as? Int == 200, "\(r)")
        let event = try #require(r["event"] as? [String: Any], "\(r)")
        #expect(event["camera"] as? String == "right", "\(event)")
        #expect(try server.client(["status", server.base + "/cameras/nope/rect-of-interest", token])["status"] as? Int != 200)
    }
}

extension HTTPTests {
    @Test("a camera a SIGHUP adds gets its page, snapshot and state; one it removes loses them")
    func reloadAddsAndRemovesPreviews() throws {
        let dir = DaemonPaths.tempDir("http-hup")
        defer { DaemonPaths.remove(dir) }
        let clip = dir + "/clip.y4m", config = dir + "/scand.json"
        _ = try runTool(Self.python, [Self.fixtures + "/make_http_clip.py", clip, "640", "480", "220", "140", "10", "30"])
        func write(_ names: [String]) throws {
            let cameras = names.map { #""\#($0)": {"input": "\#(clip)"}"# }.joined(separator: ", ")
            try #"{"stdout": false, "loop": true, "cameras": {\#(cameras)}}"#
                .write(toFile: config, atomically: true, encoding: .utf8)
        }
        try write(["a", "b"])
        let d = try DaemonProcess(["run", "--config", config, "--log-level", "notice", "--http", "127.0.0.1:0"], dir: dir)
        defer { _ = d.terminate() }
        #expect(d.waitReady(), "\(d.stderr)")
        let port = { d.stderr.firstMatch(of: /port=(\d+) \[ScanHTTP\] http listening/).map { String($0.1) } }
        #expect(daemonEventually(20) { port() != nil }, "\(d.stderr)")
        let base = "http://127.0.0.1:\(port() ?? "0")"
        func client(_ args: [String]) -> [String: Any] {
            guard let out = try? runTool(Self.python, [Self.fixtures + "/http_client.py"] + args) else { return [:] }
            return (try? JSONSerialization.jsonObject(with: out)) as? [String: Any] ?? [:]
        }
        #expect(daemonEventually(20) { client(["json", base + "/cameras"])["cameras"] as? [String] == ["a", "b"] })
        try write(["a", "c"])
        d.signal(SIGHUP)
        #expect(daemonEventually(20) { client(["json", base + "/cameras"])["cameras"] as? [String] == ["a", "c"] },
                "\(client(["json", base + "/cameras"])) \(d.stderr)")
        #expect(daemonEventually(20) { client(["status", base + "/cameras/c/snapshot.jpg"])["jpeg"] as? Bool == true })
        #expect(client(["status", base + "/cameras/b/state"])["status"] as? Int == 404)
        #expect(client(["json", base + "/cameras/c/state"])["camera"] as? String == "c")
    }
}
