import Foundation
import ScanCapture
import ScanCore
import ScanTestSupport
import Testing

@testable import ScanDetection

/// Still images: after the plain pass, two readers read the passes' images at once
/// (``StillReader/readInParallel(passes:ladder:base:frameSize:)``, issue 53) and return exactly what reading them
/// in order returns. In-process, so that the sanitizer runs (scripts/sanitizers) see the threads.
@Suite struct ParallelStillPassTests {
    /// A `width`×`height` still of a grey ramp with `fixture` pasted at (x0, y0); inverted when `invert`.
    static func still(_ fixture: String?, width: Int, height: Int, at x0: Int = 0, _ y0: Int = 0, invert: Bool = false)
        throws -> Frame
    {
        var bytes = (0..<(width * height)).map { UInt8(150 + ($0 % width) * 60 / width) }
        if let fixture {
            let luma = try #require(try ImageSource(path: Fixtures.path(fixture)).nextFrame()).luma
            for y in 0..<luma.height where y0 + y < height {
                for x in 0..<luma.width where x0 + x < width {
                    bytes[(y0 + y) * width + x0 + x] = luma.bytes[y * luma.stride + x]
                }
            }
        }
        if invert { bytes = bytes.map { 255 - $0 } }
        return Frame(luma: LumaPlane(width: width, height: height, bytes: bytes), index: 0, time: 0)
    }

    /// The stills: read at once by the plain pass, read only by a later pass (inverted, downscaled, the
    /// ladder), and read by none.
    static func stills() throws -> [(String, Frame)] {
        var out: [(String, Frame)] = [
            ("qr on the plain pass", try still("sym-00-qr.png", width: 900, height: 700, at: 100, 80)),
            ("inverted ean13", try still("sym-01-ean13.png", width: 1200, height: 900, at: 300, 200, invert: true)),
            ("code-free 2048x1536", try still(nil, width: 2048, height: 1536)),
        ]
        for name in ["reader/photo_ladder_aztec.jpg", "reader/photo_third_datamatrix.jpg", "reader/inverted_qr.png"] {
            out.append(
                (
                    name,
                    Frame(
                        luma: try #require(try ImageSource(path: Fixtures.path(name)).nextFrame()).luma, index: 0,
                        time: 0)
                ))
        }
        return out
    }

    @Test("two readers at once read what one reads in order: the same objects, pass and engine")
    func sameAsInOrder() throws {
        #expect(ProcessInfo.processInfo.activeProcessorCount >= 2, "this test needs two cores to run both readers")
        var sequential = BarcodeConfiguration()
        sequential.parallelStillPasses = false
        let inOrder = BarcodeDetector(configuration: sequential)
        let atOnce = BarcodeDetector(configuration: BarcodeConfiguration())
        var passes: Set<ReaderPass> = []
        for (name, frame) in try Self.stills() {
            let a = try inOrder.read(in: frame)
            let b = try atOnce.read(in: frame)
            #expect(a.objects == b.objects, "\(name)")
            #expect(
                a.pass == b.pass && a.engine == b.engine,
                "\(name): \(String(describing: a.pass)) \(String(describing: b.pass))")
            if let p = b.pass { passes.insert(p) }
        }
        // The set meets the cases: a read on the plain pass, one only on a later pass, and none.
        #expect(passes.contains(.plain))
        #expect(passes.contains { $0 != .plain })
        #expect(inOrder.still.stepsReadByHelper == 0)
        #expect(atOnce.still.stepsReadByHelper > 0)
    }

    @Test("a still smaller than parallelStillMinimumSide is read by one reader; at or over it, by two")
    func smallStillsReadInOrder() throws {
        #expect(ProcessInfo.processInfo.activeProcessorCount >= 2, "this test needs two cores to run both readers")
        let small = try Self.still(nil, width: 640, height: 480)
        let byDefault = BarcodeDetector(configuration: BarcodeConfiguration())
        #expect(try byDefault.read(in: small).objects.isEmpty)
        #expect(byDefault.still.stepsReadAtOnce == 0)
        var lowered = BarcodeConfiguration()
        lowered.parallelStillMinimumSide = 640
        let atOnce = BarcodeDetector(configuration: lowered)
        #expect(try atOnce.read(in: small).objects.isEmpty)
        #expect(atOnce.still.stepsReadAtOnce > 0)
    }

    @Test("a code-free still: the two readers share its steps, each read once, and nothing is reported")
    func codeFreeShared() throws {
        #expect(ProcessInfo.processInfo.activeProcessorCount >= 2, "this test needs two cores to run both readers")
        let detector = BarcodeDetector(configuration: BarcodeConfiguration())
        let frame = try Self.still(nil, width: 2048, height: 1536)
        #expect(try detector.read(in: frame).objects.isEmpty)
        let reader = detector.still
        let base = try #require(reader.startFrame(frame, rectOfInterest: .unit))
        let ladder = reader.matrixLadderExponents(width: 2048, height: 1536)
        let steps = reader.effectivePasses.dropFirst().reduce(0) {
            $0 + reader.steps(of: $1, ladder: ladder, base: base).count
        }
        #expect(steps > 15)
        #expect(reader.stepsReadAtOnce == steps)
        #expect(
            reader.stepsReadByHelper >= 1 && reader.stepsReadByHelper < steps,
            "the helper read \(reader.stepsReadByHelper) of \(steps) steps")
    }
}
