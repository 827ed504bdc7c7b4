import Foundation
import Testing
import ScanTestSupport

/// The QR text-encoding cases through the real binary, with each engine: `value`, `bytes` (base64 of the exact
/// payload), `charset` and `charsetSource` on every object line; GS1-128's `gs1` flag; Code 128's FNC4.
@Suite("scand scan: text encodings")
struct TextEncodingCommandTests {
    @Test("every text case's JSON keys are exact", arguments: ["zbar", "zxing", "both"])
    func jsonKeys(engine: String) throws {
        let cases = TextFixtures.cases.filter { $0.type != "code39" }
        let r = try ScandBinary.run(["scan", "--engine", engine] + cases.map(\.file), directory: TextFixtures.directory)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try r.jsonLines()
        #expect(lines.count == cases.count)
        for (c, line) in zip(cases, lines) {
            #expect(line["source"] as? String == c.file)
            let objects = try #require(line["objects"] as? [[String: Any]], "\(c.file)")
            #expect(objects.count == 1, "\(c.file) \(engine)")
            let o = try #require(objects.first)
            #expect(o["type"] as? String == c.type, "\(c.file) \(engine)")
            #expect(o["bytes"] as? String == Data(c.payload).base64EncodedString(), "\(c.file) \(engine)")
            #expect(o["value"] as? String == c.text, "\(c.file) \(engine)")
            #expect(o["charset"] as? String == c.charset, "\(c.file) \(engine)")
            #expect(o["charsetSource"] as? String == c.source, "\(c.file) \(engine)")
            #expect(o["gs1"] as? Bool == (c.gs1 ? true : nil), "\(c.file) \(engine)")
            if c.text == nil { #expect(o["value"] == nil && o["charset"] == nil && o["charsetSource"] == nil) }
        }
    }

    @Test("--code39-full-ascii decodes the Full ASCII pairs; without it the plain data is reported", arguments: ["zbar", "zxing", "both"])
    func code39FullASCIIFlag(engine: String) throws {
        let c = try #require(TextFixtures.cases.first { $0.type == "code39" })
        let path = TextFixtures.directory.appendingPathComponent(c.file).path
        let full = try ScandBinary.run(["scan", "--engine", engine, "--types", "code39", "--code39-full-ascii", path])
        let plain = try ScandBinary.run(["scan", "--engine", engine, "--types", "code39", path])
        #expect(full.status == 0 && plain.status == 0, "\(full.stderr) \(plain.stderr)")
        func value(_ r: ScandBinary.Result) throws -> String? {
            let objects = try r.jsonLines().first?["objects"] as? [[String: Any]]
            return objects?.first?["value"] as? String
        }
        #expect(try value(full) == c.text)
        #expect(try value(plain) == c.raw)
    }
}
