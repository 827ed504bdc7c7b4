import Testing
import ScanCore
@testable import ScanDetection

/// ``Symbologies`` is the one table between scand's types and the engines' symbologies.
@Suite struct SymbologiesTests {
    @Test("the types each engine reads are the documented ones")
    func engineTypes() {
        #expect(BarcodeDetector.zbarTypes == [
            .qr, .ean13, .ean8, .upce, .code39, .code93, .code128, .interleaved2of5, .itf14, .codabar,
            .gs1DataBar, .gs1DataBarExpanded,
        ])
        #expect(BarcodeDetector.zxingTypes == [
            .qr, .microQR, .ean13, .ean8, .upce, .code39, .code93, .code128, .interleaved2of5, .itf14, .codabar,
            .gs1DataBarExpanded, .pdf417, .aztec, .dataMatrix,
        ])
        #expect(!Symbologies.rows.contains { $0.type == .face })
        #expect(Set(Symbologies.rows.map(\.type)).count == Symbologies.rows.count, "one row per type")
    }

    @Test("every symbology an engine is asked for maps back to its type, and only when that type is enabled")
    func roundTrip() {
        let all = Set(MetadataObjectType.allCases)
        let digits = Array("12345678".utf8) // not a valid ITF-14: Interleaved 2 of 5
        for row in Symbologies.rows {
            let expected: MetadataObjectType = row.type == .itf14 ? .interleaved2of5 : row.type
            for s in row.zbar + row.zbarAlso {
                #expect(Symbologies.type(zbar: s, bytes: digits, enabled: all) == expected, "\(row.type)")
                #expect(Symbologies.type(zbar: s, bytes: digits, enabled: all.subtracting([expected])) == nil, "\(row.type)")
            }
            for f in row.zxing + row.zxingAlso {
                #expect(Symbologies.type(zxing: f, bytes: digits, enabled: all) == expected, "\(row.type)")
                #expect(Symbologies.zxingFormats(for: [row.type]) & UInt32(f) != 0 || row.zxingAlso.contains(f), "\(row.type)")
            }
            #expect(Symbologies.zbarSymbologies(for: [row.type]) == row.zbar, "\(row.type)")
        }
        #expect(Symbologies.zxingFormats(for: [.gs1DataBar, .face]) == 0)
        #expect(Symbologies.zbarSymbologies(for: [.interleaved2of5, .itf14]).count == 1)
        let itf14 = Array("00012345678905".utf8)
        let i25 = Symbologies.rows.first { $0.type == .interleaved2of5 }!
        #expect(Symbologies.type(zbar: i25.zbar[0], bytes: itf14, enabled: all) == .itf14)
        #expect(Symbologies.type(zxing: i25.zxing[0], bytes: itf14, enabled: [.interleaved2of5]) == .interleaved2of5)
    }
}
