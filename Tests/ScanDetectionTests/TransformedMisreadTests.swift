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
        let kept = try detector.still.checkRetailReads([a, b, elsewhere, otherType], image: blank, frameSize: size).compactMap(\.stringValue)
        #expect(kept == ["0100012345678905", "ABC-123"], "kept \(kept)")
        #expect(detector.still.dropConflicts([a, b, otherType]).compactMap(\.stringValue) == ["ABC-123"])
        var off = BarcodeConfiguration()
        off.resolveConflictingReads = false
        #expect(try BarcodeDetector(configuration: off).still.checkRetailReads([a, b], image: blank, frameSize: size).count == 2)
        #expect(BarcodeDetector(configuration: off).still.dropConflicts([a, b]).count == 2)
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

/// Codabar has no check character, and zxing-cpp read one ("D4212C") along a single pixel column of a code-free
/// photograph's thresholded image (never-seen photo seed 9393, photo-negative/022, as ffmpeg's limited-range
/// Y4M without its range tag, on 12–16 of 24 frames). So zxing's transformed Codabar reads are held back until
/// confirmed, as zbar's are; zxing's other non-retail 1-D reads still stand on their own.
@Suite("zxing's transformed Codabar reads need confirming")
struct CodabarConfirmationTests {
    static func read(_ type: MetadataObjectType, _ value: String, quality: Int) -> MetadataObject {
        MetadataObject(type: type, bounds: NormalizedRect(x: 0.498, y: 0.59, width: 0.001, height: 0.07),
                       corners: [NormalizedPoint(x: 0.498, y: 0.59), NormalizedPoint(x: 0.499, y: 0.59),
                                 NormalizedPoint(x: 0.499, y: 0.66), NormalizedPoint(x: 0.498, y: 0.66)],
                       stringValue: value, payload: Array(value.utf8), quality: quality)
    }
    /// A flat grey frame: neither engine reads anything on it, so only scan lines or a second sighting confirm.
    static let blank = PassImage(plane: LumaPlane(width: 96, height: 128, bytes: [UInt8](repeating: 180, count: 96 * 128)),
                                 scaleX: 0.0625, scaleY: 0.0625, originX: 0, originY: 0)
    static let size = PixelSize(width: 1536, height: 2048)

    @Test("the rule: Codabar and DataBar Expanded from either engine; zxing's Code 128, Code 39, Interleaved 2 of 5, DataBar not")
    func rule() {
        #expect(BarcodeDetector.needsConfirming(.codabar, engine: .zxing))
        #expect(BarcodeDetector.needsConfirming(.codabar, engine: .zbar))
        #expect(BarcodeDetector.needsConfirming(.gs1DataBarExpanded, engine: .zxing))
        #expect(BarcodeDetector.needsConfirming(.gs1DataBarExpanded, engine: .zbar))
        for type in [MetadataObjectType.code128, .code39, .interleaved2of5, .gs1DataBar] {
            #expect(!BarcodeDetector.needsConfirming(type, engine: .zxing), "\(type)")
        }
        #expect(!BarcodeDetector.needsConfirming(.qr, engine: .zxing))
    }

    @Test("a 2-line zxing Codabar of a thresholded stream step is dropped, again from the same step, and kept on 3 lines")
    func stream() throws {
        let detector = BarcodeDetector()
        var pending = BarcodeDetector.PendingReads()
        let fp = Self.read(.codabar, "D4212C", quality: 2)
        for stamp in 1...3 {
            #expect(try detector.stream.confirm([fp], pass: Self.blank, base: Self.blank, engine: .zxing, frameSize: Self.size,
                                         source: "thresholded/0/zxing", pending: &pending, stamp: stamp).isEmpty)
        }
        #expect(detector.unconfirmedReads == 3)
        let strong = Self.read(.codabar, "A40156B", quality: 3)
        #expect(try detector.stream.confirm([strong], pass: Self.blank, base: Self.blank, engine: .zxing, frameSize: Self.size,
                                     source: "thresholded/0/zxing", pending: &pending, stamp: 4).count == 1)
        #expect(detector.confirmations["quality"] == 1)
        // A Code 128 on 2 lines from the same step stands on its own (its check character).
        let c128 = Self.read(.code128, "D4212C", quality: 2)
        #expect(try detector.stream.confirm([c128], pass: Self.blank, base: Self.blank, engine: .zxing, frameSize: Self.size,
                                     source: "thresholded/0/zxing", pending: &pending, stamp: 5).count == 1)
    }

    @Test("a 2-line zxing Codabar of a still's transformed image is dropped")
    func still() throws {
        let detector = BarcodeDetector()
        var pending = BarcodeDetector.PendingReads()
        #expect(try detector.still.confirm([Self.read(.codabar, "D4212C", quality: 2)], pass: Self.blank, base: Self.blank,
                                     engine: .zxing, frameSize: Self.size, source: "thresholded/0", pending: &pending).isEmpty)
    }
}

