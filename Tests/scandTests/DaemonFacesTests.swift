import Foundation
import Testing
import ScanTestSupport

/// `scand run` on a replay with codes and a face (the demo clip): presence for both, one stream of seq.
@Suite struct DaemonFacesTests {
    @Test func replayWithCodesAndAFaceGivesOneAppearedEachAndGaplessSeq() throws {
        let dir = try TemporaryDirectory()
        let clip = dir.url.appendingPathComponent("demo.y4m").path
        _ = try runTool("/usr/bin/python3", [Fixtures.repositoryRoot.appendingPathComponent("demo/make-demo-clip.py").path, clip])
        let r = try ScandBinary.run(["run", "--input", clip, "--stdout", "--exit-at-end", "--no-pacing",
                                     "--types", "qr,ean13,face", "--no-metadata"])
        #expect(r.status == 0)
        let events = try r.jsonLines()
        let seqs = events.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...events.count))
        let appeared = events.filter { $0["event"] as? String == "appeared" }
        #expect(appeared.filter { $0["type"] as? String == "qr" }.map { $0["value"] as? String } == ["https://example.com/login?t=demo-7f3a"])
        #expect(appeared.filter { $0["type"] as? String == "ean13" }.count == 1)
        let faces = appeared.filter { $0["type"] as? String == "face" }
        #expect(faces.count == 1)
        let faceID = try #require(faces.first?["faceID"] as? Int)
        let lostFace = events.filter { $0["event"] as? String == "lost" && $0["type"] as? String == "face" }
        #expect(lostFace.map { $0["faceID"] as? Int } == [faceID])
        // The QR is held up from frame 8 to 37 (15 fps): it appears then, and is lost after the grace period.
        let qrAppeared = try #require(appeared.first { $0["type"] as? String == "qr" })
        #expect(abs((qrAppeared["time"] as? Double ?? -1) - 8.0 / 15.0) < 1e-6)
        #expect(events.contains { $0["event"] as? String == "lost" && $0["type"] as? String == "qr" })
    }
}
