import Foundation
import Testing
import ScanCore
import ScanCapture
import ScanKit
@testable import ScanBenchmark

/// `scand bench`'s engine (``Benchmark``) on a small Y4M clip with ground truth, made here from the QR fixture
/// of Tests/Fixtures/make-fixtures.py: the pipelines run the real detectors, and recall is scored against the truth.
@Suite(.serialized) struct BenchmarkTests {
    static let generated: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/Fixtures/generated"
    }()

    /// A mono Y4M of `frames` copies of the QR fixture and its truth; every frame's truth also claims a code
    /// that is not in the picture, so a perfect reader scores exactly 50 %.
    func clip(frames: Int) throws -> (clip: String, truth: String) {
        let path = Self.generated + "/sym-00-qr.png"
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record("missing fixture \(path): run Tests/Fixtures/make-fixtures.py")
            throw ScanError.unreadableInput(input: path, reason: "missing fixture")
        }
        let luma = try #require(try ImageSource(path: path).nextFrame()).luma
        var data = Data("YUV4MPEG2 W\(luma.width) H\(luma.height) F30:1 Ip A1:1 Cmono\n".utf8)
        var rows: [UInt8] = []
        for y in 0..<luma.height { rows += luma.bytes[y * luma.stride..<y * luma.stride + luma.width] }
        var truth: [[String: Any]] = []
        for k in 0..<frames {
            data += Data("FRAME\n".utf8); data += Data(rows)
            let codes = [["type": "qr", "value": "scand QR fixture"], ["type": "qr", "value": "NOT-IN-THE-PICTURE"]]
            truth.append(["frame": k, "codes": codes, "faces": [[Double]]()])
        }
        let base = NSTemporaryDirectory() + "scand-bench-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        try data.write(to: URL(fileURLWithPath: base + ".y4m"))
        let json = try JSONSerialization.data(withJSONObject: ["width": luma.width, "height": luma.height, "fps": 30, "frames": truth])
        try json.write(to: URL(fileURLWithPath: base + ".truth.json"))
        return (base + ".y4m", base + ".truth.json")
    }

    /// The full-frame reference turns every speed lever off, the sparser zbar lines of large frames' stream
    /// steps included.
    @Test("the full-frame reference scans every line on every pass")
    func fullFrameReferenceScansEveryLine() {
        let c = Benchmark.fullFrameConfiguration(OutputConfiguration()).barcode
        #expect(c.scanDensity == 1 && c.streamScanDensity == 1 && c.largeFrameStepSpacing == 1)
        #expect(c.streamStepsPerFrame == nil)
        #expect(OutputConfiguration().barcode.largeFrameStepSpacing == 2)
    }

    @Test("each run's peak RSS is its own: resetPeak forgets an earlier, larger peak")
    func peakIsPerRun() throws {
        // 64 MB touched then freed: the process peak is at least that much above the current RSS.
        let size = 64 << 20
        let block = try #require(malloc(size))
        memset(block, 1, size)
        free(block)
        let before = ProcessStats.peakResidentBytes()
        #expect(before - ProcessStats.residentBytes() > 32 << 20)
        #expect(ProcessStats.resetPeak())
        let after = ProcessStats.peakResidentBytes()
        #expect(after < before - (32 << 20))
        #expect(after >= ProcessStats.residentBytes() - (1 << 20))
    }

    @Test("every pipeline processes the clip and is scored against the truth; live drops nothing it did not offer")
    func pipelines() throws {
        let (clip, truth) = try clip(frames: 12)
        defer { try? FileManager.default.removeItem(atPath: clip); try? FileManager.default.removeItem(atPath: truth) }
        let configuration = OutputConfiguration(metadataObjectTypes: [.qr])
        for (pipeline, live) in [(Benchmark.Pipeline.scand, false), (.baseline, false), (.fullFrame, false), (.scand, true)] {
            let c = BenchmarkCase(name: "qr", clip: clip, truth: truth, types: [.qr], live: live)
            let r = try Benchmark.run(c, pipeline: pipeline, configuration: configuration, faceCascade: nil)
            let label = "\(pipeline.rawValue)\(live ? " live" : "")"
            #expect(r.pipeline == pipeline.rawValue)
            #expect(r.framesOffered == 12, "\(label)")
            #expect(r.framesProcessed + r.framesDropped == r.framesOffered, "\(label)")
            if !live { #expect(r.framesProcessed == 12 && r.framesDropped == 0, "\(label)") }
            // Every processed frame: the real code read, the claimed one not.
            #expect(r.codeRecall == 0.5, "\(label): \(String(describing: r.codeRecall))")
            #expect(r.faceRecall == nil)
            #expect(Set(r.stages.keys) == ["decode", "barcode", "face", "tracking", "encode"])
            #expect(r.fps > 0 && r.cpuSecondsPerFrame > 0 && r.peakRSSMB >= r.startRSSMB - 1, "\(label)")
            #expect(live ? r.latencyP99 >= r.latencyP50 && r.latencyP50 > 0 : true, "\(label): live latency")
        }
    }

    @Test("several cameras at once: each camera offered every frame and measured on its own, CPU over all their frames")
    func cameras() throws {
        let (clip, truth) = try clip(frames: 12)
        defer { try? FileManager.default.removeItem(atPath: clip); try? FileManager.default.removeItem(atPath: truth) }
        let configuration = OutputConfiguration(metadataObjectTypes: [.qr])
        let c = BenchmarkCase(name: "qr", clip: clip, truth: truth, types: [.qr], live: true, frames: 24)
        let r = try MultiCameraBench.run(c, cameras: 3, configuration: configuration, faceCascade: nil)
        #expect(r.perCamera.map(\.pipeline) == ["camera0", "camera1", "camera2"])
        for camera in r.perCamera {
            #expect(camera.framesOffered == 24 && camera.framesProcessed + camera.framesDropped == 24)
            #expect(camera.codeRecall == 0.5 && camera.latencyP50 > 0)
            #expect(camera.cpuSecondsPerFrame == r.cpuSecondsPerFrame)
        }
        #expect(r.fairness > 0 && r.fairness <= 1)
        #expect(r.cpuSecondsPerFrame > 0)
    }
}
