import Foundation
import Testing
import ScanCapture
import ScanCore
@testable import ScanDetection
import ScanTestSupport

/// Fixtures come from `/usr/bin/python3 Tests/Fixtures/make_reader_fixtures.py` (run from the repository root).
enum ReaderFixtures {
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2) // ScanDetectionTests/ReaderTests.swift
        return parts.joined(separator: "/") + "/Fixtures/generated/reader"
    }()

    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "reader fixture \(path) is missing: run `/usr/bin/python3 Tests/Fixtures/make_reader_fixtures.py` from the repository root"
        }
    }

    static func frame(_ name: String) throws -> Frame {
        let path = directory + "/" + name
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        let source = try ImageSource(path: path)
        return try #require(try source.nextFrame())
    }

    static func meta() throws -> [String: Any] {
        let path = directory + "/fixtures.json"
        guard let data = FileManager.default.contents(atPath: path) else { throw Missing(path: path) }
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}

private func detector(_ engine: BarcodeEngine = .both, passes: [ReaderPass] = ReaderPass.standard,
                      configure: (inout BarcodeConfiguration) -> Void = { _ in }) -> BarcodeDetector {
    var c = BarcodeConfiguration(engine: engine, passes: passes)
    configure(&c)
    return BarcodeDetector(configuration: c)
}

