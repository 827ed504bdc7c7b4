import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// Issue 50: a GS1 DataBar Expanded read whose data breaks GS1's rules stands only when the other engine reads the
/// same payload (``PassReader/confirmingGS1DataBar(_:image:byZXing:)``). Symbols made by zint here: one valid, one
/// printed with an impossible date in AI (15) (`--gs1nocheck`), which both engines read alike and which must stay.
@Suite("GS1 DataBar Expanded: broken data needs the other engine")
struct GS1DataBarConfirmationTests {
    /// A zint DataBar Expanded of `data` (zint's bracketed AIs) as a frame.
    static func symbol(_ data: String, check: Bool = true) throws -> Frame {
        let dir = try TemporaryDirectory()
        let path = dir.url.appendingPathComponent("dbx.png").path
        _ = try runTool("/usr/bin/zint", ["-b", "31", "--scale", "2", "-o", path, "-d", data] + (check ? [] : ["--gs1nocheck"]))
        return try #require(try ImageSource(path: path).nextFrame())
    }

    static func read(_ o: MetadataObject, on frame: Frame, byZXing: Bool) throws -> [MetadataObject] {
        let reader = StillReader(configuration: BarcodeConfiguration())
        let image = try #require(reader.startFrame(frame, rectOfInterest: .unit))
        return try reader.confirmingGS1DataBar([o], image: image, byZXing: byZXing)
    }

    static func object(_ payload: String) -> MetadataObject {
        MetadataObject(
            type: .gs1DataBarExpanded, bounds: NormalizedRect(x: 0, y: 0, width: 1, height: 1), stringValue: payload,
            payload: Array(payload.utf8), isGS1: true)
    }

    @Test("a read with broken data that the other engine does not read is dropped, by either engine")
    func misreadDropped() throws {
        let frame = try Self.symbol("[01]09506000134352[15]261231")
        // What the symbol holds, and the same with the date read wrong (no 13th month): the second is no read of
        // either engine.
        let right = Self.object("010950600013435215261231")
        let wrong = Self.object("010950600013435215261331")
        #expect(!GS1ElementString(Array("010950600013435215261331".utf8)).isValid)
        for byZXing in [true, false] {
            #expect(try Self.read(wrong, on: frame, byZXing: byZXing).isEmpty, "byZXing \(byZXing)")
            #expect(try Self.read(right, on: frame, byZXing: byZXing).count == 1, "byZXing \(byZXing)")
        }
    }

    @Test("a symbol printed with broken data is read by both engines and kept, flagged")
    func brokenSymbolKept() throws {
        let frame = try Self.symbol("[01]12345678901231[15]991399", check: false)
        for engine in [BarcodeEngine.both, .zbar, .zxing] {
            var c = BarcodeConfiguration()
            c.engine = engine
            c.types = [.gs1DataBarExpanded]
            let found = try BarcodeDetector(configuration: c).detect(in: frame)
            #expect(found.map(\.stringValue) == ["011234567890123115991399"], "\(engine)")
            #expect(found.allSatisfy { !GS1ElementString($0.payload ?? []).isValid })
        }
    }
}
