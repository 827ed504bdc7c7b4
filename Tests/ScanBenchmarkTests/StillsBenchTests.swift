import Foundation
import ScanCore
import Testing

@testable import ScanBenchmark

/// `scand bench --stills` (``StillsBench``): both readers run for real (scand's still reader and zxing-cpp with
/// its defaults) on a small set made here from the committed phone photos (Tests/Fixtures/photos) and a
/// code-free image, and are scored against its truth.
@Suite struct StillsBenchTests {
    static let photos: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/") + "/Fixtures/photos"
    }()

    /// A set in make_set.py's layout: the two phone photos (five EAN-13 in all), a code-free grey ramp (PGM),
    /// and a truth that also claims a code on the ramp's twin that is not there.
    func makeSet() throws -> String {
        let dir = NSTemporaryDirectory() + "scand-stills-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        try FileManager.default.createDirectory(atPath: dir + "/photo", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/negative", withIntermediateDirectories: true)
        for name in ["four-isbns.jpg", "isbn-9780071244763.jpg"] {
            try FileManager.default.copyItem(atPath: Self.photos + "/" + name, toPath: dir + "/photo/" + name)
        }
        var ramp = Data("P5\n320 240\n255\n".utf8)
        for y in 0..<240 { ramp += Data((0..<320).map { UInt8(($0 + y) * 255 / 560) }) }
        try ramp.write(to: URL(fileURLWithPath: dir + "/negative/ramp.pgm"))
        try ramp.write(to: URL(fileURLWithPath: dir + "/negative/ramp-claimed.pgm"))
        func ean(_ v: String) -> [String: String] { ["symbology": "ean13", "value": v] }
        let images: [[String: Any]] = [
            [
                "file": "photo/four-isbns.jpg", "category": "photo",
                "codes": ["9787564350840", "9783319200064", "9787118081473", "9787122276124"].map(ean),
            ],
            ["file": "photo/isbn-9780071244763.jpg", "category": "photo", "codes": [ean("9780071244763")]],
            ["file": "negative/ramp.pgm", "category": "negative", "codes": [[String: String]]()],
            ["file": "negative/ramp-claimed.pgm", "category": "negative", "codes": [ean("4006381333931")]],
        ]
        let json = try JSONSerialization.data(withJSONObject: ["set": "test", "images": images])
        try json.write(to: URL(fileURLWithPath: dir + "/truth.json"))
        return dir
    }

    @Test func bothReadersAreScoredOnTheSamePhotos() throws {
        let dir = try makeSet()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let results = try StillsBench.run(directory: dir, configuration: BarcodeConfiguration(), runs: 2)
        #expect(results.map(\.reader) == ["scand", "zxing-cpp"])
        let scand = results[0]
        let zxing = results[1]
        for r in results {
            #expect(r.all.photos == 4)
            #expect(r.all.codes == 6)
            #expect(r.all.misreads == 0)
            #expect(r.all.reportedOnCodeFree == 0)
            #expect(r.all.failures == 0)
            #expect(r.byCategory["negative"]?.read == 0)
            #expect(r.cpuRuns.count == 2)
            #expect(r.cpuPerPhoto > 0)
            #expect(r.longestPhoto >= r.wallPerPhoto)
        }
        // scand reads all five photographed codes; zxing-cpp's defaults miss one of the four ISBNs (the fourth,
        // the smallest and most tilted: the same as PyPI's zxing-cpp 3.1.1 on this photo).
        #expect(scand.all.read == 5)
        #expect(zxing.all.read == 4)
        #expect(scand.byCategory["photo"]?.read == 5)
    }

    @Test func valuesAreMatchedAsTheScoreScriptMatchesThem() {
        typealias Code = StillsBench.Truth.Code
        #expect(
            StillsBench.matches(
                "(01)09506000134352(17)201225", Code(symbology: "code128", value: "0109506000134352\u{1D}17201225")))
        #expect(StillsBench.matches("036000291452", Code(symbology: "upca", value: "0036000291452")))
        #expect(!StillsBench.matches("036000291453", Code(symbology: "upca", value: "0036000291452")))
        #expect(StillsBench.matches("A40156B", Code(symbology: "codabar", value: "40156")))
        // UPC-E 04252614: its UPC-A form is 042100005264, EAN-13 0042100005264.
        #expect(StillsBench.upceAsUPCA("04252614") == "042100005264")
        #expect(StillsBench.matches("0042100005264", Code(symbology: "upce", value: "04252614")))
        #expect(!StillsBench.matches("0042100005265", Code(symbology: "upce", value: "04252614")))
        let image = StillsBench.Truth.Image(file: "x", category: "c", codes: [Code(symbology: "qr", value: "a")])
        let f = StillsBench.score(["a", "b", "b"], image, failed: false)
        #expect(f.read == 1 && f.misreads == 1 && f.reportedOnCodeFree == 0)
    }
}