@Suite("Multi-pass reader")
struct MultiPassReaderTests {
    @Test("a stream of 2592×1944 frames rotates through the still pyramid's levels; 1280×720 and 640×480 frames through the half size only")
    func streamPyramidSteps() throws {
        let reader = detector()
        #expect(reader.stream.streamDownscaleDivisors(width: 2592, height: 1944) == [2, 3, 4, 6])
        #expect(reader.stream.streamDownscaleDivisors(width: 1920, height: 1080) == [2, 3, 4])
        #expect(reader.stream.streamDownscaleDivisors(width: 4032, height: 3024) == [2, 3, 4, 6, 8])
        #expect(reader.stream.streamDownscaleDivisors(width: 1280, height: 720) == [2])
        #expect(reader.stream.streamDownscaleDivisors(width: 640, height: 480) == [2])
        #expect(detector { $0.pyramidThirds = false }.stream.streamDownscaleDivisors(width: 2592, height: 1944) == [2, 4])
        #expect(detector { $0.streamPyramidSide = .max }.stream.streamDownscaleDivisors(width: 4032, height: 3024) == [2])
        // The still pyramid's rule, which the stream's shares: a level is halved only while it is 64 px each way.
        #expect(reader.still.pyramidDivisors(width: 4032, height: 3024) == [2, 3, 4, 6, 8])
        #expect(reader.stream.streamDownscaleDivisors(width: 2000, height: 100) == [2])
        #expect(reader.still.pyramidDivisors(width: 2000, height: 63).isEmpty && reader.stream.streamDownscaleDivisors(width: 63, height: 2000).isEmpty)
        // 720p and VGA: the step lists of before (scand bench's clips).
        #expect(reader.stream.streamSteps(width: 1280, height: 720) == reader.stream.largeFrameStreamSteps)
        #expect(reader.stream.streamSteps(width: 640, height: 480) == reader.stream.streamSteps)
        // 5 MP: the large-frame steps with zxing-cpp on ⅓, ¼ and ⅙ (each then its inverted twin) after the half size.
        let large = reader.stream.largeFrameStreamSteps, steps = reader.stream.streamSteps(width: 2592, height: 1944)
        let last = try #require(large.lastIndex { $0.pass == .downscaled })
        let added = (2..<8).map { BarcodeDetector.StreamStep(pass: .downscaled, image: $0, engine: .zxing) }
        #expect(steps == Array(large[...last]) + added + Array(large[(last + 1)...]))
        #expect(detector(.zbar).stream.streamSteps(width: 1920, height: 1080).filter { $0.pass == .downscaled }.map(\.image) == [0, 1, 2, 3, 4, 5])
        #expect(detector { $0.tryInverted = false }.stream.streamSteps(width: 1920, height: 1080).filter { $0.pass == .downscaled }.map(\.image)
                == [0, 0, 1, 2])
    }

    @Test("the 2592×1944 Data Matrix photo as a stream: read within one rotation of the steps, with the still's value and corners; never at half size only")
    func streamPyramidReads() throws {
        let fixture = try #require(try ReaderFixtures.meta()["photo_third"] as? [String: Any])
        let frame = try ReaderFixtures.frame(try #require(fixture["file"] as? String))
        let value = try #require(fixture["value"] as? String)
        let still = try #require(try detector().detect(in: frame).first)
        func stream(_ reader: BarcodeDetector) throws -> [Int: [MetadataObject]] {
            var reads: [Int: [MetadataObject]] = [:]
            let rotation = reader.stream.streamSteps(width: frame.size.width, height: frame.size.height).count
            for n in 0..<(rotation + 2) {
                let found = try reader.detectStream(in: frame, steps: 1)
                if !found.isEmpty { reads[n] = found }
            }
            return reads
        }
        let reads = try stream(detector())
        let first = try #require(reads.keys.min(), "no frame read")
        #expect(reads.values.allSatisfy { $0.map(\.stringValue) == [value] })
        #expect(reads[first]?.first?.type == .dataMatrix)
        // Once read, the step that read is tried first: every later frame reads it.
        #expect(reads.count == reads.keys.max()! - first + 1)
        for (a, b) in zip(try #require(reads[first]?.first).corners, still.corners) {
            #expect(abs(a.x - b.x) * Double(frame.size.width) < 12 && abs(a.y - b.y) * Double(frame.size.height) < 12)
        }
        #expect(try stream(detector { $0.streamPyramidSide = .max }).isEmpty)
    }

    @Test("a light-on-dark QR is read by the inverted pass, and not without it")
    func invertedQR() throws {
        let frame = try ReaderFixtures.frame("inverted_qr.png")
        let read = try detector(.zbar).read(in: frame)
        #expect(read.objects.map(\.stringValue) == ["INVERTED-42"])
        #expect(read.pass == .inverted)
        let plainOnly = detector(.zbar) { $0.tryInverted = false; $0.extraPasses = false }
        #expect(try plainOnly.detect(in: frame).isEmpty)
    }

    @Test("dark-mode phone screens with moiré and glare are read", arguments: [0, 1, 2])
    func phoneScreen(index: Int) throws {
        let meta = try ReaderFixtures.meta()
        let phones = try #require(meta["phone"] as? [[String: String]])
        let frame = try ReaderFixtures.frame(try #require(phones[index]["file"]))
        let found = try detector().detect(in: frame)
        #expect(found.compactMap(\.stringValue) == [phones[index]["value"]])
        // Single-pass zbar, the baseline, does not read it.
        #expect(try detector(.zbar, passes: [.plain]) { $0.tryInverted = false }.detect(in: frame).isEmpty)
    }

    @Test("a phone screen under a specular band is read by the upscaled-thresholded pass alone, corners in the frame",
          arguments: [0, 1])
    func bandedPhoneScreen(index: Int) throws {
        let bands = try #require(try ReaderFixtures.meta()["phone_band"] as? [[String: Any]])
        let fixture = bands[index]
        let file = try #require(fixture["file"] as? String), value = try #require(fixture["value"] as? String)
        let module = try #require(fixture["module"] as? Double)
        let truth = try #require(fixture["corners"] as? [[Double]]) // TL TR BR BL of the symbol, frame pixels
        let frame = try ReaderFixtures.frame(file)
        let read = try detector().read(in: frame)
        let found = read.objects
        try #require(found.count == 1, "\(file): read \(found.map(\.stringValue))")
        #expect(found[0].stringValue == value)
        #expect(read.pass == .upscaledThresholded)
        try #require(found[0].corners.count == 4)
        for (c, e) in zip(found[0].corners, truth) {
            #expect(abs(c.x * 640 - e[0]) <= 1.5 * module && abs(c.y * 480 - e[1]) <= 1.5 * module,
                    "\(file): corner \(c.x * 640),\(c.y * 480) vs \(e)")
        }
        // Every other pass, with both engines, reads nothing here.
        let others = ReaderPass.standard.filter { $0 != .upscaledThresholded }
        #expect(try detector(passes: others).detect(in: frame).isEmpty)
    }

    @Test("every pass reports corners in the original frame", arguments: [
        (BarcodeEngine.zbar, ReaderPass.inverted), (.zbar, .upscaled), (.zbar, .downscaled), (.zbar, .thresholded),
        (.zxing, .inverted), (.zxing, .upscaled), (.zxing, .downscaled),
        (.zbar, .upscaledThresholded), (.zxing, .upscaledThresholded),
    ])
    func cornersMapBack(engine: BarcodeEngine, pass: ReaderPass) throws {
        let meta = try #require(try ReaderFixtures.meta()["inverted_qr"] as? [String: Any])
        let x = try #require(meta["x"] as? Double), y = try #require(meta["y"] as? Double)
        let s = try #require(meta["size"] as? Double)
        let frame = try ReaderFixtures.frame("inverted_qr.png")
        let expected = [(x, y), (x + s, y), (x + s, y + s), (x, y + s)] // TL TR BR BL, pixels
        for roi in [NormalizedRect.unit, NormalizedRect(x: 0.3, y: 0.2, width: 0.7, height: 0.8)] {
            let read = try detector(engine, passes: [.plain, pass]).read(in: frame, rectOfInterest: roi)
            let found = read.objects
            try #require(found.count == 1, "\(engine) \(pass) read nothing")
            #expect(read.pass == pass)
            let corners = found[0].corners
            try #require(corners.count == 4)
            for (c, e) in zip(corners, expected) {
                // within 1.5 modules (4 px each) of the true corner, in frame pixels
                #expect(abs(c.x * 640 - e.0) <= 6 && abs(c.y * 480 - e.1) <= 6,
                        "\(engine) \(pass) roi \(roi): corner \(c.x * 640),\(c.y * 480) vs \(e)")
            }
        }
    }

    @Test("a 2-D code in a 2048×1536 phone photo is read below half size (the downscaled pass's pyramid), corners on it",
          arguments: [0, 1])
    func largePhoto(index: Int) throws {
        let photos = try #require(try ReaderFixtures.meta()["photos"] as? [[String: Any]])
        let (frame, value) = try readOnDownscaledPass(photos[index])
        // The levels below half size are what read it: with half size only, the same passes read nothing
        // (without the plain pass's smaller copies, PlainLayerTests).
        #expect(try detector(passes: [.plain, .downscaled]).detect(in: frame).compactMap(\.stringValue) == [value])
        #expect(try detector(passes: [.plain, .downscaled]) {
            $0.pyramidMinimumSide = .max; $0.matrixLadderSteps = 0; $0.zxingDownscaleStillSide = .max
        }.detect(in: frame).isEmpty)
    }

    @Test("a Data Matrix in a 2592×1944 photo is read at a third of the size, and at no halving")
    func pyramidThird() throws {
        let fixture = try #require(try ReaderFixtures.meta()["photo_third"] as? [String: Any])
        let (frame, value) = try readOnDownscaledPass(fixture)
        #expect(fixture["type"] as? String == MetadataObjectType.dataMatrix.rawValue)
        // Every pass without the thirds reads nothing; the pyramid with them reads it on its own.
        #expect(try detector { $0.pyramidThirds = false; $0.matrixLadderSteps = 0 }.detect(in: frame).isEmpty)
        #expect(try detector(passes: [.downscaled]) { $0.matrixLadderSteps = 0 }.detect(in: frame).compactMap(\.stringValue) == [value])
    }

    @Test("an Aztec code in a 1600×1200 photo that no level of the pyramid reads is read on the ladder for 2-D codes")
    func matrixLadderReads() throws {
        let fixture = try #require(try ReaderFixtures.meta()["photo_ladder"] as? [String: Any])
        let (frame, value) = try readOnDownscaledPass(fixture)
        #expect(fixture["type"] as? String == MetadataObjectType.aztec.rawValue)
        // Every pass without the ladder reads nothing; the downscaled pass with it reads the code on its own,
        // and so does a ladder of 2^(-1/4) steps down to 600 px (the level that reads is 673 px long).
        #expect(try detector { $0.matrixLadderSteps = 0 }.detect(in: frame).isEmpty)
        #expect(try detector(passes: [.downscaled]).detect(in: frame).compactMap(\.stringValue) == [value])
        #expect(try detector(passes: [.downscaled]) { $0.matrixLadderMinimumSide = 600 }.detect(in: frame)
            .compactMap(\.stringValue) == [value])
        // Camera-sized images get no ladder.
        #expect(try detector { $0.matrixLadderImageSide = 1601 }.detect(in: frame).isEmpty)
    }

    @Test("a PDF417 that zxing-cpp misreads on one ladder level, and at no size near it, is not reported")
    func matrixLadderPDF417Misread() throws {
        let fixture = try #require(try ReaderFixtures.meta()["photo_ladder_pdf417"] as? [String: Any])
        let file = try #require(fixture["file"] as? String), value = try #require(fixture["value"] as? String)
        let frame = try ReaderFixtures.frame(file)
        let reader = detector()
        // The failure: the level at 2^(-9/4) of the size, read alone, gives other bytes than the symbol's.
        let base = PassImage(plane: frame.luma, scaleX: 1, scaleY: 1, originX: 0, originY: 0)
        let exponents = reader.still.matrixLadderExponents(width: frame.luma.width, height: frame.luma.height)
        let i = try #require(exponents.firstIndex(of: 9))
        let level = try #require(reader.still.matrixLadderImage(exponent: exponents[i], base: base))
        let alone = try reader.still.scanZXing(level, types: [.pdf417], frameSize: frame.size, bothPolarities: true)
        #expect(!alone.isEmpty && alone.allSatisfy { $0.type == .pdf417 && $0.stringValue != value })
        #expect(try reader.still.confirmLadderPDF417(alone, exponent: 9, base: base, frameSize: frame.size).isEmpty)
        // The whole reader reports no wrong value.
        let read = try reader.detect(in: frame)
        #expect(read.allSatisfy { $0.stringValue == value }, "\(read.map(\.stringValue))")
        // Other formats are left alone.
        var aztec = alone[0]; aztec.type = .aztec
        #expect(try reader.still.confirmLadderPDF417([aztec], exponent: 9, base: base, frameSize: frame.size).count == 1)
        // A right PDF417 that only the ladder reads (seed 311) is read again nearby, and reported.
        let right = try #require(try ReaderFixtures.meta()["photo_ladder_pdf417_right"] as? [String: Any])
        let rightFrame = try ReaderFixtures.frame(try #require(right["file"] as? String))
        let rightRead = try reader.read(in: rightFrame)
        #expect(rightRead.objects.compactMap(\.stringValue) == [try #require(right["value"] as? String)])
        #expect(rightRead.pass == .downscaled)
        #expect(try detector { $0.matrixLadderSteps = 0 }.detect(in: rightFrame).isEmpty)
    }

    @Test("the ladder's sizes: 2^(-k/4) of the image below half size without the halvings, down to 160 px, on stills of 1200 px and more")
    func matrixLadderLevels() throws {
        let reader = detector()
        let sizes = reader.still.matrixLadderSizes(width: 2048, height: 1536)
        #expect(reader.still.matrixLadderExponents(width: 2048, height: 1536) == [5, 6, 7, 9, 10, 11, 13, 14])
        #expect(sizes.map(\.width) == [861, 724, 609, 431, 362, 304, 215, 181])
        #expect(sizes.map(\.height) == [646, 543, 457, 323, 272, 228, 161, 136])
        #expect(reader.still.matrixLadderSizes(width: 1200, height: 900).map(\.width) == [505, 424, 357, 252, 212, 178])
        #expect(reader.still.matrixLadderSizes(width: 1199, height: 900).isEmpty)
        #expect(reader.still.matrixLadderSizes(width: 640, height: 480).isEmpty)
        #expect(detector { $0.matrixLadderSteps = 0 }.still.matrixLadderSizes(width: 4032, height: 3024).isEmpty)
        #expect(detector { $0.matrixLadderSteps = 2 }.still.matrixLadderSizes(width: 2048, height: 1536).map(\.width) == [724, 362, 181])
        // Each level pixel-averaged from the image, 2-D formats only, mapped back to the whole frame; the
        // pyramid's own images (which the EAN/UPC conflict check also scans) do not include them.
        let plane = LumaPlane(width: 2048, height: 1536, bytes: [UInt8](repeating: 200, count: 2048 * 1536))
        let base = PassImage(plane: plane, scaleX: 1, scaleY: 1, originX: 0, originY: 0)
        let ladder = reader.still.matrixLadderExponents(width: 2048, height: 1536).compactMap { reader.still.matrixLadderImage(exponent: $0, base: base) }
        try #require(ladder.count == sizes.count)
        #expect(ladder.allSatisfy { $0.matrixOnly && $0.plane.bytes[0] == 200 })
        #expect(ladder.map { PixelSize(width: $0.plane.width, height: $0.plane.height) } == sizes)
        for image in ladder {
            let (x, y) = image.toFrame(Double(image.plane.width), Double(image.plane.height))
            #expect(abs(x - 2048) < 1e-6 && abs(y - 1536) < 1e-6)
        }
        #expect(reader.still.passImages(.downscaled, base: base).allSatisfy { !$0.matrixOnly })
        #expect(reader.still.passImages(.downscaled, base: base).count == 6)
    }

    /// Reads a `make_photos.py` photo fixture (file, type, value, the symbol's quiet-zone box in frame pixels,
    /// width, height) with every pass (the plain pass without its smaller copies: those are PlainLayerTests'),
    /// and expects its one code, read on the `downscaled` pass, with every corner within the box (a 3-pixel
    /// margin). Returns the frame and the code's value.
    private func readOnDownscaledPass(_ fixture: [String: Any]) throws -> (frame: Frame, value: String) {
        let file = try #require(fixture["file"] as? String), value = try #require(fixture["value"] as? String)
        let box = try #require(fixture["corners"] as? [[Double]])
        let w = try #require(fixture["width"] as? Double), h = try #require(fixture["height"] as? Double)
        let frame = try ReaderFixtures.frame(file)
        let read = try detector { $0.zxingDownscaleStillSide = .max }.read(in: frame)
        try #require(read.objects.count == 1, "\(file): read \(read.objects.map(\.stringValue))")
        let found = read.objects[0]
        #expect(found.stringValue == value)
        #expect(found.type.rawValue == fixture["type"] as? String)
        #expect(read.pass == .downscaled)
        let xs = box.map { $0[0] }, ys = box.map { $0[1] }
        try #require(found.corners.count == 4)
        for c in found.corners {
            #expect(c.x * w >= xs.min()! - 3 && c.x * w <= xs.max()! + 3 && c.y * h >= ys.min()! - 3 && c.y * h <= ys.max()! + 3,
                    "\(file): corner \(c.x * w),\(c.y * h) outside \(box)")
        }
        return (frame, value)
    }

    @Test("the downscaled pass: ½, ⅓, ¼, ⅙, ⅛ of a 4032×3024 still (each with its inverted twin), ½ only on a stream or small frame")
    func pyramidLevels() throws {
        let plane = LumaPlane(width: 4032, height: 3024, bytes: [UInt8](repeating: 200, count: 4032 * 3024))
        let base = PassImage(plane: plane, scaleX: 1, scaleY: 1, originX: 0, originY: 0)
        let reader = detector()
        let still = reader.still.passImages(.downscaled, base: base)
        #expect(still.map(\.plane.width) == [2016, 2016, 1344, 1344, 1008, 1008, 672, 672, 504, 504])
        #expect(still.map(\.plane.height) == [1512, 1512, 1008, 1008, 756, 756, 504, 504, 378, 378])
        #expect(still.map { $0.plane.bytes[0] } == [200, 55, 200, 55, 200, 55, 200, 55, 200, 55])
        #expect(still.map(\.framePixelsPerPixel) == [2, 2, 3, 3, 4, 4, 6, 6, 8, 8])
        // Without the thirds: the halvings only.
        #expect(detector { $0.pyramidThirds = false }.still.passImages(.downscaled, base: base).map(\.plane.width)
                == [2016, 2016, 1008, 1008, 504, 504])
        // A 1600-pixel still: ½, ⅓ (533 px) and ¼ (400 px); ⅙ (266 px) is under the 400-pixel minimum.
        let mid = PassImage(plane: LumaPlane(width: 1200, height: 1600, bytes: [UInt8](repeating: 9, count: 1200 * 1600)),
                            scaleX: 1, scaleY: 1, originX: 0, originY: 0)
        #expect(reader.still.passImages(.downscaled, base: mid).map(\.plane.height) == [800, 800, 533, 533, 400, 400])
        for image in still {
            let (x, y) = image.toFrame(Double(image.plane.width), Double(image.plane.height))
            #expect(abs(x - 4032) < 1e-6 && abs(y - 3024) < 1e-6)
        }
        #expect(reader.stream.passImages(.downscaled, base: base).map(\.plane.width) == [2016, 2016])
        let small = PassImage(plane: LumaPlane(width: 640, height: 480, bytes: [UInt8](repeating: 9, count: 640 * 480)),
                              scaleX: 1, scaleY: 1, originX: 0, originY: 0)
        #expect(reader.still.passImages(.downscaled, base: small).map(\.plane.width) == [320, 320])
    }

    @Test("a still over 2048 px binarises its half-size image; a 2048 px still, a stream frame and largeStillSide = .max the full one")
    func largeStillThresholded() throws {
        func base(_ w: Int, _ h: Int) -> PassImage {
            // a left half of 40 and a right half of 220, so the binarised image is not flat
            var bytes = [UInt8](repeating: 40, count: w * h)
            for y in 0..<h { for x in (w / 2)..<w { bytes[y * w + x] = 220 } }
            return PassImage(plane: LumaPlane(width: w, height: h, bytes: bytes), scaleX: 1, scaleY: 1, originX: 0, originY: 0)
        }
        let reader = detector()
        let large = reader.still.passImages(.thresholded, base: base(4032, 3024))
        #expect(large.map(\.plane.width) == [2016, 2016] && large.map(\.plane.height) == [1512, 1512])
        for image in large {
            // the half-size image's far corner and middle map onto the frame's
            let (x, y) = image.toFrame(2016, 1512)
            #expect(abs(x - 4032) < 1e-6 && abs(y - 3024) < 1e-6)
            #expect(image.framePixelsPerPixel == 2)
        }
        #expect(reader.still.passImages(.thresholded, base: base(2048, 1536)).map(\.plane.width) == [2048, 2048])
        // the inverted pass keeps the full size on a large still
        #expect(reader.still.passImages(.inverted, base: base(4032, 3024)).map(\.plane.width) == [4032])
        #expect(reader.stream.passImages(.thresholded, base: base(4032, 3024)).map(\.plane.width) == [4032, 4032])
        let full = detector { $0.largeStillSide = .max }
        #expect(full.still.passImages(.thresholded, base: base(4032, 3024)).map(\.plane.width) == [4032, 4032])
    }

    /// A stream step makes only the image it reads (`passImage`); a thresholded pass's inverted twin is then
    /// thresholded inverted in one OpenCV call instead of thresholded and inverted. Each must be the very image
    /// `passImages` gives at that index: the same bytes, size and map to the frame, on a textured frame
    /// (seeded noise over a gradient, odd size) and with `tryInverted` off.
    @Test("passImage(pass, index:) is passImages(pass)[index] byte for byte, for every pass but deskewed, inverted twins included")
    func singlePassImageMatchesPassImages() throws {
        var state: UInt64 = 42
        let w = 333, h = 251
        let bytes = (0..<(w * h)).map { i -> UInt8 in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: (i % w) / 2 + Int(state >> 59) * 8)
        }
        let base = PassImage(plane: LumaPlane(width: w, height: h, bytes: bytes), scaleX: 1, scaleY: 1, originX: 12, originY: 7)
        for inverted in [true, false] {
            let reader = detector { $0.tryInverted = inverted }
            for pass in ReaderPass.standard where pass != .deskewed {
                let all = reader.stream.passImages(pass, base: base)
                #expect(!all.isEmpty, "\(pass)")
                for index in 0...all.count {
                    let one = reader.stream.passImage(pass, index: index, base: base)
                    guard index < all.count else { #expect(one == nil, "\(pass) \(index)"); continue }
                    let expected = all[index]
                    #expect(one?.plane.bytes == expected.plane.bytes, "\(pass) \(index) tryInverted \(inverted)")
                    #expect(one?.plane.width == expected.plane.width && one?.plane.height == expected.plane.height)
                    #expect(one.map { $0.toFrame(100, 50) == expected.toFrame(100, 50) } == true, "\(pass) \(index)")
                }
            }
        }
    }

    @Test("zbar's scan lines on stills: every line up to 2249 lines, every 2nd to 3749 (12 MP), every 4th at 48 MP; upscaled images and explicit settings as given")
    func stillScanDensity() throws {
        func image(_ w: Int, _ h: Int, scale: Double = 1) -> PassImage {
            PassImage(plane: LumaPlane(width: w, height: h, bytes: [UInt8](repeating: 0, count: w * h)),
                      scaleX: scale, scaleY: scale, originX: 0, originY: 0)
        }
        let reader = detector()
        #expect(reader.still.stillDensity(1, for: image(640, 480)) == 1)
        #expect(reader.still.stillDensity(1, for: image(1355, 849)) == 1)
        #expect(reader.still.stillDensity(1, for: image(2592, 1944)) == 1)
        #expect(reader.still.stillDensity(1, for: image(3000, 2249)) == 1)
        #expect(reader.still.stillDensity(1, for: image(3000, 2250)) == 2)
        #expect(reader.still.stillDensity(1, for: image(4032, 3024)) == 2)
        #expect(reader.still.stillDensity(1, for: image(3024, 4032)) == 2)
        #expect(reader.still.stillDensity(1, for: image(2016, 1512, scale: 0.5)) == 1) // a pyramid level of 12 MP
        #expect(reader.still.stillDensity(1, for: image(8000, 6000)) == 4)
        #expect(reader.still.stillDensity(4, for: image(4032, 3024)) == 4) // never below what is given
        // an upscaled ×2 image of a 1280×960 frame counts 960 lines at the frame's scale: the spacing it is given
        #expect(reader.still.stillDensity(1, for: image(2560, 1920, scale: 2)) == 1)
        #expect(reader.still.stillDensity(2, for: image(2560, 1920, scale: 2)) == 2)
        #expect(reader.still.stillDensity(1, for: image(5000, 5000, scale: 2)) == 2) // 2500 lines at the frame's scale
        let given = detector { $0.stillScanLines = nil }
        #expect(given.still.stillDensity(1, for: image(8000, 6000)) == 1)
    }

    @Test("a Data Matrix beside a QR is read on the plain pass by zxing's quick look")
    func zxingQuickLook() throws {
        let values = try #require(try ReaderFixtures.meta()["mixed"] as? [String])
        let frame = try ReaderFixtures.frame("qr_and_datamatrix.png")
        let read = try detector().read(in: frame)
        let found = read.objects
        #expect(read.engine == .zbar)
        #expect(Set(found.compactMap(\.stringValue)) == Set(values))
        #expect(Set(found.map(\.type)) == [.qr, .dataMatrix])
        #expect(read.pass == .plain)
        let dm = try #require(found.first { $0.type == .dataMatrix })
        // the Data Matrix lies right of x = 300 px and below y = 200 px (plus zint's margin)
        #expect(dm.bounds.x >= 300.0 / 640 && dm.bounds.y >= 200.0 / 480)
    }

    @Test("clean frames stop at the plain pass")
    func plainFirst() throws {
        let read = try detector().read(in: try ReaderFixtures.frame("clean_qr.png"))
        #expect(read.objects.map(\.stringValue) == ["SCAND-CLEAN-1"])
        #expect(read.pass == .plain)
        #expect(read.engine == .zbar)
    }
}

