import Foundation
import Testing
import ScanTestSupport

/// The C libraries failing as they do when memory runs out (issue 52), through the test hooks of the shims
/// (`SCAND_TEST_FAULT_ZXING`, `…_ZBAR`, `…_OPENCV`: every Nth call fails; docs/testing.md): the daemon skips
/// the frame, says so on stderr and to its clients (a `runtimeError` device event, at most one a second), and
/// goes on with the next frames. Before, zbar's failures read as "no code here" and clients heard nothing.
@Suite struct FaultInjectionTests {
    static func demoClip(_ dir: TemporaryDirectory) throws -> String {
        let clip = dir.url.appendingPathComponent("demo.y4m").path
        _ = try runTool("/usr/bin/python3", [Fixtures.repositoryRoot.appendingPathComponent("demo/make-demo-clip.py").path, clip])
        return clip
    }

    /// Frames in a 4:2:0 Y4M file without frame parameters (the demo clip's): "FRAME\n" and W×H×1.5 bytes each.
    static func frameCount(_ path: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let headerEnd = try #require(data.firstIndex(of: 0x0A))
        let header = String(decoding: data[..<headerEnd], as: UTF8.self).split(separator: " ")
        let w = try #require(header.first { $0.hasPrefix("W") }.flatMap { Int($0.dropFirst()) })
        let h = try #require(header.first { $0.hasPrefix("H") }.flatMap { Int($0.dropFirst()) })
        let body = data.count - (headerEnd + 1), each = 6 + w * h * 3 / 2
        #expect(body % each == 0, "a whole number of frames")
        return body / each
    }

    static func environment(_ faults: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(faults) { _, new in new }
    }

    @Test("zxing, zbar and OpenCV failing on some frames: those frames are skipped and named, the rest scanned")
    func failingFramesAreSkippedAndReported() throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.demoClip(dir)
        let frames = try Self.frameCount(clip)
        let r = try ScandBinary.run(["run", "--input", clip, "--stdout", "--exit-at-end", "--no-pacing", "--types", "qr,ean13,face"],
                                    environment: Self.environment(["SCAND_TEST_FAULT_ZXING": "4", "SCAND_TEST_FAULT_ZBAR": "5",
                                                                   "SCAND_TEST_FAULT_OPENCV": "3"]))
        #expect(r.status == 0, "\(r.stderr.suffix(800))")
        let events = try r.jsonLines()
        #expect(events.compactMap { $0["seq"] as? Int } == Array(1...events.count), "one gapless stream")
        // Every frame is either scanned (a metadata event) or named as failed on stderr.
        let scanned = events.filter { $0["event"] as? String == "metadata" }.count
        let failed = r.stderr.components(separatedBy: "[ScanDaemon] frame ").count - 1
        #expect(frames > 30 && scanned + failed == frames, "\(frames) frames: \(scanned) scanned, \(failed) failed")
        #expect(failed >= 10 && scanned >= 10)
        for library in ["zxing: std::bad_alloc", "zbar: zbar_scan_image failed (out of memory)", "face network"] {
            #expect(r.stderr.contains(library), "stderr names \(library)")
        }
        // Clients hear of it: runtimeError, naming the frame and the library.
        let errors = events.filter { $0["event"] as? String == "device" && $0["kind"] as? String == "runtimeError" }
        #expect(!errors.isEmpty)
        #expect(errors.allSatisfy { ($0["reason"] as? String ?? "").contains("not scanned: detector:") }, "\(errors)")
        // The codes and the face are still found on the frames that were scanned, with their exact text.
        let appeared = events.filter { $0["event"] as? String == "appeared" }
        #expect(appeared.contains { $0["type"] as? String == "qr" && $0["value"] as? String == "https://example.com/login?t=demo-7f3a" })
        #expect(appeared.contains { $0["type"] as? String == "face" })
    }

    @Test("a paced stream with every other zbar scan failing: at most one runtimeError a second, with the count")
    func reportsAreRateLimited() throws {
        let dir = try TemporaryDirectory()
        let clip = try Self.demoClip(dir)
        let started = Date()
        let r = try ScandBinary.run(["run", "--input", clip, "--stdout", "--exit-at-end", "--types", "qr,ean13", "--no-metadata"],
                                    environment: Self.environment(["SCAND_TEST_FAULT_ZBAR": "2"]))
        let seconds = Date().timeIntervalSince(started)
        #expect(r.status == 0, "\(r.stderr.suffix(800))")
        let errors = try r.jsonLines().filter { $0["kind"] as? String == "runtimeError" }
        let failed = r.stderr.components(separatedBy: "[ScanDaemon] frame ").count - 1
        #expect(failed >= 15, "about half of the frames fail: \(failed)")
        #expect(errors.count >= 2 && Double(errors.count) <= seconds + 1, "\(errors.count) reports in \(seconds) s for \(failed) failed frames")
        #expect(errors.dropFirst().contains { ($0["reason"] as? String ?? "").contains("frames failed since the last report") })
    }
}
