import Testing
import ScanCore
@testable import ScanOutput

/// The object keys issue 15 adds: `charset`, `charsetSource` (eci | kanji | symbology | guess) and `gs1`.
@Suite struct TextKeysEncoderTests {
    @Test func charsetKeysAndGS1FlagHaveTheContractsExactBytes() {
        let sjis: [UInt8] = [0x8D, 0xA1, 0x93, 0x78]
        let kanji = MetadataObject(type: .qr, bounds: NormalizedRect(x: 0.5, y: 0.25, width: 0.25, height: 0.25),
                                   stringValue: "今度", payload: sjis,
                                   textEncoding: TextEncoding(charset: "Shift_JIS", source: .kanji))
        let gs1 = MetadataObject(type: .code128, bounds: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.125),
                                 stringValue: "10A\u{1D}21B", payload: Array("10A\u{1D}21B".utf8),
                                 textEncoding: TextEncoding(charset: "US-ASCII", source: .symbology), isGS1: true)
        let binary = MetadataObject(type: .qr, bounds: NormalizedRect(x: 0, y: 0, width: 1, height: 1), payload: [0, 255])
        let event = MetadataEvent(source: "t", frame: 0, time: 0, width: 8, height: 8, objects: [kanji, gs1, binary])
        let line = String(decoding: JSONLinesEncoder().encode(.metadata(event)).line, as: UTF8.self)
        let expected = #"{"event":"metadata","frame":0,"height":8,"objects":["#
            + #"{"bounds":{"height":0.25,"width":0.25,"x":0.5,"y":0.25},"bytes":"jaGTeA==","charset":"Shift_JIS","charsetSource":"kanji","type":"qr","value":"今度"},"#
            + #"{"bounds":{"height":0.125,"width":0.5,"x":0,"y":0},"bytes":"MTBBHTIxQg==","charset":"US-ASCII","charsetSource":"symbology","gs1":true,"#
            + #""gs1Elements":[{"ai":"10","title":"BATCH/LOT","value":"A"},{"ai":"21","title":"SERIAL","value":"B"}],"gs1Valid":true,"type":"code128","value":"10A\u001d21B"},"#
            + #"{"bounds":{"height":1,"width":1,"x":0,"y":0},"bytes":"AP8=","type":"qr"}"#
            + #"],"source":"t","time":0,"width":8}"#
        #expect(line == expected + "\n")
    }

    /// `appeared`/`lost` carry the same keys, so a presence consumer can tell a guess from an ECI too.
    @Test func presenceLinesCarryTheCharsetKeys() {
        let appeared = PresenceEvent(transition: .appeared, type: .qr, value: "Привет",
                                     payload: [0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2], source: "s", frame: 3, time: 0.3,
                                     textEncoding: TextEncoding(charset: "windows-1251", source: .eci))
        let line = String(decoding: JSONLinesEncoder().encode(.presence(appeared), seq: 7, timestamp: 1).line, as: UTF8.self)
        #expect(line == #"{"bytes":"z/Do4uXy","charset":"windows-1251","charsetSource":"eci","event":"appeared","frame":3,"seq":7,"source":"s","time":0.3,"timestamp":1,"type":"qr","value":"Привет"}"# + "\n")
    }
}