@Suite("Payload bytes and text")
struct PayloadTests {
    @Test("UTF-8 QR text is never mangled and keeps its exact bytes", arguments: [BarcodeEngine.zbar, .zxing])
    func utf8(engine: BarcodeEngine) throws {
        let text = try #require(try ReaderFixtures.meta()["utf8"] as? String)
        for file in ["utf8_qr.png", "eci_qr.png"] {
            let found = try detector(engine).detect(in: try ReaderFixtures.frame(file))
            try #require(found.count == 1, "\(engine) read nothing in \(file)")
            #expect(found[0].stringValue == text, "\(engine) \(file)")
            #expect(found[0].payload == Array(text.utf8), "\(engine) \(file)")
        }
    }

    @Test("a binary QR keeps its exact bytes and has no text", arguments: [BarcodeEngine.zbar, .zxing])
    func binary(engine: BarcodeEngine) throws {
        let hex = try #require(try ReaderFixtures.meta()["binary_hex"] as? String)
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(try #require(UInt8(hex[i..<j], radix: 16)))
            i = j
        }
        let found = try detector(engine).detect(in: try ReaderFixtures.frame("binary_qr.png"))
        try #require(found.count == 1)
        #expect(found[0].payload == bytes)
        #expect(found[0].stringValue == nil)
    }
}

