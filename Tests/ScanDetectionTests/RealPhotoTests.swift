import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// Issue 15, on a real photograph (Tests/Fixtures/photos/README.md): zbar reads one blurred ISBN barcode two
/// ways, both with a valid check digit, and the wrong way on more scan lines. The base commit reported both.
@Suite("Real photos: one symbol read two ways, several symbols of one type")
struct RealPhotoTests {
    static let truth = "9780071244763"
    static let wrong = "9180071844763"

    static func frame(_ name: String = "isbn-9780071244763.jpg") throws -> Frame {
        let path = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/photos/\(name)").path
        return try #require(try ImageSource(path: path).nextFrame())
    }

    private static func values(_ objects: [MetadataObject]) -> [String] {
        objects.map { o in o.payload.map { String(decoding: $0, as: UTF8.self) } ?? "" }
    }

    @Test("the fixture still shows the conflict: with the rule off, zbar's two reads are both reported")
    func ruleOffReportsBoth() throws {
        var c = BarcodeConfiguration()
        c.resolveConflictingReads = false
        let found = Self.values(try BarcodeDetector(configuration: c).detect(in: Self.frame()))
        #expect(Set(found) == [Self.truth, Self.wrong], "read \(found)")
    }

    @Test("by default a still photo gives the printed digits only")
    func stillImage() throws {
        #expect(BarcodeConfiguration().resolveConflictingReads)
        let objects = try BarcodeDetector().detect(in: Self.frame())
        #expect(Self.values(objects) == [Self.truth])
        #expect(objects.first?.type == .ean13)
    }

    @Test("on a stream, frame after frame, the wrong digits never appear and the right ones do")
    func stream() throws {
        let detector = BarcodeDetector()
        let frame = try Self.frame()
        var reads: [String] = []
        for _ in 0..<6 { reads += Self.values(try detector.detectStream(in: frame, steps: 1)) }
        #expect(!reads.contains(Self.wrong), "read \(reads)")
        #expect(reads.filter { $0 == Self.truth }.count == 6, "read \(reads)")
    }

    /// The four printed ISBNs of `four-isbns.jpg` (one upside down).
    static let isbns: Set<String> = ["9787564350840", "9783319200064", "9787118081473", "9787122276124"]

    @Test("four EAN-13s in one photo: every one is read once, by default and with --confirm-transformed")
    func fourCodesOfOneType() throws {
        var confirming = BarcodeConfiguration()
        confirming.confirmTransformedLinearReads = true
        for c in [BarcodeConfiguration(), confirming] {
            let detector = BarcodeDetector(configuration: c)
            let found = Self.values(try detector.detect(in: Self.frame("four-isbns.jpg")))
            // With confirmation on, the small-retail check reads the whole image with zxing: before the fix it
            // took another symbol's digits for this one's and reported 9787564350840 twice.
            #expect(found.count == 4 && Set(found) == Self.isbns, "confirm=\(c.confirmTransformedLinearReads): read \(found)")
        }
    }
}
