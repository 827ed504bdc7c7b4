import Testing
import ScanCore
import ScanCapture
import ScanTestSupport
@testable import ScanDetection

private func detect(_ name: String, types: Set<MetadataObjectType>? = nil, inverted: Bool = true,
                    roi: NormalizedRect = .unit) throws -> [MetadataObject] {
    var config = BarcodeConfiguration()
    if let types { config.types = types }
    config.tryInverted = inverted
    let detector = BarcodeDetector(configuration: config)
    let frame = try ImageSource(path: Fixtures.path(name)).nextFrame()!
    return try detector.detect(in: frame, rectOfInterest: roi)
}

@Suite struct BarcodeDetectorTests {
    struct Symbol: Sendable, CustomTestStringConvertible {
        var file: String, type: String, value: String, bytes: String
        var testDescription: String { "\(type) \(file)" }
    }

    static let symbols: [Symbol] = {
        guard let m = try? Fixtures.manifest(), let list = m["symbols"] as? [[String: String]] else { return [] }
        return list.map { Symbol(file: $0["file"]!, type: $0["type"]!, value: $0["value"]!, bytes: $0["bytes"]!) }
    }()

    @Test func manifestCoversEveryZbarSymbology() {
        let covered = Set(Self.symbols.compactMap { MetadataObjectType(rawValue: $0.type) })
        #expect(covered == BarcodeDetector.zbarTypes)
    }

    @Test(arguments: symbols)
    func readsEverySymbology(symbol: Symbol) throws {
        let found = try detect(symbol.file)
        #expect(found.count == 1)
        let o = try #require(found.first)
        #expect(o.type.rawValue == symbol.type)
        #expect(o.stringValue == symbol.value)
        #expect(o.payload == Fixtures.hex(symbol.bytes))
        #expect(o.corners.count == 4)
        #expect(o.bounds.isValidRectOfInterest)
    }

    @Test func utf8QRIsDecodedAsUTF8NotShiftJIS() throws {
        let entry = try Fixtures.entry("qr-utf8.png")
        let o = try #require(try detect("qr-utf8.png").first)
        #expect(o.stringValue == entry["value"])
        #expect(o.payload == Fixtures.hex(entry["bytes"]!))
    }

    @Test func binaryQRKeepsExactBytesAndHasNoText() throws {
        let entry = try Fixtures.entry("qr-binary.png")
        let o = try #require(try detect("qr-binary.png").first)
        #expect(o.payload == Fixtures.hex(entry["bytes"]!))
        #expect(o.stringValue == nil)
    }

    @Test func latin1QRUsesQRDefaultCharset() throws {
        let o = try #require(try detect("qr-latin1.png").first)
        #expect(o.stringValue == "Café crème")
        #expect(o.payload == Array("Café crème".unicodeScalars.map { UInt8($0.value) }))
    }

    @Test func hostilePayloadIsReturnedVerbatim() throws {
        let entry = try Fixtures.entry("qr-evil.png")
        let o = try #require(try detect("qr-evil.png").first)
        #expect(o.stringValue == entry["value"])
    }

    @Test(arguments: [("qr-inverted.png", MetadataObjectType.qr, "DARK-MODE-LOGIN:7f3a"),
                      ("ean13-inverted.png", .ean13, "4006381333931")])
    func invertedCodesAreRead(name: String, type: MetadataObjectType, value: String) throws {
        #expect(try detect(name, inverted: false).isEmpty)
        let o = try #require(try detect(name).first)
        #expect(o.type == type && o.stringValue == value)
    }

    @Test func multipleCodesInOneFrameWithCorrectPlaces() throws {
        let found = try detect("multi.png")
        let files = try Fixtures.manifest()["files"] as! [String: Any]
        let multi = files["multi.png"] as! [String: Any]
        let codes = multi["codes"] as! [[String: Any]]
        #expect(Set(found.compactMap(\.stringValue)) == Set(codes.map { $0["value"] as! String }))
        for code in codes where (code["value"] as! String).hasPrefix("MULTI-") && code["height"] == nil {
            let o = try #require(found.first { $0.stringValue == code["value"] as? String })
            // The QR symbol sits 4 modules (20 px) inside the pasted image.
            let x = Double(code["x"] as! Int + 20) / 960, y = Double(code["y"] as! Int + 20) / 540
            #expect(abs(o.bounds.x - x) < 2.0 / 960 && abs(o.bounds.y - y) < 2.0 / 540)
            #expect(abs(o.corners[0].x - x) < 2.0 / 960)
        }
    }

    @Test func rectOfInterestScansOnlyThatPartAndKeepsFrameCoordinates() throws {
        let all = try detect("multi.png")
        let roi = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
        let part = try detect("multi.png", roi: roi)
        #expect(part.map(\.stringValue) == ["MULTI-A"])
        let full = try #require(all.first { $0.stringValue == "MULTI-A" })
        #expect(abs(part[0].bounds.x - full.bounds.x) < 1e-9 && abs(part[0].bounds.y - full.bounds.y) < 1e-9)
        let lower = try detect("multi.png", roi: NormalizedRect(x: 0, y: 0.8, width: 1, height: 0.2))
        #expect(lower.map(\.stringValue) == ["MULTI-128"])
    }

    @Test func typesSelectWhatIsReported() throws {
        let found = try detect("multi.png", types: [.code128])
        #expect(found.map(\.type) == [.code128])
        #expect(try detect("sym-01-ean13.png", types: [.qr]).isEmpty)
    }