@Suite("Engines")
struct EngineTests {
    @Test("Data Matrix, Aztec and PDF417 are read with zxing, not with zbar", arguments: [
        ("datamatrix.png", MetadataObjectType.dataMatrix, "datamatrix"), ("aztec.png", .aztec, "aztec"),
        ("pdf417.png", .pdf417, "pdf417"),
    ])
    func zxingFormats(file: String, type: MetadataObjectType, key: String) throws {
        let value = try #require(try ReaderFixtures.meta()[key] as? String)
        let frame = try ReaderFixtures.frame(file)
        for engine in [BarcodeEngine.both, .zxing] {
            let read = try detector(engine).read(in: frame)
            #expect(read.objects.map(\.type) == [type], "\(engine)")
            #expect(read.objects.map(\.stringValue) == [value], "\(engine)")
            #expect(read.engine == .zxing)
        }
        let zbar = detector(.zbar)
        #expect(!zbar.enabledTypes.contains(type))
        #expect(try zbar.detect(in: frame).isEmpty)
        #expect(BarcodeDetector.availableTypes(engine: .both).contains(type))
        #expect(!BarcodeDetector.availableTypes(engine: .zbar).contains(type))
    }

    @Test("both engines report Codabar alike; DataBar is zbar's", arguments: [BarcodeEngine.zbar, .zxing, .both])
    func sameValues(engine: BarcodeEngine) throws {
        #expect(try detector(engine).detect(in: try ReaderFixtures.frame("codabar_short.png")).map(\.stringValue) == ["A1234B"])
        let databar = try #require(try ReaderFixtures.meta()["databar"] as? String)
        let found = try detector(engine).detect(in: try ReaderFixtures.frame("databar.png")).map(\.stringValue)
        // Debian's zxing 1.4 DataBar reader can abort the process, so zxing is never asked for it.
        #expect(found == (engine == .zxing ? [] : [databar]))
        #expect(BarcodeDetector.availableTypes(engine: engine).contains(.gs1DataBar) == (engine != .zxing))
    }

