import Foundation
import Testing
import ScanCapture
import ScanCore
@testable import ScanDetection

/// zbar 0.23 keeps every decoded QR symbol in its scanner's recycle lists (mchehab/zbar#258), so a long-lived
/// scanner grows frame after frame; ``BarcodeDetector`` replaces its zbar scanner every
/// ``BarcodeDetector/scannerRenewalInterval`` QR reads. Fixtures: Tests/Fixtures/make-fixtures.py.
@Suite struct ScannerRenewalTests {
    static let generated: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/Fixtures/generated"
    }()

    func frame(_ name: String) throws -> Frame {
        let path = Self.generated + "/" + name
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record("missing fixture \(path): run Tests/Fixtures/make-fixtures.py")
            throw ScanError.unreadableInput(input: path, reason: "missing fixture")
        }
        return try #require(try ImageSource(path: path).nextFrame())
    }

    @Test("the zbar scanner is replaced every 256 QR reads, with the same settings: every read stays exact")
    func renewal() throws {
        let qr = try frame("sym-00-qr.png"), ean = try frame("sym-01-ean13.png")
        var c = BarcodeConfiguration(engine: .zbar)
        c.scanDensity = 2
        c.minimumI25Length = 8
        let detector = BarcodeDetector(configuration: c)
        let reads = 2 * BarcodeDetector.scannerRenewalInterval + 10
        for i in 0..<reads {
            let q = try detector.detect(in: qr)
            #expect(q.map(\.stringValue) == ["scand QR fixture"], "QR read \(i)")
            // 1-D reads do not count towards a renewal, and survive it.
            if i % 100 == 0 { #expect(try detector.detect(in: ean).map(\.stringValue) == ["4006381333931"], "EAN after \(i)") }
        }
        #expect(detector.scannerRenewals == 2)
        #expect(detector.qrReadsSinceRenewal == 10)
    }
}
