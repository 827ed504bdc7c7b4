import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// Frames of the held-out synthetic set that 23b8ae1 misread on a transformed pass (Tests/Fixtures/generated/
/// transformed, made by Tests/Fixtures/make_transformed_fixtures.py): an ITF-14 read as its 8-digit
/// Interleaved 2 of 5 prefix (upscaled pass, 2 scan lines), and a UPC-A read as a UPC-E (downscaled pass, 5 scan
/// lines) whose symbol another pass image reads as the UPC-A; and two frames of a held-out shelf set where
/// zxing-cpp reads one blurred UPC-E two ways on the plain pass.
enum TransformedFixtures {
    static let directory = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/generated/transformed")
    static let cases: [ShelfFixtures.Case] = Fixtures.generatedCases(
        in: directory, script: "Tests/Fixtures/make_transformed_fixtures.py", needs: "zint, python3-numpy, python3-pil, python3-segno"
    ).map { e in
        ShelfFixtures.Case(file: e["file"] as! String, type: e["type"] as! String, value: e["value"] as! String,
                           baseMisreads: e["baseMisreads"] as! [String], pass: e["pass"] as! String)
    }

    static func frame(_ c: ShelfFixtures.Case) throws -> Frame {
        let source = try ImageSource(path: directory.appendingPathComponent(c.file).path)
        return try #require(try source.nextFrame())
    }
}

private func text(_ o: MetadataObject) -> String { o.payload.map { String(decoding: $0, as: UTF8.self) } ?? "" }

@Suite("Transformed-pass misreads (held-out synthetic frames)")
struct TransformedMisreadTests {
    /// The value itself, or a UPC-A's 12 digits without the EAN-13 leading 0.
    static func isRight(_ read: String, _ c: ShelfFixtures.Case) -> Bool {
        read == c.value || (c.value.count == 13 && c.value.hasPrefix("0") && read == String(c.value.dropFirst()))
    }

    /// The base's settings: no confirmation, no conflict rule, no deskewed pass, no UPC-E quiet-zone check.
    static let base: BarcodeConfiguration = {
        var c = BarcodeConfiguration()
        c.confirmTransformedLinearReads = false
        c.resolveConflictingReads = false
        c.checkUPCEQuietZone = false
        c.passes = ReaderPass.standard.filter { $0 != .deskewed }
        return c
    }()

    @Test("the defaults report no wrong value; with the base's settings its misread comes back",
          arguments: TransformedFixtures.cases)
    func stillImage(_ c: ShelfFixtures.Case) throws {
        let frame = try TransformedFixtures.frame(c)
        let detector = BarcodeDetector()
        let read = try detector.read(in: frame)
        let found = read.objects.map(text)
        #expect(found.allSatisfy { Self.isRight($0, c) }, "\(c.file): read \(found), truth \(c.value)")

        let base = try BarcodeDetector(configuration: Self.base).read(in: frame)
        #expect(base.objects.map(text).contains { c.baseMisreads.contains($0) }, "\(c.file): base settings read \(base.objects.map(text))")
        #expect(base.pass?.rawValue == c.pass)
    }

    /// Since the UPC-E quiet-zone check (UPCEQuietZoneTests) the read is dropped where it is made, before the
    /// conflict rule sees it; with that check off the conflict rule still drops it.
    @Test("the UPC-E read inside a UPC-A is dropped by the quiet-zone check; without it, for the conflict another pass image shows")
    func conflictAcrossPasses() throws {
        let c = try #require(TransformedFixtures.cases.first { $0.file == "blur-029.png" })
        let detector = BarcodeDetector()
        let found = try detector.read(in: try TransformedFixtures.frame(c)).objects.map(text)
        #expect(!found.contains { c.baseMisreads.contains($0) }, "read \(found)")
        #expect(detector.confirmations["UPC-E inside a longer symbol", default: 0] >= 1, "\(detector.confirmations)")
        var unchecked = BarcodeConfiguration()
        unchecked.checkUPCEQuietZone = false
        let conflict = BarcodeDetector(configuration: unchecked)
        let conflictFound = try conflict.read(in: try TransformedFixtures.frame(c)).objects.map(text)
        #expect(!conflictFound.contains { c.baseMisreads.contains($0) }, "read \(conflictFound)")
        #expect(conflict.confirmations["conflict across passes", default: 0] >= 1, "\(conflict.confirmations)")
    }

