import Testing
import Foundation
import ScanCore

/// A seeded generator (SplitMix64) so property tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Every orientation × mirroring × gravity.
let allCombinations: [(VideoOrientation, Bool, VideoGravity)] =
    VideoOrientation.allCases.flatMap { o in [false, true].flatMap { m in VideoGravity.allCases.map { (o, m, $0) } } }

/// Random geometries for one combination: view sizes 1...4000 points (fractional), frame sizes 1...4000 pixels,
/// including extreme aspect ratios.
func randomGeometries(_ o: VideoOrientation, _ m: Bool, _ g: VideoGravity, count: Int = 40,
                      rng: inout SeededGenerator) -> [PreviewGeometry] {
    (0..<count).map { _ in
        PreviewGeometry(viewSize: ViewSize(width: Double.random(in: 1...4000, using: &rng),
                                           height: Double.random(in: 1...4000, using: &rng)),
                        videoGravity: g, orientation: o, isMirrored: m,
                        frameSize: PixelSize(width: Int.random(in: 1...4000, using: &rng),
                                             height: Int.random(in: 1...4000, using: &rng)))
    }
}

func close(_ a: Double, _ b: Double, _ tolerance: Double) -> Bool { abs(a - b) <= tolerance }

@Suite("PreviewGeometry")
struct PreviewGeometryTests {
    // MARK: Hand-computed vectors

    /// 1920×1080 shown portrait: the rotated picture is 1080×1920.
    /// resizeAspectFill in 390×844: scale max(390/1080, 844/1920) = 0.4395833, picture 474.75×844 at x −42.375.
    /// resizeAspect: scale min(…) = 0.3611111, picture 390×693.333 at y 75.333.
    /// resize: picture = view.
    struct Vector: Sendable, CustomTestStringConvertible {
        var gravity: VideoGravity, orientation: VideoOrientation, mirrored: Bool
        var device: NormalizedPoint, view: ViewPoint
        var testDescription: String { "\(orientation) \(gravity)\(mirrored ? " mirrored" : "") \(device) → \(view)" }
    }

    static let vectors: [Vector] = [
        // The issue's table.
        Vector(gravity: .resizeAspectFill, orientation: .portrait, mirrored: false, device: .init(x: 0, y: 0), view: .init(x: 432.375, y: 0)),
        Vector(gravity: .resizeAspectFill, orientation: .portrait, mirrored: false, device: .init(x: 0.25, y: 0.75), view: .init(x: 76.3125, y: 211)),
        Vector(gravity: .resizeAspectFill, orientation: .portrait, mirrored: true, device: .init(x: 0, y: 0), view: .init(x: -42.375, y: 0)),
        Vector(gravity: .resizeAspect, orientation: .portrait, mirrored: false, device: .init(x: 0, y: 0), view: .init(x: 390, y: 75.0 + 1.0 / 3.0)),
        // More, worked by hand from the same numbers.
        Vector(gravity: .resizeAspectFill, orientation: .portrait, mirrored: false, device: .init(x: 1, y: 1), view: .init(x: -42.375, y: 844)),
        Vector(gravity: .resizeAspectFill, orientation: .portrait, mirrored: false, device: .init(x: 0.5, y: 0.5), view: .init(x: 195, y: 422)),
        Vector(gravity: .resizeAspectFill, orientation: .portrait, mirrored: true, device: .init(x: 0.25, y: 0.75), view: .init(x: 313.6875, y: 211)),
        Vector(gravity: .resizeAspect, orientation: .portrait, mirrored: false, device: .init(x: 1, y: 1), view: .init(x: 0, y: 768.0 + 2.0 / 3.0)),
        Vector(gravity: .resize, orientation: .portrait, mirrored: false, device: .init(x: 0.25, y: 0.75), view: .init(x: 97.5, y: 211)),
        // portraitUpsideDown: (u, v) → (v, 1 − u); (0.25, 0.75) → (0.75, 0.75) → fill (−42.375 + 356.0625, 633).
        Vector(gravity: .resizeAspectFill, orientation: .portraitUpsideDown, mirrored: false, device: .init(x: 0.25, y: 0.75), view: .init(x: 313.6875, y: 633)),
        // landscapeLeft: (1 − u, 1 − v); landscape picture 1920×1080 in 390×844, aspect: scale 390/1920 = 0.203125,
        // picture 390×219.375 at y 312.3125; (0.25, 0.75) → (0.75, 0.25) → (292.5, 367.15625).
        Vector(gravity: .resizeAspect, orientation: .landscapeLeft, mirrored: false, device: .init(x: 0.25, y: 0.75), view: .init(x: 292.5, y: 367.15625)),
        // landscapeRight fill: scale 844/1080 = 0.78148, picture 1500.44×844 at x −555.22; (0.5, 0.5) → centre.
        Vector(gravity: .resizeAspectFill, orientation: .landscapeRight, mirrored: false, device: .init(x: 0.5, y: 0.5), view: .init(x: 195, y: 422)),
        Vector(gravity: .resizeAspectFill, orientation: .landscapeRight, mirrored: false, device: .init(x: 0, y: 0), view: .init(x: 195 - 1920 * 844 / 1080 / 2, y: 0)),
    ]

