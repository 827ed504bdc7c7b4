import Testing
import ScanCore
import ScanTestSupport
@testable import ScanKit

/// On a live source the code reader's optional steps are skipped on frames that follow a late frame.
@Suite struct LoadSheddingTests {
    func run(frames: Int, source: SourceInfo, shed: Bool = true) throws -> Int {
        var c = OutputConfiguration(metadataObjectTypes: [.qr, .ean13])
        c.shedLoadWhenLate = shed
        let output = try MetadataOutput(configuration: c)
        // A code-free frame: the plain pass reads nothing, so every frame would try an extra step.
        var bytes = [UInt8](repeating: 0, count: 640 * 480)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: (i &* 2654435761) >> 13) } // noise
        let luma = LumaPlane(width: 640, height: 480, bytes: bytes)
        for n in 0..<frames {
            _ = try output.process(Frame(luma: luma, index: n, time: Double(n) / 30), source: source)
        }
        return output.shedFrames
    }

    @Test("a camera whose frames come faster than they are processed sheds the extra steps after the first frame")
    func late() throws {
        // 100,000 fps: every frame is late after the first.
        #expect(try run(frames: 6, source: SourceInfo(name: "cam", frameRate: 100_000, isLive: true)) == 5)
    }

    @Test("a late camera frame skips its slice of the face search, but never two frames in a row")
    func faceSearchSkipped() throws {
        var c = OutputConfiguration(metadataObjectTypes: [.face])
        c.models = ModelConfiguration(directory: Fixtures.repositoryRoot.appendingPathComponent("Models").path)
        // The cascades spread their search over slices (the neural detector searches whole frames).
        c.face.detector = .lbp
        let output = try MetadataOutput(configuration: c)
        let luma = LumaPlane(width: 640, height: 480, bytes: [UInt8](repeating: 120, count: 640 * 480))
        let late = SourceInfo(name: "cam", frameRate: 100_000, isLive: true)
        for n in 0..<7 { _ = try output.process(Frame(luma: luma, index: n, time: Double(n) / 30), source: late) }
        // Frame 0 is never skipped (nothing was late yet); then every other frame.
        #expect(output.skippedFaceSearches == 3)
        let file = try MetadataOutput(configuration: c)
        for n in 0..<7 {
            _ = try file.process(Frame(luma: luma, index: n, time: Double(n) / 30),
                                 source: SourceInfo(name: "clip.y4m", frameRate: 100_000, isLive: false))
        }
        #expect(file.skippedFaceSearches == 0)
    }

    @Test("no shedding for files, for cameras that keep up, or when turned off")
    func notLate() throws {
        #expect(try run(frames: 6, source: SourceInfo(name: "clip.y4m", frameRate: 100_000, isLive: false)) == 0)
        #expect(try run(frames: 6, source: SourceInfo(name: "cam", frameRate: 0.5, isLive: true)) == 0)
        #expect(try run(frames: 6, source: SourceInfo(name: "cam", frameRate: 100_000, isLive: true), shed: false) == 0)
    }
}
