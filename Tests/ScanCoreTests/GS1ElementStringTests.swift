import Testing
@testable import ScanCore

/// GS1 element strings split into Application Identifiers (GS1 General Specifications, sections 3 and 7.8).
/// Check digits are GS1 mod-10, worked by hand: GTIN 0950600013435|2, SSCC 1061414112345678|9|7 → …7, GLN
/// 061414100000|5.
@Suite struct GS1ElementStringTests {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8).map { $0 == UInt8(ascii: "|") ? 0x1D : $0 } }

    static func pairs(_ g: GS1ElementString) -> [String] { g.elements.map { "\($0.ai)=\($0.value)" } }

    @Test("predefined-length AIs need no separator, variable ones end at GS or at the end")
    func splits() {
        let g = GS1ElementString(Self.bytes("01095060001343521726123110ABC123|21SN-42"))
        #expect(g.isValid, "\(g.error ?? "")")
        #expect(Self.pairs(g) == ["01=09506000134352", "17=261231", "10=ABC123", "21=SN-42"])
        #expect(g.elements.map(\.title) == ["GTIN", "USE BY or EXPIRY", "BATCH/LOT", "SERIAL"])
        // A GS after a predefined-length field (some encoders write one) and a leading GS (FNC1) are skipped.
        let h = GS1ElementString(Self.bytes("|0109506000134352|17261231"))
        #expect(h.isValid && Self.pairs(h) == ["01=09506000134352", "17=261231"])
    }

    @Test("4-digit AIs: a decimal weight, a GLN, an SSCC and an internal AI")
    func longerAIs() {
        let g = GS1ElementString(Self.bytes("001061414112345678973103000189410061414100000599anything"))
        #expect(g.isValid, "\(g.error ?? "")")
        #expect(Self.pairs(g) == ["00=106141411234567897", "3103=000189", "410=0614141000005", "99=anything"])
        #expect(g.elements[1].title == "NET WEIGHT (kg)" && g.elements[2].title == "SHIP TO LOC")
    }

    @Test("a wrong check digit names the AI and the digit it should be")
    func checkDigits() {
        #expect(GS1ElementString(Self.bytes("0109506000134353")).error == "AI (01): check digit 3, should be 2")
        #expect(GS1ElementString(Self.bytes("00106141411234567896")).error == "AI (00): check digit 6, should be 7")
        #expect(GS1ElementString(Self.bytes("4140614141000004")).error == "AI (414): check digit 4, should be 5")
    }

    @Test("dates: month 01-12, day up to the month's last, day 00 allowed")
    func dates() {
        #expect(GS1ElementString(Self.bytes("17261200")).isValid)
        #expect(GS1ElementString(Self.bytes("15280229")).isValid)
        #expect(GS1ElementString(Self.bytes("17261332")).error == "AI (17): no such date 261332 (YYMMDD)")
        #expect(GS1ElementString(Self.bytes("11260431")).error == "AI (11): no such date 260431 (YYMMDD)")
        #expect(GS1ElementString(Self.bytes("17261301")).error == "AI (17): no such date 261301 (YYMMDD)")
    }

    @Test("lengths and character sets are checked; an unknown AI is an error")
    func formats() {
        #expect(GS1ElementString(Self.bytes("01095060001343")).error == "AI (01): 12 characters, needs 14")
        #expect(GS1ElementString(Self.bytes("10" + String(repeating: "A", count: 21))).error
            == "AI (10): 21 characters, needs 1 to 20")
        #expect(GS1ElementString(Self.bytes("3103ABC189")).error == "AI (3103): byte 0x41 at 0 is not a digit")
        #expect(GS1ElementString(Self.bytes("10AB CD")).error == "AI (10): byte 0x20 at 2 is not a character of GS1's set 82")
        let unknown = GS1ElementString(Self.bytes("0109506000134352|23XYZ"))
        #expect(unknown.error == "no GS1 Application Identifier at \"23XY\" (byte 17)")
        #expect(Self.pairs(unknown) == ["01=09506000134352"])
        #expect(GS1ElementString([]).error == "no element")
        #expect(GS1ElementString(Self.bytes("|")).error == "no element")
    }

    @Test("every AI in the table parses its own format: no AI is a prefix of another")
    func tableIsPrefixFree() {
        let ais = Array(GS1ElementString.table.keys)
        for a in ais {
            #expect(!ais.contains { $0 != a && $0.hasPrefix(a) }, "\(a) is a prefix of another AI")
        }
        #expect(ais.count > 500)
    }
}