/// The patch of the code-free photograph zxing-cpp misread (Tests/Fixtures/regressions/codabar-noise-crop.png,
/// made by Tests/Fixtures/make_codabar_noise_crop.py), pasted back where it was on a flat 1536×2048 frame.
@Suite("The code-free patch zxing misread as Codabar")
struct CodabarNoisePatchTests {
    static func frame(index: Int = 0) throws -> Frame {
        let patch = try regressionFrame("codabar-noise-crop.png").luma
        #expect(patch.width == 200 && patch.height == 250)
        var bytes = [UInt8](repeating: 201, count: 1536 * 2048)
        for y in 0..<patch.height {
            for x in 0..<patch.width { bytes[(1150 + y) * 1536 + 665 + x] = patch.bytes[y * patch.stride + x] }
        }
        return Frame(luma: LumaPlane(width: 1536, height: 2048, bytes: bytes), index: index, time: Double(index) / 25)
    }

    @Test("nothing is reported on the still or on 24 stream frames; without confirmation the Codabar comes back")
    func noCodabar() throws {
        let frame = try Self.frame()
        let detector = BarcodeDetector()
        #expect(try detector.read(in: frame).objects.isEmpty)
        #expect(detector.unconfirmedReads >= 1, "the patch no longer gives zxing its Codabar: \(detector.confirmations)")

        let stream = BarcodeDetector()
        var reads: [String] = []
        for n in 0..<24 { reads += try stream.detectStream(in: try Self.frame(index: n), steps: 1).map { $0.stringValue ?? "" } }
        #expect(reads.isEmpty, "\(reads)")

        var unconfirmed = BarcodeConfiguration()
        unconfirmed.confirmTransformedLinearReads = false
        let base = try BarcodeDetector(configuration: unconfirmed).read(in: frame)
        #expect(base.objects.map(\.type) == [.codabar] && base.objects.first?.stringValue == "D4212C",
                "\(base.objects.map { ($0.type, $0.stringValue ?? "") })")
        #expect(base.engine == .zxing && base.pass == .thresholded)
    }
}

/// A simulated 4032×3024 photograph of a tilted PDF417 symbol (Tests/Fixtures/regressions/pdf417-photo-databar-fp.jpg,
/// made by Tests/Fixtures/make_databar_pdf417_photo.py from never-seen photo seed 9595): zxing-cpp reads a GS1
/// DataBar Expanded on 2 lines of its thresholded image, where there is none. A transformed DataBar Expanded from
/// zxing now needs confirming, as Codabar does (docs/reader.md, "DataBar Expanded from zxing's transformed passes").
/// Since issue 50 the read is stopped before that too: its data, "58207336952141␝79␝7", is no GS1 element string
/// (AI 58 does not exist), and zbar does not read it (`PassReader.confirmingGS1DataBar`).
@Suite("The PDF417 photo zxing misread as DataBar Expanded")
struct DataBarExpandedPhotoTests {
    @Test("nothing is reported, with the confirmation of transformed reads or without it (its data breaks GS1's rules)")
    func noDataBar() throws {
        let frame = try regressionFrame("pdf417-photo-databar-fp.jpg")
        #expect(frame.luma.width == 4032 && frame.luma.height == 3024)
        // The plain and thresholded passes only (the read needs no other; the test stays quick in a debug build).
        var configuration = BarcodeConfiguration()
        configuration.passes = [.plain, .thresholded]
        let detector = BarcodeDetector(configuration: configuration)
        let read = try detector.read(in: frame)
        #expect(read.objects.isEmpty, "\(read.objects.map { ($0.type, $0.stringValue ?? "") })")

        configuration.confirmTransformedLinearReads = false
        let base = try BarcodeDetector(configuration: configuration).read(in: frame)
        #expect(base.objects.isEmpty, "\(base.objects.map { ($0.type, $0.stringValue ?? "") })")
        let misread = GS1ElementString(Array("58207336952141\u{1D}79\u{1D}7".utf8))
        #expect(!misread.isValid)
    }
}

/// A never-seen synthetic photo (Tests/Fixtures/regressions/i25-prefix-perspective.png, made by
/// Tests/Fixtures/make_i25_prefix_photo.py): a 12-digit Interleaved 2 of 5 turned in perspective. zbar's upscaled
/// image, the first pass that reads it, gives its first 8 digits on 3 scan lines, which their count confirmed,
/// and scand reported "60076005"; the deskewed image reads all 12 on 61 lines. zxing-cpp on the plain frame
/// splits it ("60076005", "5769").
@Suite("An Interleaved 2 of 5 read short on a transformed pass")
struct Interleaved2of5PrefixTests {
    @Test("the whole 12 digits, not the 8 the upscaled image gives")
    func wholeSymbol() throws {
        let frame = try regressionFrame("i25-prefix-perspective.png")
        let detector = BarcodeDetector()
        let read = try detector.read(in: frame)
        #expect(read.objects.compactMap(\.stringValue) == ["600760055769"], "\(read.objects.map(\.stringValue))")
        #expect(detector.confirmations["longer Interleaved 2 of 5", default: 0] == 1, "\(detector.confirmations)")
        // Only the upscaled image, without the other passes, has nothing longer to offer: the short read stands
        // there as before (what the rule replaces).
        var upscaledOnly = BarcodeConfiguration()
        upscaledOnly.passes = [.plain, .upscaled]
        let short = try BarcodeDetector(configuration: upscaledOnly).read(in: frame)
        #expect(short.objects.compactMap(\.stringValue) == ["60076005"])
    }
}

/// The image `name` of Tests/Fixtures/regressions (its README says how each was made), as a frame.
func regressionFrame(_ name: String) throws -> Frame {
    let source = try ImageSource(
        path: Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/regressions/\(name)").path)
    return try #require(try source.nextFrame())
}
