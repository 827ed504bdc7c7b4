import Testing

import ScanCore
@testable import ScanDetection

/// ``ZBarReader/bothHalvesRead(_:byRows:)``: an EAN/UPC read that rests on one half read alone (issue 50's
/// blurred EAN/UPC class). The points are zbar's, as scanned on images this project made: its reports of a
/// payload where each line left a half of the symbol.
@Suite("EAN/UPC reads resting on one half")
struct HalfReadTests {
    static func symbol(_ type: MetadataObjectType, _ alongs: [Double], byRows: Bool = true) -> ZBarSymbol {
        let points = alongs.enumerated().map { i, a in byRows ? (a, Double(100 + 2 * i)) : (Double(100 + 2 * i), a) }
        return ZBarSymbol(
            type: type, bytes: Array("9506000134352".utf8), points: points, corners: [], orientation: 0,
            quality: points.count, isGS1: false, zbarType: 13)
    }

    @Test("blurred-ean.y4m's misread: reports at the centre and the right end only, lines going each way in turn")
    func oneHalf() {
        // "1713031134352" on the upscaled image of the fixture's last frame (every other line going each way).
        let alongs = (0..<28).map { $0 % 2 == 0 ? 333.0 + Double($0 % 3 == 0 ? 1 : 0) : 648.0 + Double($0 % 4 == 1 ? 1 : 0) }
        #expect(!ZBarReader.bothHalvesRead(Self.symbol(.ean13, alongs), byRows: true))
        #expect(!ZBarReader.bothHalvesRead(Self.symbol(.ean13, alongs, byRows: false), byRows: false))
        #expect(!ZBarReader.bothHalvesRead(Self.symbol(.ean8, alongs), byRows: true))
    }

    @Test("both halves read: reports at both ends and at the centre guard, a tilted symbol's drifting too")
    func bothHalves() {
        // A right UPC-A read of a blurred, interlaced photo's upscaled image (5 reports on rows 44-315).
        let read = [1015.0, 673, 1339, 674, 680, 681, 1022, 681, 1345, 1024, 683]
        #expect(ZBarReader.bothHalvesRead(Self.symbol(.ean13, read), byRows: true))
        // The same symbol read in columns, its positions drifting 1 px a line (a few degrees of tilt).
        let tilted = (0..<30).map { i in [200.0, 340, 480][i % 3] + Double(i) }
        #expect(ZBarReader.bothHalvesRead(Self.symbol(.ean13, tilted, byRows: false), byRows: false))
    }

    @Test("only EAN-13/UPC-A and EAN-8 are read in halves; a single report is no evidence either way")
    func otherTypes() {
        let alongs = [333.0, 648, 333, 648]
        #expect(ZBarReader.bothHalvesRead(Self.symbol(.code128, alongs), byRows: true))
        #expect(ZBarReader.bothHalvesRead(Self.symbol(.upce, alongs), byRows: true))
        #expect(ZBarReader.bothHalvesRead(Self.symbol(.ean13, [400]), byRows: true))
    }

    @Test("two payloads share one half: the rescan of a blurred still read the same right half with other left digits")
    func sharedHalf() {
        let read = Array("1713031134352".utf8)
        #expect(ZBarReader.sharesOneHalf(Array("9153037134352".utf8), read))
        #expect(ZBarReader.sharesOneHalf(Array("1713031999990".utf8), read))
        #expect(!ZBarReader.sharesOneHalf(read, read))
        #expect(!ZBarReader.sharesOneHalf(Array("4006381333931".utf8), read))  // another product: no half alike
        #expect(ZBarReader.sharesOneHalf(Array("96385074".utf8), Array("96381234".utf8)))  // EAN-8: 4 and 4
        #expect(!ZBarReader.sharesOneHalf(Array("96385074".utf8), read))
    }
}
