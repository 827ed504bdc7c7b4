import Testing
@testable import ScanCore

@Suite struct GeometryTypeTests {
    @Test func boundingBoxAndIntersection() {
        let r = NormalizedRect(boundingPoints: [NormalizedPoint(x: 0.5, y: 0.2), NormalizedPoint(x: 0.1, y: 0.9), NormalizedPoint(x: 0.3, y: 0.4)])
        #expect(r == NormalizedRect(x: 0.1, y: 0.2, width: 0.4, height: 0.7))
        let a = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
        let b = NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
        #expect(abs(a.intersection(b).area - 0.0625) < 1e-12)
        #expect(abs(a.iou(b) - 0.0625 / (0.25 + 0.25 - 0.0625)) < 1e-12)
        #expect(a.intersection(NormalizedRect(x: 0.6, y: 0.6, width: 0.1, height: 0.1)).isEmpty)
    }

    @Test func cornersRunClockwiseFromTopLeft() {
        let c = NormalizedRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4).corners
        #expect(c.map(\.x) == [0.1, 0.4, 0.4, 0.1])
        #expect(c.map(\.y) == [0.2, 0.2, 0.6000000000000001, 0.6000000000000001])
    }

    @Test func pixelRectCoversAndClips() {
        let size = PixelSize(width: 100, height: 50)
        let p = PixelRect(covering: NormalizedRect(x: 0.101, y: 0.5, width: 0.2, height: 0.9), in: size)
        #expect(p == PixelRect(x: 10, y: 25, width: 21, height: 25))
    }

    @Test func rectOfInterestValidation() {
        #expect(NormalizedRect.unit.isValidRectOfInterest)
        #expect(!NormalizedRect(x: -0.1, y: 0, width: 0.5, height: 0.5).isValidRectOfInterest)
        #expect(!NormalizedRect(x: 0.6, y: 0, width: 0.5, height: 0.5).isValidRectOfInterest)
        #expect(!NormalizedRect(x: 0.2, y: 0.2, width: 0, height: 0.5).isValidRectOfInterest)
    }
}

@Suite struct LumaPlaneTests {
    let plane = LumaPlane(width: 4, height: 3, stride: 5, bytes: Array(0..<15).map(UInt8.init))

    @Test func cropCopiesRowsRespectingStride() {
        let c = plane.cropped(to: PixelRect(x: 1, y: 1, width: 2, height: 2))
        #expect(c.width == 2 && c.height == 2 && c.stride == 2)
        #expect(c.bytes == [6, 7, 11, 12])
    }

    @Test func invertIgnoresPadding() {
        let i = plane.inverted()
        #expect(i.stride == 4)
        #expect(i.bytes == [255, 254, 253, 252, 250, 249, 248, 247, 245, 244, 243, 242])
    }
}

@Suite struct MetadataObjectTypeTests {
    let available = Set(MetadataObjectType.allCases.filter { $0 != .aztec })

    @Test func rawNamesAreAVFoundationNames() {
        #expect(MetadataObjectType.interleaved2of5.rawValue == "interleaved2of5")
        #expect(MetadataObjectType.gs1DataBarExpanded.rawValue == "gs1DataBarExpanded")
        #expect(MetadataObjectType.allCases.count == 17)
    }

    @Test func parsesListsCaseInsensitively() throws {
        #expect(try MetadataObjectType.parseList("qr, EAN13", available: available) == [.qr, .ean13])
        #expect(try MetadataObjectType.parseList("codes", available: available).contains(.face) == false)
        #expect(try MetadataObjectType.parseList("all", available: available) == available)
    }

    @Test func rejectsUnknownAndUnavailableTypes() {
        #expect(throws: ScanError.self) { try MetadataObjectType.parseList("qr,bogus", available: available) }
        #expect(throws: ScanError.self) { try MetadataObjectType.parseList("aztec", available: available) }
        #expect(throws: ScanError.self) { try MetadataObjectType.parseList(",", available: available) }
        do { _ = try MetadataObjectType.parseList("bogus", available: available); Issue.record("no throw") } catch {
            #expect("\(error)".contains("bogus"))
        }
    }
}
