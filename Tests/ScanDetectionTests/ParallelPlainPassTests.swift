import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// Stream frames of 1920×1080 and up: the plain pass's rows, its columns and the QR look run at the same time
/// (``StreamReader``, issue 47). In-process, so that the sanitizer runs (scripts/sanitizers) see the threads.
@Suite struct ParallelPlainPassTests {
    /// A 1920×1080 grey frame with `fixtures` pasted at `origins` (top-left corners, pixels).
    static func frame(_ fixtures: [(String, Int, Int)], index: Int) throws -> Frame {
        let width = 1920, height = 1080
        var bytes = [UInt8](repeating: 200, count: width * height)
        for (name, x0, y0) in fixtures {
            let luma = try #require(try ImageSource(path: Fixtures.path(name)).nextFrame()).luma
            for y in 0..<luma.height where y0 + y < height {
                for x in 0..<luma.width where x0 + x < width {
                    bytes[(y0 + y) * width + x0 + x] = luma.bytes[y * luma.stride + x]
                }
            }
        }
        return Frame(luma: LumaPlane(width: width, height: height, bytes: bytes), index: index, time: Double(index) / 30)
    }

    @Test("a 1080p stream frame: the EAN-13 from the split plain pass, the QR code from the look, on every frame")
    func readsBoth() throws {
        let detector = BarcodeDetector(configuration: BarcodeConfiguration())
        detector.startStream()
        for i in 0..<6 {
            let frame = try Self.frame([("sym-00-qr.png", 200 + 10 * i, 150), ("sym-01-ean13.png", 1100, 500 + 5 * i)], index: i)
            let read = try detector.detectStream(in: frame, steps: 1)
            let values = Set(read.compactMap(\.stringValue))
            #expect(values == ["scand QR fixture", "4006381333931"], "frame \(i): \(values)")
            // The EAN-13's box is where it was pasted (the rows' and columns' points merged into frame coordinates).
            let ean = try #require(read.first { $0.type == .ean13 })
            #expect(abs(ean.bounds.x * 1920 - 1100) < 120 && abs(ean.bounds.y * 1080 - Double(500 + 5 * i)) < 120, "\(ean.bounds)")
        }
    }

    @Test("two detectors reading 1080p streams at once (codes on two cameras) each get their own reads")
    func twoDetectorsAtOnce() throws {
        let frames = try (0..<4).map { i in
            try Self.frame([("sym-00-qr.png", 300, 200 + 8 * i), ("sym-02-ean13.png", 900, 600)], index: i)
        }
        let results = concurrently([0, 1].map { _ in
            { () -> [Set<String>] in
                let detector = BarcodeDetector(configuration: BarcodeConfiguration())
                detector.startStream()
                return frames.map { f in Set(((try? detector.detectStream(in: f, steps: 1)) ?? []).compactMap(\.stringValue)) }
            }
        })
        for r in results { #expect(r == Array(repeating: ["scand QR fixture", "0036000291452"], count: 4), "\(r)") }
    }
}
