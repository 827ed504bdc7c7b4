import Foundation
import Testing
import ScanCore
import ScanCapture
@testable import ScanDetection

/// What the neural face stage spends on a stream (issue 49: the frame→JSON tail of several cameras): one network
/// pass per frame at most, the source's first frame included; no window search for an upright frontal face the
/// frame's upright pass already found; the window network readied at load without changing what it finds. Real
/// CenterFace (Models/) on the astronaut photograph written by `scripts/make-face-fixtures` (public domain,
/// python3-skimage).
@Suite("Face network work on streams")
struct FaceNetworkWorkTests {
    /// A 640×480 grey frame with the astronaut's face, `faceSize` pixels, centred at (`cx`, `cy`) and turned by
    /// `roll` degrees (nearest-neighbour sampling of the photograph).
    func scene(faceSize: Double, cx: Double, cy: Double, roll: Double = 0) throws -> LumaPlane {
        let (photo, x, y, size) = try FaceSearchJobTests().astronaut()
        let (fx, fy) = (x + size / 2, y + size / 2)
        let k = size / faceSize
        let (c, s) = (cos(roll * .pi / 180), sin(roll * .pi / 180))
        let (width, height) = (640, 480)
        var bytes = [UInt8](repeating: 110, count: width * height)
        let reach = 1.1 * faceSize
        for y in max(0, Int(cy - reach))..<min(height, Int(cy + reach)) {
            for x in max(0, Int(cx - reach))..<min(width, Int(cx + reach)) {
                let dx = Double(x) - cx
                let dy = Double(y) - cy
                let sx = Int(fx + (c * dx + s * dy) * k)
                let sy = Int(fy + (-s * dx + c * dy) * k)
                guard sx >= 0, sy >= 0, sx < photo.width, sy < photo.height else { continue }
                bytes[y * width + x] = photo.bytes[sy * photo.stride + sx]
            }
        }
        return LumaPlane(width: width, height: height, bytes: bytes)
    }

    func detector() throws -> FaceDetector {
        let d = try FaceDetector(configuration: FaceConfiguration(), modelDirectory: FaceSearchJobTests.models)
        try #require(d.isNeural, "the CenterFace model is missing from Models/")
        return d
    }

    /// Runs `frames` frames of `luma` through a new tracker as a stream; the tracker and the frames the face
    /// was reported on.
    func run(_ luma: LumaPlane, frames: Int) throws -> (FaceTracker, reported: Int) {
        let d = try detector()
        let tracker = FaceTracker(configuration: d.configuration)
        var reported = 0
        for i in 0..<frames {
            let r = try tracker.process(
                Frame(luma: luma, index: i, time: Double(i) / 30), source: "s", detector: d, stream: true)
            if !r.objects.isEmpty { reported += 1 }
        }
        return (tracker, reported)
    }

    @Test("an upright face: one network pass per frame at most, first frame included; no window search on the passes' frames")
    func uprightFace() throws {
        let (tracker, reported) = try run(try scene(faceSize: 120, cx: 320, cy: 240), frames: 17)
        // Passes on positions 0 and 4 of each 8-frame cycle: frames 0, 4, 8, 12, 16, one angle each.
        #expect(tracker.work.networkPasses == 5)
        // Frames 4, 8, 12 and 16 run a pass with the face tracked: its window search is left out there.
        #expect(tracker.work.windowSearchesSaved == 4)
        #expect(tracker.work.windowSearches == 16 - 4)
        // Reported on every frame: the pass's hit (upright) or the prediction it confirms (rotated) stands in.
        #expect(reported == 17)
    }

    @Test("a face rolled 25°: its window search is never left out, and it is reported on every frame")
    func rolledFace() throws {
        let (tracker, reported) = try run(try scene(faceSize: 120, cx: 320, cy: 240, roll: 25), frames: 17)
        #expect(tracker.work.windowSearchesSaved == 0)
        #expect(tracker.work.windowSearches == 16)
        #expect(reported == 17)
    }

    @Test("readying the window network at load changes nothing it finds")
    func preparedNetworkFindsTheSame() throws {
        let luma = try scene(faceSize: 90, cx: 250, cy: 200, roll: 10)
        let plain = try detector()
        let prepared = try detector()
        try prepared.prepareWindowSearch()
        let a = try plain.detectFaces(in: luma, angles: [0])
        let b = try prepared.detectFaces(in: luma, angles: [0])
        #expect(a.count == 1)
        #expect(a == b)
        let predicted = try #require(a.first)
        let wa = try plain.search(around: predicted, in: luma)
        let wb = try prepared.search(around: predicted, in: luma)
        #expect(wa.count == 1)
        #expect(wa == wb)
    }
}