    @Test("hand-computed vectors, 1920×1080 in 390×844", arguments: vectors)
    func handVectors(_ v: Vector) {
        let g = PreviewGeometry(viewSize: ViewSize(width: 390, height: 844), videoGravity: v.gravity,
                                orientation: v.orientation, isMirrored: v.mirrored,
                                frameSize: PixelSize(width: 1920, height: 1080))
        let p = g.viewPoint(fromDevicePoint: v.device)
        #expect(close(p.x, v.view.x, 1e-9) && close(p.y, v.view.y, 1e-9), "got \(p)")
        let back = g.devicePoint(fromViewPoint: v.view)
        #expect(close(back.x, v.device.x, 1e-12) && close(back.y, v.device.y, 1e-12), "got \(back)")
    }

    @Test("the issue's table, printed to two decimals")
    func issueTableTwoDecimals() {
        func fmt(_ p: ViewPoint) -> String {
            func two(_ d: Double) -> String {
                let c = (d * 100).rounded(.toNearestOrAwayFromZero) / 100
                let s = String(abs(c))
                let parts = s.split(separator: ".")
                let frac = parts.count > 1 ? String(parts[1]) : ""
                return (c < 0 ? "-" : "") + parts[0] + "." + (frac + "00").prefix(2)
            }
            return "(\(two(p.x)), \(two(p.y)))"
        }
        let base = PreviewGeometry(viewSize: ViewSize(width: 390, height: 844), videoGravity: .resizeAspectFill,
                                   orientation: .portrait, frameSize: PixelSize(width: 1920, height: 1080))
        var mirrored = base; mirrored.isMirrored = true
        var aspect = base; aspect.videoGravity = .resizeAspect
        #expect(fmt(base.viewPoint(fromDevicePoint: .init(x: 0, y: 0))) == "(432.38, 0.00)")
        #expect(fmt(base.viewPoint(fromDevicePoint: .init(x: 0.25, y: 0.75))) == "(76.31, 211.00)")
        #expect(fmt(mirrored.viewPoint(fromDevicePoint: .init(x: 0, y: 0))) == "(-42.38, 0.00)")
        #expect(fmt(aspect.viewPoint(fromDevicePoint: .init(x: 0, y: 0))) == "(390.00, 75.33)")
    }

    // MARK: Properties over every orientation × mirroring × gravity

