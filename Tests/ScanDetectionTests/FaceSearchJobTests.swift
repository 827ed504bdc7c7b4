import Foundation
import Testing
import ScanCore
import ScanCapture
@testable import ScanDetection

/// The stream search cut into jobs (``FaceDetector/SearchJob``): what the jobs cover, how they are spread
/// over frames, and that the tracker finds faces with them. Real cascades (Models/) and the astronaut
/// photograph written by `scripts/make-face-fixtures` (public domain, python3-skimage).
@Suite("Face search jobs")
struct FaceSearchJobTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let models = root + "/Models"
    static let fixtures = root + "/Tests/Fixtures/generated/faces"

    /// The astronaut photograph and its face box (fixture pixels).
    func astronaut() throws -> (luma: LumaPlane, x: Double, y: Double, size: Double) {
        let path = Self.fixtures + "/astronaut.pgm"
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record("missing fixture \(path): run scripts/make-face-fixtures first")
            throw ScanError.unreadableInput(input: path, reason: "missing fixture")
        }
        let source = try openFileSource(path: path)
        defer { source.close() }
        let frame = try #require(try source.nextFrame())
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/truth.json"))
        let t = (try JSONSerialization.jsonObject(with: data) as! [String: Any])["astronaut"] as! [String: Any]
        let n = { (k: String) in (t[k] as! NSNumber).doubleValue }
        return (frame.luma, n("x"), n("y"), n("size"))
    }

    /// A `width`×`height` grey frame with the astronaut's face scaled to `faceSize` pixels and its top-left
    /// corner at (`faceX`, `faceY`); nearest-neighbour scaling of a 2.2-face-wide crop around the face.
    /// Returns the frame and the face box (normalized device coordinates).
    func scene(width: Int, height: Int, faceSize: Double, faceX: Double, faceY: Double) throws -> (LumaPlane, NormalizedRect) {
        let a = try astronaut()
        let k = a.size / faceSize            // photo pixels per frame pixel
        var bytes = [UInt8](repeating: 110, count: width * height)
        let margin = 0.6 * faceSize
        for y in max(0, Int(faceY - margin))..<min(height, Int(faceY + faceSize + margin)) {
            for x in max(0, Int(faceX - margin))..<min(width, Int(faceX + faceSize + margin)) {
                let sx = Int(a.x + (Double(x) - faceX) * k), sy = Int(a.y + (Double(y) - faceY) * k)
                guard sx >= 0, sy >= 0, sx < a.luma.width, sy < a.luma.height else { continue }
                bytes[y * width + x] = a.luma.bytes[sy * a.luma.stride + sx]
            }
        }
        let box = NormalizedRect(x: faceX / Double(width), y: faceY / Double(height),
                                 width: faceSize / Double(width), height: faceSize / Double(height))
        return (LumaPlane(width: width, height: height, bytes: bytes), box)
    }

    /// The sliced search belongs to the cascades; these figures are LBP's (45 px window).
    func detector(_ configure: (inout FaceConfiguration) -> Void = { _ in }) throws -> FaceDetector {
        var c = FaceConfiguration()
        c.detector = .lbp
        c.cascade = .lbp
        configure(&c)
        return try FaceDetector(configuration: c, modelDirectory: Self.models)
    }

    @Test("on a 1280x720 stream the search looks at a 853x480 copy: LBP's smallest face becomes 67 px")
    func analysisScale() throws {
        let d = try detector()
        let g = try #require(d.jobGeometry(frameSize: PixelSize(width: 1280, height: 720), rectOfInterest: .unit))
        #expect(g.width == 853 && g.height == 480)
        #expect(abs(Double(g.minSize) / g.scale - 67.5) < 1)
        #expect(g.strips == 3)
        // Every pair of neighbouring strips overlaps by more than the largest face the strips look for.
        #expect(3 * g.stripWidth - g.width >= 2 * g.fineMaxSize)
        let off = try detector { $0.analysisShortSide = nil }
        #expect(off.jobGeometry(frameSize: PixelSize(width: 1280, height: 720), rectOfInterest: .unit)!.width == 1280)
        // 640x480 is already at the analysis size.
        #expect(d.jobGeometry(frameSize: PixelSize(width: 640, height: 480), rectOfInterest: .unit)!.width == 640)
    }

    @Test("over one interval the frames run every job of that cycle's search, and the coarse job every other frame")
    func schedule() throws {
        let d = try detector()
        let size = PixelSize(width: 1280, height: 720)
        for interval in [1, 3, 8] {
            for cycle in 0..<4 {
                var seen: [FaceDetector.SearchJob] = []
                for n in cycle * interval..<(cycle + 1) * interval {
                    let jobs = d.streamSearchJobs(frame: n, interval: interval, frameSize: size)
                    let coarse = jobs.filter { $0.part == .coarse }
                    if interval == 1 {
                        // The whole search every frame: the coarse job at each of the frame's angles.
                        #expect(coarse.map(\.angle) == d.searchAngles(cycle: n), "frame \(n): \(jobs)")
                    } else if n % 2 == 0 {
                        #expect(coarse.count == 1 && jobs.first?.part == .coarse, "frame \(n): \(jobs)")
                        #expect(coarse.first?.angle == (n % 4 == 0 ? 0 : (n / 4 % 2 == 0 ? -30 : 30)), "frame \(n)")
                    } else {
                        #expect(coarse.isEmpty, "frame \(n): \(jobs)")
                    }
                    seen += jobs.filter { $0.part != .coarse }
                }
                let expected = d.searchAngles(cycle: cycle).flatMap { a in (0..<3).map { FaceDetector.SearchJob(angle: a, part: .strip($0, of: 3)) } }
                #expect(Set(seen) == Set(expected) && seen.count == expected.count, "interval \(interval) cycle \(cycle)")
                // Spread evenly: a frame runs a second job only when every frame of the cycle runs one.
                let perFrame = (cycle * interval..<(cycle + 1) * interval).map { d.streamSearchJobs(frame: $0, interval: interval, frameSize: size).count }
                let total = perFrame.reduce(0, +)
                #expect(perFrame.max()! == (total + interval - 1) / interval, "interval \(interval) cycle \(cycle): \(perFrame)")
            }
        }
        // Without the roll search everything is upright.
        let upright = try detector { $0.rollSearch = false }
        #expect((0..<16).flatMap { upright.streamSearchJobs(frame: $0, interval: 8, frameSize: size) }.allSatisfy { $0.angle == 0 })
    }

    @Test("a face of any size from 1.1 × the smallest up, anywhere across the frame, is found by some job",
          arguments: [1.1, 1.4, 1.9, 3.2, 5.9])
    func coverage(timesSmallest k: Double) throws {
        let d = try detector()
        // The smallest face the 720p search finds: LBP's 67.5 px raw box (see analysisScale), which is the
        // calibrated face square's side divided by LBP's calibration scale.
        let size = k * 67.5 * FaceDetector.calibration(for: .lbp).scale
        // Upright jobs only (the rotated copies would sometimes rescue a face the upright strips miss), the
        // face moved across the frame in steps of half its size, so it straddles every strip boundary.
        let upright = d.allSearchJobs(frameSize: PixelSize(width: 1280, height: 720)).filter { $0.angle == 0 }
        for x in stride(from: 2.0, through: 1278 - size, by: size / 2) {
            let (luma, box) = try scene(width: 1280, height: 720, faceSize: size, faceX: x, faceY: 0.5 * (720 - size))
            let found = try upright.flatMap { try d.run($0, in: luma) }
            let best = found.map { $0.bounds(in: luma.size).iou(box) }.max() ?? 0
            #expect(best >= 0.4, "face \(size) px at x=\(Int(x)): best IoU \(best) over \(found.count) hits")
        }
    }

    @Test("on a stream a large face that appears is reported within 5 frames, a small one within the interval")
    func prompt() throws {
        for (size, limit) in [(260.0, 5), (75.0, 9)] {
            let d = try detector()
            let tracker = FaceTracker(configuration: d.configuration)
            let (withFace, box) = try scene(width: 1280, height: 720, faceSize: size, faceX: 700, faceY: 200)
            let empty = LumaPlane(width: 1280, height: 720, bytes: [UInt8](repeating: 110, count: 1280 * 720))
            var reported: Int?
            for n in 0..<40 {
                let luma = n < 13 ? empty : withFace
                let r = try tracker.process(Frame(luma: luma, index: n, time: Double(n) / 30), source: "s", detector: d, stream: true)
                if n < 13 { #expect(r.objects.isEmpty) }
                if reported == nil, let f = r.objects.first, f.bounds.iou(box) >= 0.4 { reported = n }
            }
            let at = try #require(reported, "a \(size) px face was never reported")
            #expect(at - 13 <= limit, "a \(size) px face appearing on frame 13 was reported on frame \(at)")
        }
    }
}