    @Test func longInterleaved2of5IsNotReportedAsFragments() throws {
        let found = try detect("i25-long.png")
        #expect(found.map(\.stringValue) == ["123456789012345678"])
    }

    @Test func fragmentSuppressionDropsContainedAndOverlappingReads() {
        func i25(_ v: String, _ x: Double) -> MetadataObject {
            MetadataObject(type: .interleaved2of5, bounds: NormalizedRect(x: x, y: 0.4, width: 0.2, height: 0.1),
                           payload: Array(v.utf8))
        }
        let kept = BarcodeDetector.suppressFragments([i25("1234567890", 0.1), i25("345678", 0.6), i25("999999", 0.15), i25("555555", 0.7)])
        #expect(kept.compactMap { $0.payload.map { String(decoding: $0, as: UTF8.self) } } == ["1234567890", "555555"])
    }

    @Test func sceneWithoutCodesGivesNothing() throws {
        #expect(try detect("empty-scene.png").isEmpty)
    }

    @Test func gs1CheckDigits() {
        #expect(GS1.hasValidCheckDigit(Array("15400141288763".utf8)))
        #expect(!GS1.hasValidCheckDigit(Array("15400141288764".utf8)))
        #expect(GS1.hasValidCheckDigit(Array("4006381333931".utf8)))
    }

    @Test func textDecodingRules() {
        #expect(TextDecoding.decode(Array("Grüße".utf8), type: .qr) == "Grüße")
        #expect(TextDecoding.decode([0x43, 0x61, 0x66, 0xE9], type: .qr) == "Café")
        #expect(TextDecoding.decode([0x00, 0xFF, 0x10], type: .qr) == nil)
    }
}

@Suite struct StreamBudgetTests {
    /// A dark-mode (inverted) QR on a stream: found within a rotation of steps, then on every frame,
    /// while each frame costs at most 1 + steps scans.
    @Test func invertedCodeOnAStreamIsFoundThenReadEveryFrame() throws {
        let detector = BarcodeDetector(configuration: BarcodeConfiguration())
        let frame = try ImageSource(path: Fixtures.path("qr-inverted.png")).nextFrame()!
        let rotation = detector.stream.streamSteps.count
        #expect(rotation >= 4)
        var firstRead: Int?
        var reads = 0
        for i in 0..<(rotation + 10) {
            let found = try detector.detectStream(in: frame, steps: 1)
            if !found.isEmpty {
                #expect(found.map(\.stringValue) == ["DARK-MODE-LOGIN:7f3a"])
                firstRead = firstRead ?? i
                reads += 1
            }
        }
        let first = try #require(firstRead)
        #expect(first < rotation)
        // Once found, the successful step stays first: every later frame reads it.
        #expect(reads == rotation + 10 - first)
    }

    /// Live sources give each frame a deadline: a step whose recent cost would overrun it waits for its next
    /// turn, but never more than `maximumDeferrals` turns in a row.
    @Test func stepsThatWouldMissTheDeadlineWaitAtMostThreeTurns() throws {
        var bytes = [UInt8](repeating: 0, count: 320 * 240)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: (i &* 2654435761) >> 13) } // noise: no code
        let frame = Frame(luma: LumaPlane(width: 320, height: 240, bytes: bytes), index: 0, time: 0)
        let detector = BarcodeDetector(configuration: BarcodeConfiguration())
        let rotation = detector.stream.streamSteps(width: 320, height: 240).count
        // A deadline long past: after the first rotation (costs unknown, every step runs and is timed), each
        // step's next four turns are three deferrals and one run.
        for _ in 0..<(5 * rotation) { #expect(try detector.detectStream(in: frame, steps: 1, deadline: MonotonicInstant(nanoseconds: 0)).isEmpty) }
        #expect(detector.deferredSteps == 3 * rotation)
        // A deadline that every step meets: nothing is put off.
        let relaxed = BarcodeDetector(configuration: BarcodeConfiguration())
        for _ in 0..<(3 * rotation) { _ = try relaxed.detectStream(in: frame, steps: 1, deadline: MonotonicInstant.now.advanced(by: .seconds(60))) }
        #expect(relaxed.deferredSteps == 0)
    }

    /// The step that reads a code in view is never put off for the deadline: a dark-mode code is read on
    /// every frame once found, however late the frame.
    @Test func theStepThatReadsIsNotPutOff() throws {
        let detector = BarcodeDetector(configuration: BarcodeConfiguration())
        let frame = try ImageSource(path: Fixtures.path("qr-inverted.png")).nextFrame()!
        let rotation = detector.stream.streamSteps.count
        var firstRead: Int?
        var reads = 0
        for i in 0..<(rotation + 10) where !(try detector.detectStream(in: frame, steps: 1, deadline: MonotonicInstant(nanoseconds: 0)).isEmpty) {
            firstRead = firstRead ?? i
            reads += 1
        }
        let first = try #require(firstRead)
        #expect(first < rotation)
        #expect(reads == rotation + 10 - first)
    }

    @Test func plainCodesOnAStreamNeedNoExtraSteps() throws {
        let detector = BarcodeDetector(configuration: BarcodeConfiguration())
        let frame = try ImageSource(path: Fixtures.path("multi.png")).nextFrame()!
        let read = try detector.readStream(in: frame, steps: 0)
        #expect(read.objects.count == 4)
        #expect(read.pass == .plain)
        #expect(try detector.detectStream(in: try ImageSource(path: Fixtures.path("qr-inverted.png")).nextFrame()!, steps: 0).isEmpty)
    }
}
