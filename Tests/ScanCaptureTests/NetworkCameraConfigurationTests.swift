import Foundation
import ScanCore
import Testing

@testable import ScanCapture

/// How a network camera's URL and credentials are taken (issue 49): never from argv, never shown.
@Suite("network camera configuration")
struct NetworkCameraConfigurationTests {
    @Test func streamURLsAreToldFromFilesAndDevices() {
        for url in ["rtsp://10.0.0.5/stream1", "RTSP://cam/x", "http://127.0.0.1:8080/x.ts", "https://cam.local/mjpg", "rtsps://c/s"] {
            #expect(NetworkCameraConfiguration.isStreamURL(url), "\(url)")
        }
        for path in ["/dev/video0", "clip.mp4", "-", "rtsp:/x", "ftp://host/x", "./http://x"] {
            #expect(!NetworkCameraConfiguration.isStreamURL(path), "\(path)")
        }
    }

    @Test func credentialsInTheURLAreRefusedWithoutShowingThem() throws {
        let problem = try #require(NetworkCameraConfiguration.problem(withURL: "rtsp://admin:s3cret@10.0.0.5:554/live"))
        #expect(!problem.contains("s3cret") && !problem.contains("admin"), "\(problem)")
        #expect(problem.contains("rtsp://***@10.0.0.5:554/live") && problem.contains("SCAND_CAMERA_CREDENTIALS"), "\(problem)")
        #expect(NetworkCameraConfiguration.problem(withURL: "rtsp://10.0.0.5:554/live?user=a@b") == nil)
        #expect(NetworkCameraConfiguration.redacted("http://u:p@h/x") == "http://***@h/x")
        #expect(NetworkCameraConfiguration.redacted("http://h/x\u{1b}[2J") == "http://h/x\\x1b[2J")
    }

    @Test func credentialsGoIntoTheURLPercentEncoded() {
        var c = NetworkCameraConfiguration(url: "rtsp://10.0.0.5/live", credentials: "ad min:p@ss:w/rd%")
        #expect(c.connectURL == "rtsp://ad%20min:p%40ss%3Aw%2Frd%25@10.0.0.5/live")
        c.credentials = nil
        #expect(c.connectURL == "rtsp://10.0.0.5/live")
    }

    @Test func credentialsComeFromTheEnvironmentAFileOrSystemdsCredentialsDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scand-cred-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "door:from-file\nignored\n".write(toFile: dir + "/door.cred", atomically: true, encoding: .utf8)
        try "plate:from-systemd\r\n".write(toFile: dir + "/camera-shelf-2", atomically: true, encoding: .utf8)
        try "one:camera".write(toFile: dir + "/camera", atomically: true, encoding: .utf8)
        let env = [
            "SCAND_CAMERA_CREDENTIALS_DOOR": "door:from-env", "SCAND_CAMERA_CREDENTIALS_DOOR_FILE": dir + "/door.cred",
            "SCAND_CAMERA_CREDENTIALS_GATE_FILE": dir + "/door.cred", "CREDENTIALS_DIRECTORY": dir,
        ]
        typealias C = NetworkCameraConfiguration
        #expect(try C.credentials(camera: "door", environment: env) == "door:from-env")
        #expect(try C.credentials(camera: "gate", environment: env) == "door:from-file")
        #expect(try C.credentials(camera: "shelf-2", environment: env) == "plate:from-systemd")
        #expect(try C.credentials(camera: nil, environment: env) == "one:camera")
        #expect(try C.credentials(camera: "other", environment: env) == nil)
        #expect(try C.credentials(camera: "door", environment: [:]) == nil)
        #expect(throws: ScanError.self) {
            try C.credentials(camera: "x", environment: ["SCAND_CAMERA_CREDENTIALS_X_FILE": dir + "/missing"])
        }
        #expect(throws: ScanError.self) { try C.credentials(camera: "x", environment: ["SCAND_CAMERA_CREDENTIALS_X": "nocolon"]) }
    }
}
