import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// Issue 50: every symbol is an object. zbar reports a 1-D payload once per image however many symbols carry it
/// (its image scanner adds each read of a payload it has to that symbol), so on `main` before this two identical
/// EAN-13 or Code 128 labels came out as one object whose box spanned both. Fixtures:
/// Tests/Fixtures/make_code_tracks.py (cases.json).
@Suite("Identical codes in one image")
struct CodeInstancesTests {
    static let stills = CodeTrackFixtures.stills

    static func frame(_ c: CodeTrackFixtures.Still) throws -> Frame {
        try #require(try ImageSource(path: CodeTrackFixtures.path(c.file)).nextFrame())
    }

    /// Which of `c`'s boxes holds the centre of `o`, if one does.
    static func box(of o: MetadataObject, in c: CodeTrackFixtures.Still) -> Int? {
        let x = (o.bounds.x + o.bounds.width / 2) * c.width
        let y = (o.bounds.y + o.bounds.height / 2) * c.height
        return c.boxes.firstIndex { x >= $0[0] && x <= $0[2] && y >= $0[1] && y <= $0[3] }
    }

    @Test("each symbol is its own object, inside its own box, on a still image", arguments: CodeInstancesTests.stills)
    func still(_ c: CodeTrackFixtures.Still) throws {
        let found = try BarcodeDetector().detect(in: try Self.frame(c))
        #expect(found.count == c.count, "\(c.file): \(found.map(\.bounds))")
        #expect(found.allSatisfy { $0.type.rawValue == c.type && $0.stringValue == c.value })
        let boxes = found.map { Self.box(of: $0, in: c) }
        #expect(boxes.allSatisfy { $0 != nil }, "\(c.file): an object's centre lies in no symbol: \(found.map(\.bounds))")
        #expect(Set(boxes.compactMap { $0 }).count == c.count, "\(c.file): two objects on one symbol")
        // No object's box spans two symbols: its width is at most one symbol's (plus a little).
        let widest = c.boxes.map { ($0[2] - $0[0]) / c.width }.max()!
        #expect(found.allSatisfy { $0.bounds.width <= widest * 1.15 }, "\(c.file): \(found.map(\.bounds))")
    }

    @Test("zbar's scan of the image gives each 1-D symbol apart, with its own points and quality",
          arguments: CodeInstancesTests.stills.filter { $0.type != "qr" })
    func zbarScan(_ c: CodeTrackFixtures.Still) throws {
        let frame = try Self.frame(c)
        let types: Set<MetadataObjectType> = [MetadataObjectType(rawValue: c.type)!]
        let reader = ZBarReader(types: types, configuration: BarcodeConfiguration())
        let raw = reader.zbarScan(frame.luma, density: 1, qrOnly: false, lines: .rowsAndColumns)
        #expect(raw.symbols.count == 1, "zbar itself merges them: \(raw.symbols.count)")
        let split = reader.scan(frame.luma, density: 1, qrOnly: false)
        #expect(split.symbols.count == c.count)
        if c.count == 2, split.symbols.count == 2 {
            #expect(split.symbols[0].quality + split.symbols[1].quality <= raw.symbols[0].quality)
            #expect(split.symbols.allSatisfy { $0.quality >= 2 })
        }
    }

    /// The conveyor's frame 110: a card half out of view on the left beside a whole one. zbar joined the right
    /// half of the first (its only half in view) to the left half of the second: one EAN-13 between the two
    /// cards, and the whole card went unreported.
    @Test("half a label beside a whole one: the whole one is read where it is, the joined halves are not")
    func halfInView() throws {
        let truth = try CodeTrackFixtures.conveyorTruth()
        let luma = try Self.conveyorFrame(110)
        let found = try BarcodeDetector().detect(in: Frame(luma: luma, index: 0, time: 0))
        let whole = truth.frames[110].filter { $0.left >= 0 && $0.right <= truth.width }
        #expect(found.count == whole.count, "\(found.map(\.bounds))")
        for o in found {
            let x0 = o.bounds.x * truth.width
            let x1 = (o.bounds.x + o.bounds.width) * truth.width
            #expect(whole.contains { x0 >= $0.left && x1 <= $0.right }, "object at \(x0)...\(x1) on no whole card")
        }
    }

