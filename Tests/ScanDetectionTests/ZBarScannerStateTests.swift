import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// zbar keeps state in its scanner from one image to the next: the EAN halves its decoder has decoded (not reset
/// by `zbar_scan_image`), and every decoded QR symbol (mchehab/zbar#258). ``BarcodeDetector`` makes a fresh zbar
/// scanner for every image. Fixtures: Tests/Fixtures/make_ean_halves.py and make-fixtures.py.
@Suite struct ZBarScannerStateTests {
    static let halves = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/generated/halves")
    /// (file, readable half) of each fixture, and the code the two halves join into.
    static let cases: (files: [String: String], joined: String) = {
        let list = Fixtures.generatedCases(in: halves, script: "Tests/Fixtures/make_ean_halves.py",
                                           needs: "zint, python3-numpy, python3-pil")
        var files: [String: String] = [:]
        for e in list { files[e["half"] as! String] = e["file"] as? String }
        return (files, list.first?["joined"] as? String ?? "")
    }()

    static func frame(_ url: URL) throws -> Frame {
        try #require(try ImageSource(path: url.path).nextFrame())
    }

    /// An EAN-13 whose left half alone is readable, then another whose right half alone is: a scanner kept
    /// from image to image joined the two halves into a code shown in neither (its check digit holds by
    /// construction). At d2e2c17 the second image gave 4006381543217, as stills and as stream frames.
    @Test("the left half of one image's EAN-13 never joins the right half of the next image's",
          arguments: [BarcodeEngine.zbar, .both])
    func halvesDoNotJoin(engine: BarcodeEngine) throws {
        let joined = Self.cases.joined
        #expect(joined.count == 13)
        let a = try Self.frame(Self.halves.appendingPathComponent(try #require(Self.cases.files["left"])))
        let b = try Self.frame(Self.halves.appendingPathComponent(try #require(Self.cases.files["right"])))
        let detector = BarcodeDetector(configuration: BarcodeConfiguration(engine: engine))
        for round in 0..<3 {
            #expect(try detector.detect(in: a).isEmpty, "round \(round)")
            let still = try detector.detect(in: b).map(\.stringValue)
            #expect(!still.contains(joined) && still.isEmpty, "round \(round): \(still)")
        }
        let stream = BarcodeDetector(configuration: BarcodeConfiguration(engine: engine))
        var reads: [String?] = []
        for _ in 0..<4 {
            reads += try stream.detectStream(in: a, steps: 1).map(\.stringValue)
            reads += try stream.detectStream(in: b, steps: 1).map(\.stringValue)
        }
        #expect(reads.isEmpty, "stream: \(reads)")
        // Control: the two halves in one image are that joined code (both halves decode in this geometry).
        var spliced = a.luma.bytes
        let w = a.luma.width, centre = 20 + (11 + 47) * 4
        for y in 0..<a.luma.height { for x in centre..<w { spliced[y * w + x] = b.luma.bytes[y * w + x] } }
        let splicedFrame = Frame(luma: LumaPlane(width: w, height: a.luma.height, bytes: spliced), index: 0, time: 0)
        #expect(try BarcodeDetector(configuration: BarcodeConfiguration(engine: engine)).detect(in: splicedFrame).map(\.stringValue) == [joined])
    }

    /// Hundreds of QR reads (each once parked for ever in a kept scanner) and EAN-13 reads in between: every
    /// read stays exact with a scanner per image and the settings it was made with.
    @Test("QR and EAN-13 reads stay exact over hundreds of images")
    func manyReads() throws {
        let qr = try Self.frame(URL(fileURLWithPath: Fixtures.path("sym-00-qr.png")))
        let ean = try Self.frame(URL(fileURLWithPath: Fixtures.path("sym-01-ean13.png")))
        var c = BarcodeConfiguration(engine: .zbar)
        c.scanDensity = 2
        c.minimumI25Length = 8
        let detector = BarcodeDetector(configuration: c)
        for i in 0..<300 {
            #expect(try detector.detect(in: qr).map(\.stringValue) == ["scand QR fixture"], "QR read \(i)")
            if i % 50 == 0 { #expect(try detector.detect(in: ean).map(\.stringValue) == ["4006381333931"], "EAN after \(i)") }
        }
    }
}
