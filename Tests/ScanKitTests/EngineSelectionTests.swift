import Testing
import ScanCore
import ScanKit

@Suite("Engine selection in MetadataOutput")
struct EngineSelectionTests {
    @Test("formats only zxing reads are refused with --engine zbar, accepted otherwise")
    func zxingOnlyTypes() throws {
        var config = OutputConfiguration(metadataObjectTypes: [.qr, .dataMatrix])
        config.barcode.engine = .zbar
        #expect(throws: ScanError.self) { try MetadataOutput(configuration: config) }
        for engine in [BarcodeEngine.zxing, .both] {
            config.barcode.engine = engine
            let output = try MetadataOutput(configuration: config)
            #expect(output.configuration.metadataObjectTypes == [.qr, .dataMatrix])
        }
    }

    @Test("the default types narrow to what the engine reads")
    func defaults() throws {
        var config = OutputConfiguration()
        config.barcode.engine = .zbar
        let zbar = try MetadataOutput(configuration: config)
        #expect(!zbar.configuration.metadataObjectTypes.contains(.aztec))
        #expect(zbar.configuration.metadataObjectTypes.contains(.qr))
        config.barcode.engine = .both
        let both = try MetadataOutput(configuration: config)
        #expect(both.configuration.metadataObjectTypes.isSuperset(of: [.aztec, .dataMatrix, .pdf417, .microQR, .qr, .ean13]))
        #expect(MetadataOutput.availableMetadataObjectTypes.contains(.pdf417))
    }
}