    @Test("zxing's two readings of one UPC-E symbol are both dropped, on the plain pass",
          arguments: TransformedFixtures.cases.filter { $0.file.hasPrefix("shelf778") })
    func zxingConflict(_ c: ShelfFixtures.Case) throws {
        let detector = BarcodeDetector()
        let found = try detector.read(in: try TransformedFixtures.frame(c)).objects.map(text)
        #expect(!found.contains { c.baseMisreads.contains($0) }, "read \(found)")
        #expect(detector.confirmations["zxing conflict", default: 0] >= 1, "\(detector.confirmations)")
        var plainZXing = BarcodeConfiguration()
        plainZXing.engine = .zxing
        plainZXing.passes = [.plain]
        #expect(try BarcodeDetector(configuration: plainZXing).detect(in: try TransformedFixtures.frame(c)).isEmpty)
    }

    /// At the stream's default scan-line spacing (every 2nd line at 480 lines) neither misread happens even
    /// without confirmation, so the stream is read at every line, as a still image is.
    @Test("on a stream read at every line (18 frames, one step per frame) no frame reports a wrong value; without the confirmation one does",
          arguments: TransformedFixtures.cases)
    func stream(_ c: ShelfFixtures.Case) throws {
        let frame = try TransformedFixtures.frame(c)
        var every = BarcodeConfiguration()
        every.streamScanDensity = nil
        let detector = BarcodeDetector(configuration: every)
        var reads: [String] = []
        for _ in 0..<18 { reads += try detector.detectStream(in: frame, steps: 1).map(text) }
        #expect(reads.allSatisfy { Self.isRight($0, c) }, "\(c.file): \(Set(reads)), confirmations \(detector.confirmations)")
        var off = Self.base
        off.streamScanDensity = nil
        let base = BarcodeDetector(configuration: off)
        var baseReads: [String] = []
        for _ in 0..<18 { baseReads += try base.detectStream(in: frame, steps: 1).map(text) }
        #expect(baseReads.contains { c.baseMisreads.contains($0) }, "\(c.file): without confirmation \(Set(baseReads))")
    }

    static func read(_ type: MetadataObjectType, _ value: String, x: Double, y: Double, width: Double, height: Double) -> MetadataObject {
        MetadataObject(type: type, bounds: NormalizedRect(x: x, y: y, width: width, height: height),
                       corners: [NormalizedPoint(x: x, y: y), NormalizedPoint(x: x + width, y: y),
                                 NormalizedPoint(x: x + width, y: y + height), NormalizedPoint(x: x, y: y + height)],
                       stringValue: value, payload: Array(value.utf8), quality: 5)
    }

    @Test("two payloads of one linear type on one symbol, with nothing to arbitrate, are both dropped; other symbols and types stay")
    func conflictOnEveryLinearType() throws {
        let size = PixelSize(width: 640, height: 480)
        let blank = PassImage(plane: LumaPlane(width: 640, height: 480, bytes: [UInt8](repeating: 200, count: 640 * 480)),
                              scaleX: 1, scaleY: 1, originX: 0, originY: 0)
        let a = Self.read(.gs1DataBar, "0102105163519296", x: 0.3, y: 0.4, width: 0.2, height: 0.1)
        let b = Self.read(.gs1DataBar, "0123420664165500", x: 0.49, y: 0.42, width: 0.01, height: 0.05)
        let elsewhere = Self.read(.gs1DataBar, "0100012345678905", x: 0.3, y: 0.8, width: 0.2, height: 0.05)
        let otherType = Self.read(.code128, "ABC-123", x: 0.3, y: 0.4, width: 0.2, height: 0.1)
        let detector = BarcodeDetector()
        let kept = try detector.checkRetailReads([a, b, elsewhere, otherType], image: blank, frameSize: size).compactMap(\.stringValue)
        #expect(kept == ["0100012345678905", "ABC-123"], "kept \(kept)")
        #expect(detector.dropConflicts([a, b, otherType]).compactMap(\.stringValue) == ["ABC-123"])
        var off = BarcodeConfiguration()
        off.resolveConflictingReads = false
        #expect(try BarcodeDetector(configuration: off).checkRetailReads([a, b], image: blank, frameSize: size).count == 2)
        #expect(BarcodeDetector(configuration: off).dropConflicts([a, b]).count == 2)
    }

    @Test("boxes that touch, overlap or nest count as one symbol's; apart they do not")
    func touch() {
        let thin = NormalizedRect(x: 0.4, y: 0.42, width: 0.003, height: 0.09)
        let wide = NormalizedRect(x: 0.4, y: 0.42, width: 0.49, height: 0.09)
        #expect(BarcodeDetector.touch(thin, wide) && BarcodeDetector.touch(wide, thin))
        #expect(BarcodeDetector.touch(NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.1), NormalizedRect(x: 0.5, y: 0.1, width: 0.2, height: 0.1)))
        #expect(!BarcodeDetector.touch(wide, NormalizedRect(x: 0.4, y: 0.6, width: 0.49, height: 0.09)))
        #expect(!BarcodeDetector.touch(thin, NormalizedRect(x: 0.41, y: 0.42, width: 0.1, height: 0.09)))
    }
}
