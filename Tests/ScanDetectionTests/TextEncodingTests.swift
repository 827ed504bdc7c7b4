import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

private func frame(_ file: String) throws -> Frame {
    let source = try ImageSource(path: TextFixtures.path(file))
    return try #require(try source.nextFrame())
}

private func read(_ c: TextFixtures.Case, engine: BarcodeEngine, fullASCII: Bool = false) throws -> MetadataObject {
    var config = BarcodeConfiguration(engine: engine)
    config.code39FullASCII = fullASCII
    let found = try BarcodeDetector(configuration: config).detect(in: try frame(c.file))
    #expect(found.count == 1, "\(c.file) \(engine): \(found.map(\.stringValue))")
    return try #require(found.first)
}

/// Every case of issue 15's text failures, read by each engine: exact bytes, exact text, the character set
/// and what chose it. (On the base commit the Kanji, Shift JIS and half-width kana cases had no text or
/// ISO-8859-1 mojibake, zbar ignored ECI 22 and gave UTF-8 instead of the payload for ECI 3, 7 and 20,
/// and zbar dropped Code 128's FNC4.)
@Suite("Text encodings")
struct TextEncodingTests {
    static let engines: [BarcodeEngine] = [.zbar, .zxing, .both]
    static let files = TextFixtures.cases.filter { $0.type != "code39" }.map(\.file)

    @Test("QR, Code 128 and GS1-128 text: exact bytes, text and character set with every engine",
          arguments: TextEncodingTests.files, TextEncodingTests.engines)
    func exact(file: String, engine: BarcodeEngine) throws {
        let c = TextFixtures.case(file)
        let o = try read(c, engine: engine)
        #expect(o.type.rawValue == c.type)
        #expect(o.payload == c.payload, "\(file) \(engine): bytes \(o.payload.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "nil")")
        #expect(o.stringValue == c.text, "\(file) \(engine)")
        #expect(o.textEncoding?.charset == c.charset, "\(file) \(engine)")
        #expect(o.textEncoding?.source.rawValue == c.source, "\(file) \(engine)")
        #expect(o.isGS1 == c.gs1, "\(file) \(engine)")
    }

    @Test("Code 39 Full ASCII: pairs decoded with the option, plain Code 39 without it", arguments: TextEncodingTests.engines)
    func code39FullASCII(engine: BarcodeEngine) throws {
        let c = TextFixtures.case("code39_full_ascii.png")
        let raw = try #require(c.raw)
        let plain = try read(c, engine: engine)
        #expect(plain.stringValue == raw)
        #expect(plain.payload == Array(raw.utf8))
        let full = try read(c, engine: engine, fullASCII: true)
        #expect(full.stringValue == c.text)
        #expect(full.payload == c.payload)
        #expect(full.textEncoding == TextEncoding(charset: "US-ASCII", source: .symbology))
    }

    @Test("Code 32: \"A\" + 9 digits by default, the printed characters in rawValue; the plain characters with it off", arguments: TextEncodingTests.engines)
    func code32(engine: BarcodeEngine) throws {
        let c = TextFixtures.case("code32.png")
        var off = BarcodeConfiguration(engine: engine)
        off.code32 = false
        let plain = try #require(try BarcodeDetector(configuration: off).detect(in: try frame(c.file)).first)
        #expect(plain.payload == Array("3PRM8N".utf8))
        #expect(plain.rawValue == nil)
        let found = try BarcodeDetector(configuration: BarcodeConfiguration(engine: engine)).detect(in: try frame(c.file))
        #expect(found.map(\.payload) == [Array("A123456788".utf8)], "\(engine)")
        #expect(found.first?.stringValue == "A123456788")
        #expect(found.first?.rawValue == "3PRM8N")
        #expect(found.first?.type == .code39)
        // The decoder alone: exact bytes, a wrong check digit, a vowel, a length other than 6.
        #expect(TextDecoding.code32(Array("3PRM8N".utf8)) == [0x41, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x38])
        #expect(TextDecoding.code32(Array("3PRM8P".utf8)) == nil)
        #expect(TextDecoding.code32(Array("3PRA8N".utf8)) == nil)
        #expect(TextDecoding.code32(Array("3PRM8NN".utf8)) == nil)
    }

    @Test("scand's text of every zxing-read QR case equals zxing-cpp's own rendering")
    func agreesWithZXing() throws {
        for c in TextFixtures.cases where c.type == "qr" {
            let plane = try frame(c.file).luma
            let symbols = try ZXingReader.read(plane, types: [.qr])
            let s = try #require(symbols.first, "\(c.file)")
            let ours = TextDecoding.decode(s.bytes, type: .qr, segments: s.segments).text
            #expect(ours == (c.text == nil ? nil : s.zxingText), "\(c.file): zxing says \(s.zxingText)")
        }
    }

    @Test("zbar's QR reads are re-read by zxing only when their payload is not printable ASCII; on streams once per code in view")
    func rereadOnlyWhenNeeded() throws {
        let d = BarcodeDetector(configuration: BarcodeConfiguration(engine: .zbar))
        let ascii = try ReaderFixtures.frame("inverted_qr.png")
        #expect(try d.detect(in: ascii).map(\.stringValue) == ["INVERTED-42"])
        #expect(d.textRereads == 0)
        let kanji = try frame("qr_kanji.png")
        #expect(try d.detect(in: kanji).first?.stringValue == "今度のバージョン")
        #expect(d.textRereads == 1)
        // Still images are separate symbols: the same bytes in byte mode are re-read, and say so.
        #expect(try d.detect(in: try frame("qr_sjis_bytes.png")).first?.textEncoding == TextEncoding(charset: "Shift_JIS", source: .guess))
        #expect(d.textRereads == 2)
        // On a stream, a code held in view is re-read once: zxing's answer is remembered while it stays in view.
        for _ in 0..<3 {
            #expect(try d.detectStream(in: kanji, steps: 1).first?.textEncoding == TextEncoding(charset: "Shift_JIS", source: .kanji))
        }
        #expect(d.textRereads == 3)
    }
}

