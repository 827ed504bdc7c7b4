import Foundation
import Testing
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// The area of a quadrilateral (shoelace), in the units of its points.
private func area(_ q: [(Double, Double)]) -> Double {
    var s = 0.0
    for i in q.indices { let a = q[i], b = q[(i + 1) % q.count]; s += a.0 * b.1 - b.0 * a.1 }
    return abs(s) / 2
}

/// Whether `p` lies inside the convex quadrilateral `quad` widened by `margin`.
private func inside(_ p: (Double, Double), _ quad: [[Double]], margin: Double) -> Bool {
    let cx = quad.map { $0[0] }.reduce(0, +) / 4, cy = quad.map { $0[1] }.reduce(0, +) / 4
    for i in 0..<4 {
        let a = quad[i], b = quad[(i + 1) % 4]
        let ex = b[0] - a[0], ey = b[1] - a[1], len = (ex * ex + ey * ey).squareRoot()
        func side(_ x: Double, _ y: Double) -> Double { (ex * (y - a[1]) - ey * (x - a[0])) / len }
        if (side(cx, cy) > 0 ? 1.0 : -1.0) * side(p.0, p.1) < -margin { return false }
    }
    return true
}

/// A 1-D code's reported corners reach the ends of its bars (``LinearExtent``), not only the scan lines that
/// read it.
@Suite struct LinearExtentTests {
    /// The tilted codes of the deskew fixtures (Code 39, Code 128, EAN-13, Interleaved 2 of 5, … pasted at
    /// 8–30°, their quiet-zone boxes known): the reported corners stay within the symbol's box (6 pixels of
    /// margin) and cover at least 40 % of its area; the scan lines' box alone covered under 10 % of it on most.
    @Test(arguments: DeskewFixtures.tilted)
    func cornersReachTheBarsEnds(_ c: DeskewFixtures.Case) throws {
        let frame = try DeskewFixtures.frame(c)
        let detector = BarcodeDetector()
        let lines = try detector.read(in: frame).objects
        let found = try BarcodeDetector().detect(in: frame)
        try #require(found.count == 1 && lines.count == 1, "\(c.file): read \(found.map(\.stringValue))")
        let o = found[0]
        #expect(o.payload == lines[0].payload)
        let W = Double(frame.width), H = Double(frame.height)
        let quad = o.corners.map { ($0.x * W, $0.y * H) }
        for p in quad { #expect(inside(p, c.corners, margin: 6), "\(c.file): corner \(p) outside \(c.corners)") }
        let symbol = area(c.corners.map { ($0[0], $0[1]) })
        let before = area(lines[0].corners.map { ($0.x * W, $0.y * H) })
        #expect(area(quad) >= 0.4 * symbol, "\(c.file): \(Int(area(quad))) px² of a \(Int(symbol)) px² symbol (scan lines: \(Int(before)))")
        #expect(area(quad) >= before)
        // bounds is the box of the corners.
        #expect(abs(o.bounds.x - o.corners.map(\.x).min()!) < 1e-9 && abs(o.bounds.y - o.corners.map(\.y).min()!) < 1e-9)
    }

    /// 1-D codes in simulated phone photos (make_reader_fixtures.py, seeds 7001, 7002, 7008), read by scan lines
    /// whose box covers under 15 % of the symbol's quiet-zone box: the reported corners cover over 30 % of it
    /// and stay within it (a margin of 1 % of the frame's width).
    @Test func photosOfLinearCodes() throws {
        let all = try #require(ReaderFixtures.meta()["photo_linear"] as? [[String: Any]])
        #expect(all.count == 3)
        for fixture in all {
            let file = try #require(fixture["file"] as? String)
            let box = try #require(fixture["corners"] as? [[Double]])
            let frame = try ReaderFixtures.frame(file)
            let W = Double(frame.width), H = Double(frame.height)
            let lines = try BarcodeDetector().read(in: frame).objects
            let found = try BarcodeDetector().detect(in: frame)
            try #require(found.count == 1 && lines.count == 1, "\(file): read \(found.map(\.stringValue))")
            #expect(found[0].stringValue == fixture["value"] as? String)
            let symbol = area(box.map { ($0[0], $0[1]) })
            let before = area(lines[0].corners.map { ($0.x * W, $0.y * H) }) / symbol
            let after = area(found[0].corners.map { ($0.x * W, $0.y * H) }) / symbol
            #expect(before < 0.15 && after > 0.3, "\(file): \(before) → \(after) of the symbol's box")
            for p in found[0].corners {
                #expect(inside((p.x * W, p.y * H), box, margin: 0.01 * W), "\(file): corner \(p.x * W),\(p.y * H) outside \(box)")
            }
        }
    }

    /// Off, the scan lines' box is reported as before.
    @Test func offKeepsTheScanLinesBox() throws {
        let c = try #require(DeskewFixtures.tilted.first)
        let frame = try DeskewFixtures.frame(c)
        var configuration = BarcodeConfiguration()
        configuration.extendLinearBounds = false
        let off = try BarcodeDetector(configuration: configuration).detect(in: frame)
        let lines = try BarcodeDetector().read(in: frame).objects
        #expect(off.map(\.corners) == lines.map(\.corners))
    }

    /// Streams keep the scan lines' box (following the bars on every frame costs more than a frame's budget).
    @Test func streamsKeepTheScanLinesBox() throws {
        let all = try #require(ReaderFixtures.meta()["photo_linear"] as? [[String: Any]])
        let frame = try ReaderFixtures.frame(try #require(all.first?["file"] as? String))
        let detected = try BarcodeDetector().detectStream(in: frame, steps: 8)
        let read = try BarcodeDetector().readStream(in: frame, steps: 8).objects
        #expect(!detected.isEmpty && detected.map(\.corners) == read.map(\.corners))
    }

    /// A read shorter than 16 pixels along its reading direction, and a blank frame, are left as they are.
    @Test func shortOrFlatReadsAreLeftAlone() {
        let plane = LumaPlane(width: 200, height: 100, bytes: [UInt8](repeating: 128, count: 200 * 100))
        let short = [NormalizedPoint(x: 0.5, y: 0.5), NormalizedPoint(x: 0.55, y: 0.5), NormalizedPoint(x: 0.55, y: 0.51), NormalizedPoint(x: 0.5, y: 0.51)]
        #expect(LinearExtent.extend(short, on: plane) == short)
        let long = [NormalizedPoint(x: 0.1, y: 0.5), NormalizedPoint(x: 0.9, y: 0.5), NormalizedPoint(x: 0.9, y: 0.51), NormalizedPoint(x: 0.1, y: 0.51)]
        #expect(LinearExtent.extend(long, on: plane) == long)
    }
}
