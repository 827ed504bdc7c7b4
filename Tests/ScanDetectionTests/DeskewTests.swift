import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// Tilted 1-D codes with short bars (Tests/Fixtures/generated/deskew, made by
/// Tests/Fixtures/make_deskew_fixtures.py) and a held-out synthetic frame whose tilted Interleaved 2 of 5 zbar's
/// plain pass reads as a shorter code.
enum DeskewFixtures {
    struct Case: CustomTestStringConvertible, Sendable {
        var kind: String
        var file: String
        var type: String
        var value: String
        /// The symbol's corners as pasted (frame pixels), for `tilted`.
        var corners: [[Double]]
        /// What zbar's plain pass reads instead, for `fragment`.
        var baseMisread: String?
        var testDescription: String { file }
    }

    static let directory = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/generated/deskew")
    static let cases: [Case] = Fixtures.generatedCases(
        in: directory, script: "Tests/Fixtures/make_deskew_fixtures.py", needs: "zint, python3-numpy, python3-pil, python3-segno"
    ).map { e in
        Case(kind: e["kind"] as! String, file: e["file"] as! String, type: e["type"] as! String, value: e["value"] as! String,
             corners: (e["corners"] as? [[Double]]) ?? [], baseMisread: e["baseMisread"] as? String)
    }
    static var tilted: [Case] { cases.filter { $0.kind == "tilted" } }

    static func frame(_ c: Case) throws -> Frame {
        let source = try ImageSource(path: directory.appendingPathComponent(c.file).path)
        return try #require(try source.nextFrame())
    }
}

private func text(_ o: MetadataObject) -> String { o.payload.map { String(decoding: $0, as: UTF8.self) } ?? "" }

/// Whether frame pixel `p` lies inside the convex quadrilateral `quad` widened by `margin` pixels.
private func inside(_ p: (Double, Double), _ quad: [[Double]], margin: Double) -> Bool {
    let n = quad.count
    let cx = quad.map { $0[0] }.reduce(0, +) / Double(n), cy = quad.map { $0[1] }.reduce(0, +) / Double(n)
    for i in 0..<n {
        let a = quad[i], b = quad[(i + 1) % n]
        let ex = b[0] - a[0], ey = b[1] - a[1], len = (ex * ex + ey * ey).squareRoot()
        // signed distance of p from edge a→b, positive on the centre's side
        func side(_ x: Double, _ y: Double) -> Double { (ex * (y - a[1]) - ey * (x - a[0])) / len }
        let s = side(cx, cy) > 0 ? 1.0 : -1.0
        if s * side(p.0, p.1) < -margin { return false }
    }
    return true
}

@Suite("Deskewed pass (tilted 1-D codes)")
struct DeskewTests {
    static var withoutDeskew: BarcodeConfiguration {
        var c = BarcodeConfiguration()
        c.passes = ReaderPass.standard.filter { $0 != .deskewed }
        return c
    }

    @Test("a tilted code with short bars is read whole by the deskewed pass, corners on the symbol; without the pass nothing reads it",
          arguments: DeskewFixtures.tilted)
    func tilted(_ c: DeskewFixtures.Case) throws {
        let frame = try DeskewFixtures.frame(c)
        let xs = c.corners.map { $0[0] }, ys = c.corners.map { $0[1] }
        // the whole frame, and a rect of interest around the symbol (the map back must add its origin)
        let around = NormalizedRect(x: (xs.min()! - 24) / 640, y: (ys.min()! - 24) / 480,
                                    width: (xs.max()! - xs.min()! + 48) / 640, height: (ys.max()! - ys.min()! + 48) / 480)
        for roi in [NormalizedRect.unit, around] {
            let read = try BarcodeDetector().read(in: frame, rectOfInterest: roi)
            #expect(read.objects.map(text) == [c.value], "\(c.file) roi \(roi): read \(read.objects.map(text))")
            #expect(read.pass == .deskewed)
            let o = try #require(read.objects.first)
            #expect(o.type.rawValue == c.type)
            #expect(o.quality ?? 0 >= BarcodeDetector.transformedQualityMargin)
            for p in o.corners {
                #expect(inside((p.x * 640, p.y * 480), c.corners, margin: 6), "\(c.file): corner \(p.x * 640),\(p.y * 480) off \(c.corners)")
            }
            // The box spans most of the symbol's length (zbar's crossings run from end to end of the bars).
            let length = hypot(c.corners[1][0] - c.corners[0][0], c.corners[1][1] - c.corners[0][1])
            let span = hypot(o.bounds.width * 640, o.bounds.height * 480)
            #expect(span >= 0.5 * length, "\(c.file): box diagonal \(span) px of a \(length) px symbol")
        }
        #expect(!(try BarcodeDetector(configuration: Self.withoutDeskew).detect(in: frame).map(text).contains(c.value)))
    }

