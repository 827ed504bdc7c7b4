import Foundation
import Testing
import ScanTestSupport

/// `gs1Elements`, `gs1Valid` and `gs1Error` on real symbols (issue 50): GS1-128, GS1 DataMatrix, GS1 QR Code and
/// GS1 DataBar Expanded rendered by zint (Debian's package; `--gs1nocheck` lets it encode a wrong check digit or
/// an impossible date) and read by `scand scan`.
@Suite struct GS1FieldsTests {
    /// zint's symbology numbers and the options that make each one GS1.
    static let symbologies: [(name: String, type: String, zint: [String])] = [
        ("GS1-128", "code128", ["-b", "16"]),
        ("GS1 DataMatrix", "dataMatrix", ["-b", "71", "--gs1"]),
        ("GS1 QR Code", "qr", ["-b", "58", "--gs1"]),
        ("GS1 DataBar Expanded", "gs1DataBarExpanded", ["-b", "31"]),
    ]

    /// Renders `data` (zint's bracketed AIs) as each symbology and returns each one's object from `scand scan`.
    static func scan(_ data: String) throws -> [String: [String: Any]] {
        let dir = try TemporaryDirectory()
        var files: [String] = []
        for (name, _, options) in symbologies {
            let file = dir.url.appendingPathComponent(name.replacingOccurrences(of: " ", with: "-") + ".png").path
            _ = try runTool("/usr/bin/zint", options + ["--gs1nocheck", "--scale=4", "-d", data, "-o", file])
            files.append(file)
        }
        let r = try ScandBinary.run(["scan"] + files)
        #expect(r.status == 0, "\(r.stderr)")
        var out: [String: [String: Any]] = [:]
        for line in try r.jsonLines() {
            let objects = line["objects"] as? [[String: Any]] ?? []
            guard let source = line["source"] as? String, objects.count == 1 else { continue }
            out[URL(fileURLWithPath: source).lastPathComponent] = objects[0]
        }
        return out
    }

    static func key(_ name: String) -> String { name.replacingOccurrences(of: " ", with: "-") + ".png" }

    static func elements(_ o: [String: Any]?) -> [String] {
        (o?["gs1Elements"] as? [[String: Any]] ?? []).map { "\($0["ai"] ?? "")=\($0["value"] ?? "")|\($0["title"] ?? "-")" }
    }

    @Test("a valid element string: every AI with its value and title, gs1Valid true, in four symbologies")
    func valid() throws {
        let read = try Self.scan("[01]09506000134352[17]261231[10]ABC123[21]SN-42")
        for (name, type, _) in Self.symbologies {
            let o = read[Self.key(name)]
            #expect(o?["type"] as? String == type, "\(name)")
            #expect(o?["gs1"] as? Bool == true && o?["gs1Valid"] as? Bool == true && o?["gs1Error"] == nil, "\(name)")
            #expect(
                Self.elements(o) == [
                    "01=09506000134352|GTIN", "17=261231|USE BY or EXPIRY", "10=ABC123|BATCH/LOT", "21=SN-42|SERIAL",
                ], "\(name)")
            // The raw value keeps its GS separator.
            #expect(o?["value"] as? String == "01095060001343521726123110ABC123\u{1D}21SN-42", "\(name)")
        }
    }

    @Test("a wrong GTIN check digit is flagged in the three symbologies that carry it")
    func wrongCheckDigit() throws {
        let read = try Self.scan("[01]09506000134353[10]LOT7")
        for (name, _, _) in Self.symbologies where name != "GS1 DataBar Expanded" {
            let o = read[Self.key(name)]
            #expect(o?["gs1Valid"] as? Bool == false, "\(name)")
            #expect(o?["gs1Error"] as? String == "AI (01): check digit 3, should be 2", "\(name)")
        }
        // DataBar Expanded compresses a GTIN and carries no check digit: the decoder computes it.
        let databar = read[Self.key("GS1 DataBar Expanded")]
        #expect(databar?["gs1Valid"] as? Bool == true && Self.elements(databar).first == "01=09506000134352|GTIN")
    }

    @Test("an impossible date is flagged, naming its AI, in four symbologies")
    func wrongDate() throws {
        let read = try Self.scan("[01]09506000134352[15]261332[21]A1")
        for (name, _, _) in Self.symbologies {
            let o = read[Self.key(name)]
            #expect(o?["gs1Valid"] as? Bool == false, "\(name)")
            #expect(o?["gs1Error"] as? String == "AI (15): no such date 261332 (YYMMDD)", "\(name)")
            #expect(Self.elements(o).prefix(2) == ["01=09506000134352|GTIN", "15=261332|BEST BEFORE or BEST BY"], "\(name)")
        }
    }

    @Test("codes that are not GS1 have no GS1 keys")
    func notGS1() throws {
        let r = try ScandBinary.run(["scan", "sym-00-qr.png", "sym-01-ean13.png"])
        let objects = try r.jsonLines().flatMap { $0["objects"] as? [[String: Any]] ?? [] }
        #expect(objects.count == 2)
        for o in objects { #expect(o["gs1"] == nil && o["gs1Elements"] == nil && o["gs1Valid"] == nil) }
    }
}