    @Test("--engine picks the engine that reads")
    func selection() throws {
        let frame = try ReaderFixtures.frame("clean_qr.png")
        for engine in [BarcodeEngine.zbar, .zxing, .both] {
            let read = try detector(engine).read(in: frame)
            #expect(read.objects.map(\.stringValue) == ["SCAND-CLEAN-1"])
            #expect(read.engine == (engine == .zxing ? .zxing : .zbar))
        }
    }
}

@Suite("Misread filters")
struct MisreadFilterTests {
    @Test("Codabar minimum length", arguments: [BarcodeEngine.zbar, .zxing])
    func codabar(engine: BarcodeEngine) throws {
        let frame = try ReaderFixtures.frame("codabar_short.png")
        #expect(try detector(engine) { $0.minimumCodabarLength = 6 }.detect(in: frame).map(\.stringValue) == ["A1234B"])
        #expect(try detector(engine) { $0.minimumCodabarLength = 8 }.detect(in: frame).isEmpty)
    }

    @Test("Interleaved 2 of 5 check digit, when required", arguments: [BarcodeEngine.zbar, .zxing])
    func i25Checksum(engine: BarcodeEngine) throws {
        let good = try ReaderFixtures.frame("i25_good_check.png"), bad = try ReaderFixtures.frame("i25_bad_check.png")
        #expect(try detector(engine).detect(in: bad).map(\.stringValue) == ["12345678"])
        let strict = detector(engine) { $0.requireI25Checksum = true }
        #expect(try strict.detect(in: good).map(\.stringValue) == ["12345670"])
        #expect(try strict.detect(in: bad).isEmpty)
        #expect(try detector(engine) { $0.minimumI25Length = 10 }.detect(in: good).isEmpty)
    }