    /// Frame `index` of conveyor.y4m (640×480 grey).
    static func conveyorFrame(_ index: Int) throws -> LumaPlane {
        let source = try Y4MSource(path: CodeTrackFixtures.path("conveyor.y4m"))
        defer { source.close() }
        for _ in 0..<index { _ = try source.nextFrame() }
        return try #require(try source.nextFrame()).luma
    }
}

/// Issue 50: structured append. The three QR symbols of one message (qrencode -S) are reported once as the
/// whole message with the sequence's size; parts that never complete stay, marked as parts. Fixtures:
/// Tests/Fixtures/make_code_tracks.py (sequence-*.png, sequence.y4m).
@Suite("Structured append")
struct StructuredAppendTests {
    static let message = "TICKET 2026-11-29 SEAT 14C GATE B7 FLIGHT SK1429"

    static func still(_ name: String) throws -> Frame {
        try #require(try ImageSource(path: CodeTrackFixtures.path(name)).nextFrame())
    }

    @Test("three parts in one photo: the whole text once, with its size, by every engine")
    func wholeInOnePhoto() throws {
        for engine in [BarcodeEngine.both, .zbar, .zxing] {
            var c = BarcodeConfiguration()
            c.engine = engine
            let found = try BarcodeDetector(configuration: c).detect(in: try Self.still("sequence-whole.png"))
            let joined = StructuredAppendAssembler.joined(found)
            #expect(joined.count == 1, "\(engine): \(joined.map { $0.stringValue ?? "" })")
            #expect(joined.first?.stringValue == Self.message, "\(engine)")
            #expect(joined.first?.payload == Array(Self.message.utf8))
            #expect(joined.first?.sequence == StructuredAppend(index: nil, size: 3, id: joined.first?.sequence?.id ?? ""))
            // The whole's box holds the three symbols.
            #expect((joined.first?.bounds.width ?? 0) > 0.7, "\(engine): \(joined.first?.bounds as Any)")
        }
    }

    @Test("two parts of three: each stays, marked with its place and the sequence's size")
    func partsThatNeverComplete() throws {
        let found = StructuredAppendAssembler.joined(try BarcodeDetector().detect(in: try Self.still("sequence-parts.png")))
        #expect(found.count == 2)
        #expect(Set(found.compactMap { $0.sequence?.index }) == [0, 2])
        #expect(found.allSatisfy { $0.sequence?.size == 3 })
        #expect(!found.contains { $0.stringValue == Self.message })
    }

    @Test("parts shown one after another on a stream: parts until the last one, then the whole")
    func acrossFrames() throws {
        let source = try Y4MSource(path: CodeTrackFixtures.path("sequence.y4m"))
        defer { source.close() }
        let reader = BarcodeDetector()
        reader.startStream()
        let assembler = StructuredAppendAssembler()
        var seen: [(Int, [MetadataObject])] = []
        while let frame = try source.nextFrame() {
            let objects = try reader.detectStream(in: frame, steps: 4)
            seen.append((frame.index, assembler.update(objects, source: "s", time: frame.time)))
        }
        let wholeFrames = seen.filter { $0.1.contains { $0.stringValue == Self.message } }.map(\.0)
        #expect(!wholeFrames.isEmpty)
        #expect(wholeFrames.allSatisfy { $0 >= 30 }, "the whole before the last part: \(wholeFrames)")
        // Before the last part: parts only, each marked.
        let early = seen.filter { $0.0 < 30 }.flatMap(\.1)
        #expect(!early.isEmpty && early.allSatisfy { $0.sequence?.index != nil && $0.sequence?.size == 3 })
        // Once the whole is known, the last part is never reported alone.
        #expect(seen.filter { $0.0 >= 30 }.flatMap(\.1).allSatisfy { $0.sequence?.index == nil })
    }
}
