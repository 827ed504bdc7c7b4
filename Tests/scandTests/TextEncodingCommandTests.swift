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

    @Test("Full ASCII: decoded where evident (the printed pairs in rawValue), always with --code39-full-ascii, never with --no-", arguments: ["zbar", "zxing", "both"])
    func code39FullASCIIFlag(engine: String) throws {
        let c = try #require(TextFixtures.cases.first { $0.type == "code39" })
        let path = TextFixtures.directory.appendingPathComponent(c.file).path
        let full = try ScandBinary.run(["scan", "--engine", engine, "--types", "code39", "--code39-full-ascii", path])
        let evident = try ScandBinary.run(["scan", "--engine", engine, "--types", "code39", path])
        let plain = try ScandBinary.run(["scan", "--engine", engine, "--types", "code39", "--no-code39-full-ascii", path])
        #expect(full.status == 0 && plain.status == 0 && evident.status == 0, "\(full.stderr) \(plain.stderr)")
        func object(_ r: ScandBinary.Result) throws -> [String: Any]? {
            (try r.jsonLines().first?["objects"] as? [[String: Any]])?.first
        }
        #expect(try object(full)?["value"] as? String == c.text)
        #expect(try object(evident)?["value"] as? String == c.text)
        #expect(try object(evident)?["rawValue"] as? String == c.raw)
        #expect(try object(plain)?["value"] as? String == c.raw)
        #expect(try object(plain)?["rawValue"] == nil && object(plain)?["fullASCIIValue"] == nil)
    }

    /// The held-out misread classes (issue 50): Full ASCII reported as its raw pairs. And what must stay as
    /// printed: HIBC (zint's HIBC Code 39: "+", the labeler code, its mod-43 check character), "10%OFF", "A/B".
    @Test("Code 39 read as a user expects: Full ASCII where evident, HIBC and plain text as printed with the other reading kept")
    func code39Evidence() throws {
        let dir = try TemporaryDirectory()
        let cases: [(symbology: String, data: String, value: String, raw: String?, other: String?)] = [
            ("8", "12+A+B", "12ab", "12+A+B", nil),
            ("8", "A+A-1234", "Aa-1234", "A+A-1234", nil),
            ("8", "E+X+T+E+N+D+E+D /A%J/J/C", "Extended !?*#", "E+X+T+E+N+D+E+D /A%J/J/C", nil),
            ("8", "10%OFF", "10%OFF", nil, "10_FF"),
            ("8", "A/B", "A/B", nil, "A\""),
            ("99", "A123BJC5D6E71", "+A123BJC5D6E71G", nil, "a123BJC5D6E71G"),
        ]
        for (i, c) in cases.enumerated() {
            let path = dir.url.appendingPathComponent("c\(i).png").path
            _ = try runTool("/usr/bin/zint", ["-b", c.symbology, "--scale", "2", "-o", path, "-d", c.data])
            let r = try ScandBinary.run(["scan", "--types", "code39", path])
            let o = try #require((try r.jsonLines().first?["objects"] as? [[String: Any]])?.first, "\(c.data): \(r.stderr)")
            #expect(o["value"] as? String == c.value, "\(c.data)")
            #expect(o["rawValue"] as? String == c.raw, "\(c.data)")
            #expect(o["fullASCIIValue"] as? String == c.other, "\(c.data)")
        }
    }
}