    @Test("1-D codes are reported only once seen in two frames within the window; QR at once")
    func confirmation() {
        func code(_ type: MetadataObjectType, _ value: String) -> MetadataObject {
            MetadataObject(type: type, bounds: .unit, stringValue: value, payload: Array(value.utf8))
        }
        let ean = code(.ean13, "4006381333931"), qr = code(.qr, "hello"), other = code(.ean13, "4006381333948")
        let filter = LinearCodeConfirmation(window: 3)
        #expect(filter.filter([ean, qr], frame: 0).map(\.stringValue) == ["hello"])
        #expect(filter.filter([ean, other], frame: 1).map(\.stringValue) == ["4006381333931"])
        #expect(filter.filter([ean], frame: 2).map(\.stringValue) == ["4006381333931"])
        // `other` was seen at frame 1; frame 5 is outside the window: not confirmed.
        #expect(filter.filter([other], frame: 5).isEmpty)
        #expect(filter.filter([other], frame: 6).map(\.stringValue) == ["4006381333948"])
        filter.reset()
        #expect(filter.filter([ean], frame: 7).isEmpty)
    }
}

/// On streams the upscaled passes are skipped on frames whose long side exceeds
/// `BarcodeConfiguration.streamMaximumUpscaleSide` (960 by default), which bounds a code-free 720p frame's cost.
@Suite struct StreamUpscaleLimitTests {
    @Test("stream steps: upscaled passes up to 960 px on the long side, none above; the limit can be lifted")
    func upscaleLimit() {
        let d = BarcodeDetector()
        let upscaled: Set<ReaderPass> = [.upscaled, .upscaledThresholded]
        let vga = d.stream.streamSteps(width: 640, height: 480), hd = d.stream.streamSteps(width: 1280, height: 720)
        #expect(Set(vga.map(\.pass)).isSuperset(of: upscaled))
        #expect(Set(hd.map(\.pass)).isDisjoint(with: upscaled))
        // Large frames split zxing's thresholded step in two (thresholdedZXingStepSplitOnLargeFrames); joined
        // again, the other steps keep their order.
        let joined = hd.filter { $0.formats != .matrix }.map { step in var s = step; s.formats = .all; return s }
        #expect(joined == vga.filter { !upscaled.contains($0.pass) }, "the other steps keep their order")
        var c = BarcodeConfiguration()
        c.streamMaximumUpscaleSide = nil // back to maximumUpscaleSide (1280)
        #expect(BarcodeDetector(configuration: c).stream.streamSteps(width: 1280, height: 720) == vga)
        #expect(BarcodeDetector(configuration: c).stream.streamSteps(width: 1920, height: 1080).allSatisfy { !upscaled.contains($0.pass) })
    }

