internal import CScanOpenCV
internal import Foundation
internal import ScanCore

extension FaceDetector {
    /// Neural faces centred inside `region` (frame pixels) of `luma`, searched on a copy turned by `angle`
    /// degrees and scaled so its longer side is ``FaceConfiguration/neuralInputWidth`` (at most 1:1); with
    /// `still`, larger when the smallest wanted face needs it (``neuralScale(longSide:still:)``).
    func neuralFaces(in luma: LumaPlane, region: PixelRect, angle: Double, still: Bool = false) throws
        -> [FaceCandidate]
    {
        guard let net else { return [] }
        let s = neuralScale(longSide: Double(max(region.width, region.height)), still: still)
        let w = Self.roundUp32(Double(region.width) * s)
        let h = Self.roundUp32(Double(region.height) * s)
        let view = try RotatedView(
            luma, centerX: Double(region.x) + Double(region.width) / 2,
            centerY: Double(region.y) + Double(region.height) / 2, angle: angle, scale: s, width: w, height: h,
            fill: Self.neuralFill)
        return try net.detect(view.pixels, width: w, height: h, threshold: configuration.neuralThreshold).compactMap {
            hit in
            let c = candidate(from: hit, in: view)
            guard c.centerX >= Double(region.x), c.centerY >= Double(region.y),
                c.centerX < Double(region.x + region.width), c.centerY < Double(region.y + region.height)
            else { return nil }
            return c
        }
    }

    /// Input pixels per frame pixel of the network's full-frame search over a region whose longer side is
    /// `longSide` frame pixels. A stream's pass (its cost paid on a frame of a live source) is
    /// ``FaceConfiguration/neuralInputWidth`` on the longer side. A still is searched so that a face of
    /// ``FaceConfiguration/minimumFaceSize`` is ``neuralSmallestFace`` input pixels, with the input's longer side
    /// at most ``neuralStillMaximumSide`` (and never less than the stream's): at 320 px the network found none
    /// of the 29 faces (41–56 px) of the 1280×926 group photograph of `bench/faces/make_hard.py`.
    func neuralScale(longSide: Double, still: Bool) -> Double {
        var side = Double(configuration.neuralInputWidth)
        if still {
            let wanted = longSide * Self.neuralSmallestFace / Double(configuration.minimumFaceSize)
            side = max(side, min(wanted, Double(Self.neuralStillMaximumSide)))
        }
        return min(1.0, side / max(longSide, 1))
    }

    /// Face side, in input pixels, that the network finds reliably: on the group photograph (faces of 41–56 px)
    /// it found 15 of 29 faces at 12–17 px, 28 at 16–22 px and all 29 at 18–25 px.
    static let neuralSmallestFace = 24.0

    /// Longest input side of a still's full-frame search, pixels: on a 12 MP photograph (4032 px) faces from
    /// ~100 px are found. Its cost grows with the area: a 12 MP photograph's face search took 0.75 s and
    /// 268 MB peak (0.19 s and 113 MB at 320 px; at 1280 px 0.86 s and 400 MB).
    static let neuralStillMaximumSide = 960

    /// Re-detects a known face with the network in a window of 2.2 face sizes around `predicted`, turned
    /// upright by its roll and scaled to 96×96, with a lower score threshold (0.6 × ``FaceConfiguration/neuralThreshold``:
    /// a face is expected there). Faces within 0.7 face sizes of the prediction, nearest first.
    func neuralSearch(around predicted: FaceCandidate, in luma: LumaPlane) throws -> [FaceCandidate] {
        guard let net else { return [] }
        let side = Self.neuralWindowSide
        let k = Double(side) / (2.2 * max(predicted.size, 8))
        let view = try RotatedView(
            luma, centerX: predicted.centerX, centerY: predicted.centerY, angle: predicted.roll ?? 0,
            scale: k, width: side, height: side, fill: Self.neuralFill)
        let found = try net.detect(
            view.pixels, width: side, height: side, threshold: 0.6 * configuration.neuralThreshold
        ).map {
            candidate(from: $0, in: view)
        }
        return nearestFirst(
            found.filter {
                hypot($0.centerX - predicted.centerX, $0.centerY - predicted.centerY) < 0.7 * predicted.size
                    && $0.size < 2 * predicted.size && $0.size > 0.5 * predicted.size
            }, to: predicted)
    }

    /// A network hit on `view` as a face in frame pixels: coarse yaw from how far the nose lies from the
    /// box centre (``yaw(noseOffset:)``), roll from the eye line (the view's angle for faces turned 90°, whose
    /// eye landmarks are unreliable).
    func candidate(from hit: scv_face_hit, in view: RotatedView) -> FaceCandidate {
        let bx = Double(hit.x) + Double(hit.width) / 2
        let by = Double(hit.y) + Double(hit.height) / 2
        let p = view.framePoint(x: bx, y: by)
        let sizeView = (Double(hit.width) * Double(hit.height)).squareRoot()
        let m = hit.landmarks
        let lx = Double(m.0)
        let ly = Double(m.1)
        let rx = Double(m.2)
        let ry = Double(m.3)
        let nx = Double(m.4)
        let yaw = Self.yaw(noseOffset: (nx - bx) / max(sizeView, 1))
        var roll = view.angle
        if (yaw == 0 || yaw == 45 || yaw == 315) && rx > lx {
            roll = view.angle + atan2(ry - ly, rx - lx) * 180 / .pi
        }
        return FaceCandidate(
            centerX: p.x, centerY: p.y, size: sizeView / view.scale, roll: roll, yaw: yaw,
            calibration: Self.calibration(for: .centerface))
    }

    /// AVFoundation's coarse yaw from the nose tip's offset from the centre of the network's box, in box
    /// sides (positive: toward the image's right with the face upright): 0 below 0.1, 45/315 below 0.2,
    /// 90/270 beyond. Frontal faces measure at most ±0.07, skimage's cameraman (turned right) 0.26–0.39
    /// (`bench/faces`); a face turned to the image's right (nose right) gets 45/90, as the profile cascade's.
    static func yaw(noseOffset r: Double) -> Double {
        let a = abs(r)
        if a < 0.1 { return 0 }
        if a < 0.2 { return r > 0 ? 45 : 315 }
        return r > 0 ? 90 : 270
    }

    /// Side of the network's view around a known face (``neuralSearch(around:in:)``), pixels.
    static let neuralWindowSide = 96

    /// Readies the network's window search around known faces (a stream's every frame) now, at load, instead of
    /// on the frame after the first one (~25 ms at 640×480: a parse and a first run). No effect with cascades.
    /// - Throws: ``ScanError/detector(_:)`` when OpenCV fails.
    public func prepareWindowSearch() throws {
        guard configuration.windowSearch else { return }
        try net?.prepare(width: Self.neuralWindowSide, height: Self.neuralWindowSide)
    }

    /// Grey level the network's views show outside the frame. Mid-grey against the edge-replicating border:
    /// window-search recall on the `bench/faces` edge clip 0.643 → 1.000 (black: 0.973), held-out `scale_h`
    /// 0.893 → 0.947.
    static let neuralFill: UInt8 = 128

    static func roundUp32(_ v: Double) -> Int { max(32, (Int(v.rounded(.up)) + 31) / 32 * 32) }
}