@Suite("Text decoding")
struct TextDecodingTests {
    @Test("the guess follows zxing-cpp: UTF-8, then Shift JIS that looks Japanese, else ISO-8859-1")
    func guess() {
        #expect(TextDecoding.guess(Array("Grüße".utf8)) == .utf8)
        #expect(TextDecoding.guess(Array("plain ASCII".utf8)) == .utf8)
        #expect(TextDecoding.guess([0xC3, 0xDE, 0xBB, 0xDE, 0xB2, 0xDD, 0x51, 0x52]) == .shiftJIS) // ﾃﾞｻﾞｲﾝQR
        #expect(TextDecoding.guess([0x8D, 0xA1, 0x93, 0x78, 0x82, 0xCC]) == .shiftJIS) // 今度の
        // "ÉCOLE" is valid Shift JIS (É = half-width ﾉ) but one katakana is no evidence: ISO-8859-1.
        #expect(TextDecoding.guess([0xC9, 0x43, 0x4F, 0x4C, 0x45]) == .latin1)
        #expect(TextDecoding.guess([0x43, 0x61, 0x66, 0xE9]) == .latin1) // "Café"
        #expect(TextDecoding.decode([0x43, 0x61, 0x66, 0xE9], type: .qr) == "Café")
        #expect(TextDecoding.decode([0x00, 0xFF, 0x10], type: .qr) == nil)
    }

    @Test("ECI runs decode with their own set; an ECI 899 (binary) run means no text")
    func eciRuns() {
        // "Ж" in ISO-8859-5 (ECI 7), then "é" in ISO-8859-1 (ECI 3), then UTF-8 "€" (ECI 26).
        let bytes: [UInt8] = [0xB6, 0xE9, 0xE2, 0x82, 0xAC]
        let segments = [TextDecoding.Segment(offset: 0, eci: 7, fromMode: false),
                        TextDecoding.Segment(offset: 1, eci: 3, fromMode: false),
                        TextDecoding.Segment(offset: 2, eci: 26, fromMode: false)]
        let r = TextDecoding.decode(bytes, type: .qr, segments: segments)
        #expect(r.text == "Жé€")
        #expect(r.encoding == TextEncoding(charset: "ISO-8859-5,ISO-8859-1,UTF-8", source: .eci))
        let binary = TextDecoding.decode([0x41, 0x42], type: .qr, segments: [.init(offset: 0, eci: 899, fromMode: false)])
        #expect(binary.text == nil && binary.encoding == nil)
        // Kanji mode then an ASCII byte run: named by the Kanji run.
        let kanji = TextDecoding.decode([0x8D, 0xA1, 0x41], type: .qr,
                                        segments: [.init(offset: 0, eci: 20, fromMode: true), .init(offset: 2, eci: nil, fromMode: false)])
        #expect(kanji.text == "今A")
        #expect(kanji.encoding == TextEncoding(charset: "Shift_JIS", source: .kanji))
        for (eci, name, bytes, text) in [(20, "Shift_JIS", [UInt8]([0x5C, 0x7E]), "\\~"), (28, "Big5", [0xA4, 0xA4], "中"),
                                         (30, "EUC-KR", [0xC7, 0xD1], "한"), (32, "GB18030", [0xD6, 0xD0], "中"),
                                         (21, "windows-1250", [0x8A], "Š"), (25, "UTF-16BE", [0x00, 0x41], "A")] {
            let r = TextDecoding.decode(bytes, type: .qr, segments: [.init(offset: 0, eci: eci, fromMode: false)])
            #expect(r.text == text, "ECI \(eci)")
            #expect(r.encoding?.charset == name, "ECI \(eci)")
        }
    }

    @Test("Code 39 Full ASCII pairs; a $ % / + that starts no pair leaves plain Code 39")
    func fullASCII() {
        #expect(TextDecoding.code39FullASCII(Array("E+X+T+E+N+D+E+D /A%J/J/C".utf8)) == Array("Extended !?*#".utf8))
        #expect(TextDecoding.code39FullASCII(Array("%U$M%V%W/Z%T".utf8)) == [0x00, 0x0D, 0x40, 0x60, 0x3A, 0x7F])
        // A HIBC label ("+" then the labeler code, "/$" inside) is not Full ASCII: kept as it is.
        #expect(TextDecoding.code39FullASCII(Array("+A99912345/$$52001510X3".utf8)) == nil)
        #expect(TextDecoding.code39FullASCII(Array("10%".utf8)) == nil)
        #expect(TextDecoding.code39FullASCII(Array("/P".utf8)) == nil)
    }

    @Test("1-D codes: ASCII, and ISO-8859-1 for Code 128's FNC4 characters")
    func linear() {
        #expect(TextDecoding.decode(Array("Déjà".utf8), type: .code128, segments: []).text == "DÃ©jÃ\u{A0}")
        let r = TextDecoding.decode([0x44, 0xE9], type: .code128, segments: [])
        #expect(r.text == "Dé" && r.encoding == TextEncoding(charset: "ISO-8859-1", source: .symbology))
        #expect(TextDecoding.decode(Array("0123".utf8), type: .ean13, segments: []).encoding == TextEncoding(charset: "US-ASCII", source: .symbology))
    }
}