    /// On large frames zbar's steps on the full-size thresholded and deskewed images scan every
    /// `largeFrameStepSpacing`-th of the plain pass's lines (every 6th at 720p); smaller frames, the plain pass,
    /// the inverted frame, the half-size and the upscaled images keep theirs. The inverted frame keeps them for
    /// dark-mode phone screens: on every 6th line zbar's QR finder misses the dark-mode QR fixture (5 px modules)
    /// on a 1280×720 frame. That QR code and a dark-mode EAN-13 cut to 40 rows are read by zbar's inverted step
    /// from the frame it first runs on (the rotation's second) and, as the step that read, on every frame after.
    @Test("stream steps: on large frames zbar's thresholded and deskewed steps scan every 2nd of the plain pass's lines; dark-mode codes still read by zbar's inverted step")
    func sparserTransformedZBarStepsOnLargeFrames() throws {
        let d = BarcodeDetector()
        #expect(d.stream.isLargeStreamFrame(longSide: 1280) && !d.stream.isLargeStreamFrame(longSide: 960))
        for pass in [ReaderPass.thresholded, .deskewed] {
            #expect(d.stream.zbarStepDensity(pass, density: 3, large: true) == 6)
            #expect(d.stream.zbarStepDensity(pass, density: 2, large: false) == 2)
        }
        for pass in [ReaderPass.plain, .inverted, .downscaled] {
            #expect(d.stream.zbarStepDensity(pass, density: 3, large: true) == 3)
        }
        #expect(d.stream.zbarStepDensity(.upscaled, density: 2, large: false) == 4)
        var one = BarcodeConfiguration(); one.largeFrameStepSpacing = 1
        #expect(BarcodeDetector(configuration: one).stream.zbarStepDensity(.thresholded, density: 3, large: true) == 3)

        for (name, value, rows) in [("qr-inverted.png", "DARK-MODE-LOGIN:7f3a", 0..<Int.max),
                                    ("ean13-inverted.png", "4006381333931", 120..<160)] {
            let code = try #require(try ImageSource(path: Fixtures.path(name)).nextFrame()).luma
            let top = max(0, rows.lowerBound), bottom = min(code.height, rows.upperBound)
            // A dark 1280×720 frame (the fixture's own corner grey) with the code's rows pasted at (200, 150).
            var bytes = [UInt8](repeating: code.bytes[0], count: 1280 * 720)
            for y in top..<bottom {
                for x in 0..<code.width { bytes[(150 + y - top) * 1280 + 200 + x] = code.bytes[y * code.stride + x] }
            }
            let frame = Frame(luma: LumaPlane(width: 1280, height: 720, bytes: bytes), index: 0, time: 0)
            let detector = BarcodeDetector()
            let rotation = detector.stream.streamSteps(width: 1280, height: 720).count
            let second = try #require(detector.stream.streamSteps(width: 1280, height: 720).dropFirst().first)
            #expect(second.pass == .inverted && second.engine == .zbar)
            var byZBarInverted = 0
            for _ in 0..<(rotation + 5) {
                let read: BarcodeRead = try detector.readStream(in: frame, steps: 1)
                let values: [String?] = read.objects.map { $0.stringValue }
                #expect(values.allSatisfy { $0 == value }, "\(name): \(values)")
                let byStep = read.pass == ReaderPass.inverted && read.engine == BarcodeEngine.zbar
                if byStep && !values.isEmpty { byZBarInverted += 1 }
            }
            #expect(byZBarInverted == rotation + 4, "\(name)")
        }
    }

