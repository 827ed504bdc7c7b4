import Foundation
import ScanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Network cameras in `scand run` (issue 49), against real servers on loopback: GStreamer's RTSP server
/// (Tests/Fixtures/rtsp_server.py, H.264 with Basic authentication) and FFmpeg serving MPEG-TS and MJPEG over
/// HTTP (`ffmpeg -listen 1`), beside a clip camera. The HTTP server is cut off mid-run and started again; the
/// RTSP server is frozen (SIGSTOP: it stops sending and closes nothing) and thawed.
@Suite(.serialized) struct NetworkCameraTests {
    static let password = "pa ss:w@rd-49"

    /// The kiosk clip as MPEG-TS (H.264), for the HTTP server to send as it is.
    static func transportStream(_ dir: String) throws -> String {
        let ts = dir + "/kiosk.ts"
        _ = try runTool("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", DaemonPaths.kiosk,
                                            "-c:v", "libx264", "-preset", "ultrafast", "-g", "10", "-pix_fmt", "yuv420p",
                                            "-f", "mpegts", ts])
        return ts
    }

    /// `ffmpeg -re` sending `ts` in a loop to the one client of http://127.0.0.1:PORT/x.ts.
    static func httpServer(_ ts: String, port: Int, log: String) throws -> Process {
        try DaemonRun.start("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", ts,
                                                "-c", "copy", "-f", "mpegts", "-listen", "1", "http://127.0.0.1:\(port)/x.ts"],
                            stderr: log)
    }

    /// `ffmpeg -re` sending the kiosk clip as MJPEG (multipart JPEG) in a loop to the one client of
    /// http://127.0.0.1:PORT/x.mjpg, as many IP cameras serve their picture.
    static func mjpegServer(port: Int, log: String) throws -> Process {
        try DaemonRun.start("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1",
                                                "-i", DaemonPaths.kiosk, "-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj420p",
                                                "-f", "mpjpeg", "-listen", "1", "http://127.0.0.1:\(port)/x.mjpg"],
                            stderr: log)
    }

    static func stop(_ p: Process) {
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        if DaemonRun.wait(p, timeout: 10) == nil { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
    }

    /// Metadata events of `camera` whose time is within `range` (wall-clock seconds).
    static func frames(_ events: [[String: Any]], _ camera: String, in range: ClosedRange<Double>) -> Int {
        events.filter {
            $0["event"] as? String == "metadata" && $0["camera"] as? String == camera
                && ($0["timestamp"] as? Double).map { range.contains($0) } == true
        }.count
    }

    @Test func rtspAndHTTPCamerasReconnectAndNeverDisturbTheOthers() throws {
        let dir = DaemonPaths.tempDir("netcam")
        defer { DaemonPaths.remove(dir) }
        let ts = try Self.transportStream(dir)
        let passwordFile = dir + "/rtsp-password", credentials = dir + "/rtsp-credentials"
        try Self.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try "scand:\(Self.password)\n".write(toFile: credentials, atomically: true, encoding: .utf8)
        chmod(credentials, 0o600)
        let rtspPort = try MosquittoBroker.freePort(), httpPort = try MosquittoBroker.freePort()
        let rtsp = try DaemonRun.start(
            DaemonPaths.python,
            [DaemonPaths.root + "/Tests/Fixtures/rtsp_server.py", "--port", "\(rtspPort)", "--mount", "/cam",
             "--input", DaemonPaths.kiosk, "--user", "scand", "--password-file", passwordFile],
            stdout: dir + "/rtsp.out", stderr: dir + "/rtsp.err")
        defer { Self.stop(rtsp) }
        #expect(daemonEventually(30) { daemonReadText(dir + "/rtsp.out").contains("READY") }, "\(daemonReadText(dir + "/rtsp.err"))")
        var http = try Self.httpServer(ts, port: httpPort, log: dir + "/http1.err")
        defer { Self.stop(http) }
        let mjpegPort = try MosquittoBroker.freePort()
        let mjpeg = try Self.mjpegServer(port: mjpegPort, log: dir + "/mjpeg.err")
        defer { Self.stop(mjpeg) }
        var environment = ProcessInfo.processInfo.environment
        environment["SCAND_CAMERA_CREDENTIALS_DOOR_FILE"] = credentials  // never argv
        let d = try DaemonProcess(
            ["run", "--camera", "clip=\(DaemonPaths.kiosk)", "--camera", "door=rtsp://127.0.0.1:\(rtspPort)/cam",
             "--camera", "shelf=http://127.0.0.1:\(httpPort)/x.ts", "--camera", "locked=rtsp://127.0.0.1:\(rtspPort)/cam",
             "--camera", "gate=http://127.0.0.1:\(mjpegPort)/x.mjpg",
             "--loop", "--stdout", "--stall-timeout", "1", "--log-level", "info"],
            dir: dir, environment: environment)
        defer { _ = d.terminate() }
        var events: [[String: Any]] { MultiCameraTests.lines(d.stdoutPath) }
        func count(_ camera: String) -> Int { events.filter { $0["event"] as? String == "metadata" && $0["camera"] as? String == camera }.count }
        func kinds(_ camera: String) -> [String] {
            events.filter { $0["event"] as? String == "device" && $0["camera"] as? String == camera }.compactMap { $0["kind"] as? String }
        }
        #expect(daemonEventually(60) { ["clip", "door", "shelf", "gate"].allSatisfy { count($0) >= 40 } },
                "frames: clip \(count("clip")) door \(count("door")) shelf \(count("shelf")) gate \(count("gate")); \(d.stderr)")
        // Cut the HTTP camera off; start its server again 3 s after scand saw it stall.
        let cut = Date().timeIntervalSince1970
        Self.stop(http)
        #expect(daemonEventually(20) { kinds("shelf").contains("wasInterrupted") }, "\(kinds("shelf"))")
        Thread.sleep(forTimeInterval: 3)
        http = try Self.httpServer(ts, port: httpPort, log: dir + "/http2.err")
        #expect(daemonEventually(60) { kinds("shelf").contains("interruptionEnded") }, "\(kinds("shelf")) \(d.stderr)")
        let back = Date().timeIntervalSince1970
        let framesBefore = count("shelf")
        #expect(daemonEventually(20) { count("shelf") >= framesBefore + 20 }, "no frames from shelf after it came back")
        // The RTSP server stops sending without closing anything (frozen): a stall after --stall-timeout, and
        // frames again once it runs (scand connects again).
        kill(rtsp.processIdentifier, SIGSTOP)
        #expect(daemonEventually(20) { kinds("door").contains("wasInterrupted") }, "\(kinds("door"))")
        Thread.sleep(forTimeInterval: 2)
        kill(rtsp.processIdentifier, SIGCONT)
        #expect(daemonEventually(60) { kinds("door").contains("interruptionEnded") }, "\(kinds("door")) \(d.stderr)")
        #expect(d.terminate() == 0, "\(d.stderr)")
        let all = events
        // The cut camera: stalled, reconnected, its frames again; named by camera in every event.
        #expect(kinds("shelf") == ["started", "wasInterrupted", "interruptionEnded", "stopped"], "\(kinds("shelf"))")
        #expect(kinds("door") == ["started", "wasInterrupted", "interruptionEnded", "stopped"], "\(kinds("door"))")
        let frozen = all.first { $0["camera"] as? String == "door" && $0["kind"] as? String == "wasInterrupted" }
        let frozenReason = frozen.flatMap { $0["reason"] as? String } ?? ""
        #expect(frozenReason.contains("sent nothing for 1.0 s"), "\(frozenReason)")
        #expect(kinds("clip") == ["started", "stopped"], "\(kinds("clip"))")
        #expect(kinds("gate") == ["started", "stopped"], "\(kinds("gate"))")
        // Without credentials the RTSP server refuses: `waiting` with its reason, never started.
        #expect(kinds("locked") == ["waiting", "stopped"], "\(kinds("locked"))")
        // Each network camera read the clip's codes, as the clip camera did.
        func values(_ camera: String) -> Set<String> {
            Set(all.filter { $0["event"] as? String == "appeared" && $0["camera"] as? String == camera }.compactMap { $0["value"] as? String })
        }
        #expect(!values("clip").isEmpty)
        #expect(values("door") == values("clip") && values("shelf") == values("clip") && values("gate") == values("clip"),
                "door \(values("door")) shelf \(values("shelf")) gate \(values("gate")) clip \(values("clip"))")
        // The others kept their rate while the HTTP camera was away (≥ 90 % of the same time before the cut).
        let outage = (back - cut)
        for camera in ["clip", "door", "gate"] {
            let before = Self.frames(all, camera, in: (cut - outage)...cut), during = Self.frames(all, camera, in: cut...back)
            #expect(Double(during) >= 0.9 * Double(before), "\(camera): \(during) frames during the outage, \(before) before")
        }
        // The password is in no output, log or event.
        let out = daemonReadText(d.stdoutPath), err = d.stderr
        #expect(!out.contains("w@rd") && !err.contains("w@rd") && !err.contains("pa%20ss"))
        #expect(all.compactMap { $0["seq"] as? Int } == Array(1...all.count))
    }

    /// `ffmpeg -re` sending `ts` over TLS (the certificate and key given) to the one client of
    /// https://127.0.0.1:PORT/x.ts.
    static func httpsServer(_ ts: String, port: Int, certificate: String, key: String, log: String) throws -> Process {
        try DaemonRun.start("/usr/bin/ffmpeg", ["-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1", "-i", ts,
                                                "-c", "copy", "-f", "mpegts", "-listen", "1", "-cert_file", certificate,
                                                "-key_file", key, "https://127.0.0.1:\(port)/x.ts"],
                            stderr: log)
    }

    @Test func anHTTPSCameraIsReadOnlyWhenItsCertificateChecksOut() throws {
        let dir = DaemonPaths.tempDir("netcam-tls")
        defer { DaemonPaths.remove(dir) }
        let ts = try Self.transportStream(dir)
        // A self-signed certificate for 127.0.0.1, as an IP camera ships one.
        let certificate = dir + "/camera.pem", key = dir + "/camera.key"
        _ = try runTool("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                                             "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        func run(_ extra: [String], seconds: Double) throws -> [[String: Any]] {
            let port = try MosquittoBroker.freePort()
            let server = try Self.httpsServer(ts, port: port, certificate: certificate, key: key, log: dir + "/https-\(port).log")
            defer { Self.stop(server) }
            usleep(700_000)
            let d = try DaemonProcess(["run", "--camera", "cam=https://127.0.0.1:\(port)/x.ts", "--types", "qr", "--stdout",
                                       "--log-level", "notice"] + extra, dir: dir)
            _ = daemonEventually(seconds) {
                MultiCameraTests.lines(d.stdoutPath).contains { $0["event"] as? String == "appeared" }
            }
            d.signal(SIGTERM)
            #expect(DaemonRun.wait(d.process, timeout: 20) == 0, "\(d.stderr)")
            return MultiCameraTests.lines(d.stdoutPath)
        }
        // With the camera's certificate as the CA file: read, its codes found.
        let trusted = try run(["--camera-ca", certificate], seconds: 20)
        #expect(trusted.first?["kind"] as? String == "started", "\(trusted.prefix(2))")
        #expect(trusted.contains { $0["event"] as? String == "appeared" && $0["value"] != nil })
        // Without it the system's CAs do not vouch for it: never started, no frame read.
        let untrusted = try run([], seconds: 4)
        #expect(untrusted.compactMap { $0["kind"] as? String } == ["waiting", "stopped"], "\(untrusted)")
        #expect(!untrusted.contains { $0["event"] as? String == "metadata" })
        // The file is checked at start, and --check-config shows it.
        let missing = try ScandBinary.run(["run", "--camera", "cam=https://127.0.0.1:9/x.ts", "--camera-ca", dir + "/none.pem"])
        #expect(missing.status == 64 && missing.stderr.contains("none.pem"), "\(missing.stderr)")
        let config = dir + "/scand.json"
        try #"{"cameraCa": "\#(certificate)", "cameras": {"cam": {"input": "\#(DaemonPaths.kiosk)"}}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let check = try ScandBinary.run(["run", "--check-config", config])
        #expect(check.status == 0, "\(check.stderr)")
        let effective = (try JSONSerialization.jsonObject(with: Data(check.stdout)) as? [String: Any])?["effective"] as? [String: Any] ?? [:]
        #expect(effective["cameraCa"] as? String == certificate, "\(effective.keys.sorted())")
    }

    @Test func credentialsOnTheCommandLineAreRefusedWithoutBeingShown() throws {
        let r = try ScandBinary.run(["run", "--camera", "door=rtsp://admin:hunter2@127.0.0.1:9/cam", "--stdout"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("rtsp://***@127.0.0.1:9/cam") && r.stderr.contains("SCAND_CAMERA_CREDENTIALS"), "\(r.stderr)")
        #expect(!r.stderr.contains("hunter2") && r.stdout.isEmpty)
    }
}