    @Test("device → view → device round trips to 1e-9", arguments: 0..<allCombinations.count)
    func roundTrip(_ index: Int) {
        let (o, m, g) = allCombinations[index]
        var rng = SeededGenerator(seed: 0x5CA7D + UInt64(index))
        for geometry in randomGeometries(o, m, g, rng: &rng) {
            for _ in 0..<25 {
                // Including points outside the picture: they are not clamped, so they round-trip too.
                let d = NormalizedPoint(x: Double.random(in: -0.5...1.5, using: &rng), y: Double.random(in: -0.5...1.5, using: &rng))
                let back = geometry.devicePoint(fromViewPoint: geometry.viewPoint(fromDevicePoint: d))
                #expect(close(back.x, d.x, 1e-9) && close(back.y, d.y, 1e-9), "\(geometry): \(d) → \(back)")

                let rect = NormalizedRect(x: d.x, y: d.y, width: Double.random(in: 0...1, using: &rng),
                                          height: Double.random(in: 0...1, using: &rng))
                let r2 = geometry.deviceRect(fromViewRect: geometry.viewRect(fromDeviceRect: rect))
                #expect(close(r2.x, rect.x, 1e-9) && close(r2.y, rect.y, 1e-9)
                        && close(r2.width, rect.width, 1e-9) && close(r2.height, rect.height, 1e-9), "\(geometry): \(rect) → \(r2)")
            }
        }
    }

    @Test("resizeAspectFill: the whole view maps inside [0,1]² and spans it on one axis",
          arguments: VideoOrientation.allCases, [false, true])
    func fillViewInsideUnit(_ o: VideoOrientation, _ m: Bool) {
        var rng = SeededGenerator(seed: 0xF111 + UInt64(o.rotationDegrees) + (m ? 7 : 0))
        for geometry in randomGeometries(o, m, .resizeAspectFill, count: 200, rng: &rng) {
            let view = ViewRect(x: 0, y: 0, width: geometry.viewSize.width, height: geometry.viewSize.height)
            let r = geometry.deviceRect(fromViewRect: view)
            let eps = 1e-9
            #expect(r.minX >= -eps && r.minY >= -eps && r.maxX <= 1 + eps && r.maxY <= 1 + eps, "\(geometry): \(r)")
            #expect((close(r.minX, 0, eps) && close(r.maxX, 1, eps)) || (close(r.minY, 0, eps) && close(r.maxY, 1, eps)), "\(geometry): \(r)")
            for _ in 0..<10 {
                let p = geometry.devicePoint(fromViewPoint: ViewPoint(x: Double.random(in: 0...view.width, using: &rng),
                                                                      y: Double.random(in: 0...view.height, using: &rng)))
                #expect(p.x >= -eps && p.x <= 1 + eps && p.y >= -eps && p.y <= 1 + eps)
            }
        }
    }

    @Test("resizeAspect: [0,1]² maps inside the view and spans it on one axis",
          arguments: VideoOrientation.allCases, [false, true])
    func aspectUnitInsideView(_ o: VideoOrientation, _ m: Bool) {
        var rng = SeededGenerator(seed: 0xA5EC + UInt64(o.rotationDegrees) + (m ? 7 : 0))
        for geometry in randomGeometries(o, m, .resizeAspect, count: 200, rng: &rng) {
            let r = geometry.viewRect(fromDeviceRect: .unit)
            let w = geometry.viewSize.width, h = geometry.viewSize.height, eps = 1e-9 * max(w, h)
            #expect(r.minX >= -eps && r.minY >= -eps && r.maxX <= w + eps && r.maxY <= h + eps, "\(geometry): \(r)")
            #expect((close(r.minX, 0, eps) && close(r.maxX, w, eps)) || (close(r.minY, 0, eps) && close(r.maxY, h, eps)), "\(geometry): \(r)")
            // The picture keeps its (rotated) aspect ratio.
            let content = geometry.rotatedFrameSize
            #expect(close(r.width / r.height, content.width / content.height, 1e-9 * content.width / content.height))
        }
    }

    @Test("resize: [0,1]² is exactly the view", arguments: VideoOrientation.allCases, [false, true])
    func resizeIsView(_ o: VideoOrientation, _ m: Bool) {
        var rng = SeededGenerator(seed: 0x2E5 + UInt64(o.rotationDegrees) + (m ? 7 : 0))
        for geometry in randomGeometries(o, m, .resize, rng: &rng) {
            let r = geometry.viewRect(fromDeviceRect: .unit)
            let eps = 1e-9 * max(geometry.viewSize.width, geometry.viewSize.height)
            #expect(close(r.x, 0, eps) && close(r.y, 0, eps) && close(r.width, geometry.viewSize.width, eps)
                    && close(r.height, geometry.viewSize.height, eps))
        }
    }

    @Test("corner order is preserved up to rotation (reversed by mirroring)", arguments: 0..<allCombinations.count)
    func cornerOrder(_ index: Int) {
        let (o, m, g) = allCombinations[index]
        var rng = SeededGenerator(seed: 0xC0 + UInt64(index))
        let k = o.rotationDegrees / 90
        for geometry in randomGeometries(o, m, g, rng: &rng) {
            let rect = NormalizedRect(x: Double.random(in: 0...0.5, using: &rng), y: Double.random(in: 0...0.5, using: &rng),
                                      width: Double.random(in: 0.01...0.5, using: &rng), height: Double.random(in: 0.01...0.5, using: &rng))
            let mapped = rect.corners.map(geometry.viewPoint(fromDevicePoint:))
            let viewCorners = geometry.viewRect(fromDeviceRect: rect).corners
            let eps = 1e-9 * max(geometry.viewSize.width, geometry.viewSize.height)
            for i in 0..<4 {
                // Rotating by k quarter turns moves corner i to view corner i + k; mirroring then swaps
                // left and right (TL↔TR, BR↔BL): j → 1 − j (mod 4).
                let j = (i + k) % 4
                let expected = viewCorners[m ? (5 - j) % 4 : j]
                #expect(close(mapped[i].x, expected.x, eps) && close(mapped[i].y, expected.y, eps), "corner \(i)")
            }
            // Winding: clockwise as displayed (positive shoelace area with y down), counter-clockwise mirrored.
            var area = 0.0
            for i in 0..<4 { let a = mapped[i], b = mapped[(i + 1) % 4]; area += a.x * b.y - b.x * a.y }
            #expect(m ? area < 0 : area > 0)
        }
    }

    @Test("points are not clamped")
    func noClamping() {
        let g = PreviewGeometry(viewSize: ViewSize(width: 390, height: 844), videoGravity: .resizeAspect,
                                orientation: .portrait, frameSize: PixelSize(width: 1920, height: 1080))
        // The top letterbox bar (y < 75.33) is outside the picture.
        let bar = g.devicePoint(fromViewPoint: ViewPoint(x: 195, y: 10))
        #expect(bar.x < 0)
        var fill = g; fill.videoGravity = .resizeAspectFill
        // Device (0, 0) is cropped away on the right: x 432.38 > 390.
        #expect(fill.viewPoint(fromDevicePoint: .init(x: 0, y: 0)).x > 390)
        // (−1, 2) rotates to (1 − 2, −1) = (−1, −1): one picture width left of it, one height above.
        let outside = g.viewPoint(fromDevicePoint: .init(x: -1, y: 2))
        #expect(close(outside.x, -390, 1e-9) && close(outside.y, 75.0 + 1.0 / 3.0 - (693.0 + 1.0 / 3.0), 1e-9))
    }

    // MARK: Angles

    @Test("roll: +θ, negated by mirroring, in (−180, 180]")
    func rollTable() {
        func roll(_ o: VideoOrientation, _ m: Bool, _ r: Double) -> Double {
            PreviewGeometry(viewSize: ViewSize(width: 100, height: 100), orientation: o, isMirrored: m,
                            frameSize: PixelSize(width: 640, height: 480)).viewRollAngle(fromDeviceRollAngle: r)
        }
        #expect(roll(.landscapeRight, false, 10) == 10)
        #expect(roll(.portrait, false, 10) == 100)
        #expect(roll(.landscapeLeft, false, 10) == -170)
        #expect(roll(.portraitUpsideDown, false, 10) == -80)
        #expect(roll(.landscapeRight, true, 10) == -10)
        #expect(roll(.portrait, true, 10) == -100)
        #expect(roll(.landscapeLeft, true, 10) == 170)
        #expect(roll(.landscapeLeft, false, 0) == 180)
        #expect(roll(.landscapeLeft, true, 0) == 180) // −180 is brought to 180
        #expect(roll(.portrait, false, -90) == 0)
        #expect(roll(.portrait, false, 300) == 30)
        #expect(roll(.portraitUpsideDown, false, 300) == -150)
    }

    @Test("roll follows the picture: the direction of a tilted segment", arguments: 0..<allCombinations.count)
    func rollMatchesPoints(_ index: Int) {
        let (o, m, _) = allCombinations[index]
        var rng = SeededGenerator(seed: 0x7011 + UInt64(index))
        // Uniform scaling (resizeAspect / resizeAspectFill) keeps angles, so the roll of a face must be the angle
        // of its "up" vector after conversion. In frame pixels (y down) a face rolled clockwise by r has up
        // (sin r, −cos r); its roll is read back as atan2(dx, −dy). (Its eye line would not do: mirroring
        // swaps which eye is on the displayed right.)
        for gravity in [VideoGravity.resizeAspect, .resizeAspectFill] {
            for geometry in randomGeometries(o, m, gravity, count: 20, rng: &rng) {
                let roll = Double.random(in: -179...180, using: &rng)
                let fw = Double(geometry.frameSize.width), fh = Double(geometry.frameSize.height)
                let radians = roll * Double.pi / 180
                let a = NormalizedPoint(x: 0.5, y: 0.5)
                let b = NormalizedPoint(x: 0.5 + 0.1 * sin(radians) * min(fw, fh) / fw,
                                        y: 0.5 - 0.1 * cos(radians) * min(fw, fh) / fh)
                let va = geometry.viewPoint(fromDevicePoint: a), vb = geometry.viewPoint(fromDevicePoint: b)
                let measured = atan2(vb.x - va.x, -(vb.y - va.y)) * 180 / Double.pi
                let expected = geometry.viewRollAngle(fromDeviceRollAngle: roll)
                let diff = PreviewGeometry.normalizedRoll(measured - expected)
                #expect(abs(diff) < 1e-6, "\(geometry): roll \(roll) → \(expected), measured \(measured)")
            }
        }
    }

    @Test("yaw: unchanged by rotation, mirrored 45↔315, 90↔270, in [0, 360)")
    func yawTable() {
        for o in VideoOrientation.allCases {
            let plain = PreviewGeometry(viewSize: ViewSize(width: 100, height: 100), orientation: o,
                                        frameSize: PixelSize(width: 640, height: 480))
            var mirrored = plain; mirrored.isMirrored = true
            for (yaw, mirror) in [(0.0, 0.0), (45, 315), (90, 270), (180, 180), (270, 90), (315, 45)] {
                #expect(plain.viewYawAngle(fromDeviceYawAngle: yaw) == yaw)
                #expect(mirrored.viewYawAngle(fromDeviceYawAngle: yaw) == mirror)
            }
            #expect(plain.viewYawAngle(fromDeviceYawAngle: 360) == 0)
            #expect(plain.viewYawAngle(fromDeviceYawAngle: -45) == 315)
        }
    }

    @Test("normalisation ranges")
    func normalisation() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<1000 {
            let a = Double.random(in: -2000...2000, using: &rng)
            let roll = PreviewGeometry.normalizedRoll(a), yaw = PreviewGeometry.normalizedYaw(a)
            #expect(roll > -180 && roll <= 180)
            #expect(yaw >= 0 && yaw < 360)
            #expect(close(PreviewGeometry.normalizedRoll(roll - a), 0, 1e-9))
            #expect(close(PreviewGeometry.normalizedRoll(yaw - a), 0, 1e-9))
        }
    }

    // MARK: Objects

    @Test("transformed: view geometry filled, device fields kept")
    func transformedObject() throws {
        let g = PreviewGeometry(viewSize: ViewSize(width: 390, height: 844), videoGravity: .resizeAspectFill,
                                orientation: .portrait, isMirrored: true, frameSize: PixelSize(width: 1920, height: 1080))
        let corners = [NormalizedPoint(x: 0.2, y: 0.3), NormalizedPoint(x: 0.4, y: 0.32),
                       NormalizedPoint(x: 0.38, y: 0.6), NormalizedPoint(x: 0.18, y: 0.58)]
        let code = MetadataObject(type: .qr, bounds: NormalizedRect(boundingPoints: corners), corners: corners,
                                  stringValue: "hello", payload: Array("hello".utf8), quality: 1)
        let t = g.transformed(code)
        var withoutView = t; withoutView.view = nil
        #expect(withoutView == code)
        let view = try #require(t.view)
        #expect(view.corners == corners.map(g.viewPoint(fromDevicePoint:)))
        #expect(view.bounds == g.viewRect(fromDeviceRect: code.bounds))
        #expect(view.rollAngle == nil && view.yawAngle == nil)

        let face = MetadataObject(type: .face, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.3),
                                  faceID: 3, rollAngle: 15, yawAngle: 45)
        let f = g.transformed(face)
        #expect(f.rollAngle == 15 && f.yawAngle == 45 && f.faceID == 3)
        #expect(f.view?.corners == [])
        #expect(f.view?.rollAngle == -105) // −(15 + 90)
        #expect(f.view?.yawAngle == 315)
    }

    @Test("configuration and geometry agree")
    func configuration() {
        let c = PreviewConfiguration(viewSize: ViewSize(width: 1080, height: 1920), videoGravity: .resizeAspectFill,
                                     orientation: .portrait, isMirrored: true)
        let g = c.geometry(frameSize: PixelSize(width: 640, height: 480))
        #expect(g.configuration == c)
        #expect(g.frameSize == PixelSize(width: 640, height: 480))
        #expect(g.rotatedFrameSize == ViewSize(width: 480, height: 640))
        // Defaults follow AVCaptureVideoPreviewLayer.
        let d = PreviewConfiguration(viewSize: ViewSize(width: 1, height: 1))
        #expect(d.videoGravity == .resizeAspect && d.orientation == .landscapeRight && !d.isMirrored)
    }
}