    /// zxing-cpp 3.1's search for every format on a thresholded 1280×720 frame takes 34–40 ms, more than a
    /// 30 fps frame's budget: on large frames its step on each thresholded image is two steps, the 1-D formats
    /// and the others, one after the other. Nothing else changes, and frames up to 960 px keep one step.
    @Test("stream steps: on large frames zxing's thresholded step is split into 1-D and 2-D formats")
    func thresholdedZXingStepSplitOnLargeFrames() throws {
        let d = BarcodeDetector()
        let vga = d.stream.streamSteps(width: 640, height: 480), hd = d.stream.streamSteps(width: 1280, height: 720)
        #expect(vga.allSatisfy { $0.formats == .all })
        let split = hd.filter { $0.formats != .all }
        #expect(split.allSatisfy { $0.pass == .thresholded && $0.engine == .zxing })
        let images = vga.filter { $0.pass == .thresholded && $0.engine == .zxing }.map(\.image)
        #expect(images == [0, 1])
        for image in images {
            let i = try #require(hd.firstIndex { $0.pass == .thresholded && $0.image == image && $0.engine == .zxing })
            #expect(hd[i].formats == .linear && hd[i + 1].formats == .matrix && hd[i + 1].image == image)
        }
        #expect(split.count == 2 * images.count)
        #expect(!hd.contains { $0.pass == .thresholded && $0.engine == .zxing && $0.formats == .all })
        // The two halves look for every format of the pass between them, each once.
        let linear = d.stream.zxingTypes(split[0]), matrix = d.stream.zxingTypes(split[1])
        #expect(linear.isDisjoint(with: matrix))
        #expect(linear.union(matrix) == d.stream.zxingTypes(.thresholded))
        #expect(linear.allSatisfy(\.isLinear) && linear.contains(.ean13) && linear.contains(.code128))
        #expect(matrix.isSuperset(of: [.qr, .dataMatrix, .aztec, .pdf417]))
    }
}