    @Test("a large frame is turned at a reduced size, and its corners still land on the symbol")
    func largeFrame() throws {
        let c = try #require(DeskewFixtures.tilted.first { $0.type == "code39" })
        let small = try DeskewFixtures.frame(c)
        let big = try #require(ImageOps.resized(small.luma, width: 640 * 4, height: 480 * 4, interpolation: 1))
        #expect(max(big.width, big.height) > BarcodeDetector.deskewMaximumSide)
        let frame = Frame(luma: big, index: 0, time: 0)
        let read = try BarcodeDetector().read(in: frame)
        #expect(read.objects.map(text) == [c.value], "read \(read.objects.map(text))")
        #expect(read.pass == .deskewed)
        for p in try #require(read.objects.first).corners {
            // normalized coordinates: the same place as on the 640×480 frame
            #expect(inside((p.x * 640, p.y * 480), c.corners, margin: 6), "corner \(p.x * 640),\(p.y * 480) off \(c.corners)")
        }
    }

    @Test("zbar's plain-pass read of part of a tilted Interleaved 2 of 5 is replaced by the deskewed read of the whole code")
    func fragment() throws {
        let c = try #require(DeskewFixtures.cases.first { $0.kind == "fragment" })
        let misread = try #require(c.baseMisread)
        let frame = try DeskewFixtures.frame(c)
        let base = try BarcodeDetector(configuration: Self.withoutDeskew).read(in: frame)
        #expect(base.objects.map(text) == [misread])
        #expect(base.pass == .plain && (base.objects.first?.quality ?? 99) < BarcodeDetector.deskewCheckBelowQuality)
        let detector = BarcodeDetector()
        let read = try detector.read(in: frame)
        #expect(read.objects.map(text) == [c.value])
        #expect(read.pass == .plain)
        #expect(detector.confirmations["deskewed replaced"] == 1, "\(detector.confirmations)")
    }

    @Test("on a stream the fragment never shows and the whole code is read; a tilted code is read within one rotation of the steps")
    func stream() throws {
        let c = try #require(DeskewFixtures.cases.first { $0.kind == "fragment" })
        let frame = try DeskewFixtures.frame(c)
        let detector = BarcodeDetector()
        var reads: [[String]] = []
        let steps = detector.stream.streamSteps(width: 640, height: 480).count
        for _ in 0..<steps { reads.append(try detector.detectStream(in: frame, steps: 2).map(text)) }
        #expect(reads.allSatisfy { $0.isEmpty || $0 == [c.value] }, "\(reads)")
        #expect(reads.contains([c.value]), "\(reads)")

        let t = try #require(DeskewFixtures.tilted.first)
        let tiltedFrame = try DeskewFixtures.frame(t)
        let d = BarcodeDetector()
        let rotation = d.stream.streamSteps(width: 640, height: 480).count
        var seen: Set<String> = []
        var first: Int?
        for i in 0..<rotation {
            let found = try d.detectStream(in: tiltedFrame, steps: 1).map(text)
            seen.formUnion(found)
            if first == nil, found.contains(t.value) { first = i }
        }
        #expect(seen == [t.value], "read \(seen)")
        #expect(first != nil)
    }

    /// On large stream frames (720p and up) zbar's deskewed steps scan every `largeFrameStepSpacing`-th of the
    /// plain pass's lines (every 8th line of a 1280×960 frame). Each tilted fixture scaled to 1280×960 is still
    /// read on a stream whose only steps are zbar's deskewed ones, as with the plain pass's spacing, and the codes
    /// the plain pass misses are read by those steps.
    @Test("on 1280×960 stream frames zbar's deskewed steps, on every 8th line, read every tilted code")
    func largeStreamFrames() throws {
        let sparse = BarcodeConfiguration(engine: .zbar, passes: [.plain, .deskewed])
        var dense = sparse
        dense.largeFrameStepSpacing = 1
        #expect(sparse.largeFrameStepSpacing == 2)
        var byDeskewed = 0
        for t in DeskewFixtures.tilted {
            let small = try DeskewFixtures.frame(t)
            let big = try #require(ImageOps.resized(small.luma, width: 1280, height: 960, interpolation: 1))
            let frame = Frame(luma: big, index: 0, time: 0)
            for config in [sparse, dense] {
                let d = BarcodeDetector(configuration: config)
                #expect(d.stream.streamSteps(width: 1280, height: 720).allSatisfy { $0.pass == .deskewed && $0.engine == .zbar })
                let rotation = d.stream.streamSteps(width: 1280, height: 720).count
                var seen: Set<String> = []
                var passes: Set<ReaderPass> = []
                for _ in 0..<(2 * rotation) {
                    let read = try d.readStream(in: frame, steps: 1)
                    seen.formUnion(read.objects.map(text))
                    if let pass = read.pass { passes.insert(pass) }
                }
                #expect(seen == [t.value], "\(t.file), spacing \(config.largeFrameStepSpacing): read \(seen)")
                if config.largeFrameStepSpacing == 2 && !passes.contains(.plain) {
                    #expect(passes == [.deskewed])
                    byDeskewed += 1
                }
            }
        }
        #expect(byDeskewed >= 1, "no tilted code needed the deskewed steps at 1280×960")
    }

    @Test("a turned pass image maps its pixels back to the frame: round trip, and the pixel it shows")
    func turnedMap() throws {
        var bytes = [UInt8](repeating: 0, count: 200 * 100)
        for y in 0..<100 { for x in 0..<200 { bytes[y * 200 + x] = UInt8(20 + x / 2 + y) } } // smooth: bilinear stays close
        let plane = LumaPlane(width: 200, height: 100, bytes: bytes)
        let base = PassImage(plane: plane, scaleX: 1, scaleY: 1, originX: 40, originY: 30)
        for degrees in [-63.0, -20, 35, 118] {
            let turned = try #require(base.turned(by: degrees, border: 0))
            for (x, y) in [(10.0, 10.0), (100, 50), (150, 80)] {
                let q = turned.fromFrame(40 + x, 30 + y)
                let back = turned.toFrame(q.0, q.1)
                #expect(abs(back.0 - 40 - x) < 1e-9 && abs(back.1 - 30 - y) < 1e-9)
                // The turned image shows the base pixel there (within a couple of grey levels).
                let tv = Int(turned.plane[Int(q.0.rounded()), Int(q.1.rounded())])
                let near = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)].map { Int(plane[Int(x) + $0.0, Int(y) + $0.1]) }
                #expect(near.contains { abs($0 - tv) <= 2 }, "\(degrees)°: \(tv) vs \(near)")
            }
        }
        let up = base.rescaled(by: 2, 2)
        #expect(up.toFrame(20, 10) == (50, 35))
        let crop = up.cropped(to: PixelRect(x: 10, y: 4, width: 20, height: 20))
        #expect(crop.toFrame(0, 0) == (45, 32))
    }
}
