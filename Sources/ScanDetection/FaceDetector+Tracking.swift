internal import CScanOpenCV
internal import Foundation
public import ScanCore

extension FaceDetector {
    /// Re-detects a known face in a window around `predicted` (frame pixels; its roll, when known, turns
    /// the window upright). Tries the predicted roll, then ±15°, then the profile cascade and its mirror.
    /// Returns every face found in the window (frame pixels), nearest first.
    public func search(around predicted: FaceCandidate, in luma: LumaPlane) throws -> [FaceCandidate] {
        if net != nil { return try neuralSearch(around: predicted, in: luma) }
        let target = max(Double(frontal.window) * 1.3, 36)
        let k = target / max(predicted.size, 1)
        let side = Int((target * 2.0).rounded())
        let minSize = max(frontal.window, Int(target * 0.72))
        let maxSize = Int(target * 1.45)
        let roll = predicted.roll ?? 0
        var angles = [roll]
        if configuration.rollSearch { angles += [roll - 15, roll + 15] }
        for angle in angles where abs(angle) <= 60 {
            let view = try RotatedView(
                luma, centerX: predicted.centerX, centerY: predicted.centerY,
                angle: angle, scale: k, width: side, height: side)
            let rects = try frontal.detect(
                view.pixels, width: side, height: side, scaleFactor: 1.08,
                minNeighbors: max(2, configuration.minNeighbors - 1), minSize: minSize, maxSize: maxSize)
            if !rects.isEmpty {
                return nearestFirst(
                    rects.map { r in
                        let p = view.framePoint(
                            x: Double(r.x) + Double(r.width) / 2, y: Double(r.y) + Double(r.height) / 2)
                        return FaceCandidate(
                            centerX: p.x, centerY: p.y, size: Double(r.width) / k, roll: angle, yaw: 0,
                            calibration: cascadeCalibration)
                    }, to: predicted)
            }
        }
        if let profile, configuration.estimateYaw {
            let pTarget = max(Double(profile.window) * 1.3, 36)
            let pk = pTarget / max(predicted.size, 1)
            let pSide = Int((pTarget * 2.0).rounded())
            let view = try RotatedView(
                luma, centerX: predicted.centerX, centerY: predicted.centerY,
                angle: roll, scale: pk, width: pSide, height: pSide)
            if let (rect, mirrored) = try profileSide(view, cascade: profile, target: pTarget) {
                var x = Double(rect.x) + Double(rect.width) / 2
                if mirrored == true { x = Double(pSide) - x }
                let p = view.framePoint(x: x, y: Double(rect.y) + Double(rect.height) / 2)
                return [
                    FaceCandidate(
                        centerX: p.x, centerY: p.y, size: Double(max(rect.width, rect.height)) / pk,
                        roll: roll, yaw: mirrored.map(Self.profileYaw(mirrored:)), isProfile: true)
                ]
            }
        }
        return []
    }

    /// Which side the profile cascade sees in `view`: the best hit on the view as it is (`mirrored` false)
    /// or on its mirror image (`mirrored` true; the rectangle is in mirrored coordinates). When both sides
    /// fire, the side that still fires with more min neighbours wins; still tied: the plain hit with
    /// `mirrored` nil (side unknown). nil when the profile cascade finds nothing.
    func profileSide(_ view: RotatedView, cascade: Cascade, target: Double) throws -> (scv_rect, Bool?)? {
        var mirroredView = view
        mirroredView.mirror()
        let minSize = max(cascade.window, Int(target * 0.7))
        let maxSize = Int(target * 1.5)
        var tie: scv_rect?
        for neighbours in [configuration.minNeighbors, 6, 10, 15, 20] {
            let plain = try cascade.detect(
                view.pixels, width: view.width, height: view.height, scaleFactor: 1.08,
                minNeighbors: neighbours, minSize: minSize, maxSize: maxSize)
            let mirrored = try cascade.detect(
                mirroredView.pixels, width: view.width, height: view.height, scaleFactor: 1.08,
                minNeighbors: neighbours, minSize: minSize, maxSize: maxSize)
            switch (plain.first, mirrored.first) {
            case (nil, nil): return nil
            case (let p?, nil): return (p, false)
            case (nil, let m?): return (m, true)
            case (let p?, _?): tie = p
            }
        }
        return tie.map { ($0, nil) }
    }

    /// OpenCV's Haar profile cascade responds to faces turned to the image's left (the nose points left;
    /// checked on skimage's cameraman, who faces right and fires more strongly mirrored), so a hit on the
    /// mirrored picture is a face turned to the image's right.
    static func profileYaw(mirrored: Bool) -> Double { mirrored ? 90 : 270 }

    /// Replaces the coarse roll of a frontal face by the eye-pair angle (within ±25° of it); unchanged when
    /// two eyes are not found or eye roll is off.
    public func refineRoll(_ face: inout FaceCandidate, in luma: LumaPlane) {
        guard let eyes, configuration.eyeRoll, face.yaw == 0 || face.yaw == nil else { return }
        let base = face.roll ?? 0
        // The eye band: from 0.45 of the face above the centre to 0.1 below, along the face's own axis.
        let faceSide = 120.0
        let k = faceSide / max(face.size, 1)
        let a = base * .pi / 180
        let up = 0.175 * face.size
        let qx = face.centerX + sin(a) * up
        let qy = face.centerY - cos(a) * up
        let w = Int(faceSide)
        let h = Int(faceSide * 0.55)
        guard let view = try? RotatedView(luma, centerX: qx, centerY: qy, angle: base, scale: k, width: w, height: h),
            let rects = try? eyes.detect(
                view.pixels, width: w, height: h, scaleFactor: 1.1, minNeighbors: 3,
                minSize: max(eyes.window, Int(faceSide * 0.15)), maxSize: Int(faceSide * 0.42))
        else { return }
        let centres = rects.map {
            (x: Double($0.x) + Double($0.width) / 2, y: Double($0.y) + Double($0.height) / 2, s: Double($0.width))
        }
        var best: (score: Double, angle: Double)?
        for i in centres.indices {
            for j in centres.indices where centres[j].x > centres[i].x {
                let l = centres[i]
                let r = centres[j]
                let dx = r.x - l.x
                let dy = r.y - l.y
                guard dx > faceSide * 0.25, dx < faceSide * 0.7, l.x < faceSide * 0.55, r.x > faceSide * 0.45,
                    max(l.s, r.s) < 1.6 * min(l.s, r.s)
                else { continue }
                let angle = atan2(dy, dx) * 180 / .pi
                guard abs(angle) <= 25 else { continue }
                let score = abs(dx - faceSide * 0.42) / faceSide + abs((l.x + r.x) / 2 - faceSide / 2) / faceSide
                if best == nil || score < best!.score { best = (score, angle) }
            }
        }
        if let best { face.roll = base + best.angle }
    }

    /// For a frontal face, reports 45/315 when the profile cascade (or its mirror) also fires on it.
    public func classifyYaw(_ face: inout FaceCandidate, in luma: LumaPlane) {
        guard let profile, configuration.estimateYaw, face.yaw == 0 else { return }
        let target = max(Double(profile.window) * 1.4, 40)
        let k = target / max(face.size, 1)
        let side = Int((target * 1.5).rounded())
        guard
            let view = try? RotatedView(
                luma, centerX: face.centerX, centerY: face.centerY, angle: face.roll ?? 0,
                scale: k, width: side, height: side),
            let (_, side) = try? profileSide(view, cascade: profile, target: target), let mirrored = side
        else { return }
        face.yaw = mirrored ? 45 : 315
    }

    /// Profile faces on the whole frame (still images): the profile cascade on the frame and its mirror.
    func detectProfiles(in luma: LumaPlane, region: PixelRect) throws -> [FaceCandidate] {
        guard let profile else { return [] }
        let s = min(1.0, Double(profile.window) / Double(configuration.minimumFaceSize))
        let w = max(1, Int((Double(region.width) * s).rounded()))
        let h = max(1, Int((Double(region.height) * s).rounded()))
        let cx = Double(region.x) + Double(region.width) / 2
        let cy = Double(region.y) + Double(region.height) / 2
        let view = try RotatedView(luma, centerX: cx, centerY: cy, angle: 0, scale: s, width: w, height: h)
        var mirroredView = view
        mirroredView.mirror()
        let minSize = max(profile.window, Int(Double(configuration.minimumFaceSize) * s))
        var found: [FaceCandidate] = []
        for (v, mirrored) in [(view, false), (mirroredView, true)] {
            for r in try profile.detect(
                v.pixels, width: w, height: h, scaleFactor: configuration.scaleFactor,
                minNeighbors: configuration.minNeighbors + 2, minSize: minSize, maxSize: 0)
            {
                var x = Double(r.x) + Double(r.width) / 2
                if mirrored { x = Double(w) - x }
                let p = view.framePoint(x: x, y: Double(r.y) + Double(r.height) / 2)
                found.append(
                    FaceCandidate(
                        centerX: p.x, centerY: p.y, size: Double(r.width) / s, roll: nil, yaw: nil, isProfile: true))
            }
        }
        // Decide each face's side on a window around it (both sides often fire on a three-quarter view).
        return try Self.suppressDuplicates(found).compactMap { f in
            let target = max(Double(profile.window) * 1.4, 40)
            let k = target / max(f.size, 1)
            let side = Int((target * 2).rounded())
            let v = try RotatedView(
                luma, centerX: f.centerX, centerY: f.centerY, angle: 0, scale: k, width: side, height: side)
            guard let (_, side) = try profileSide(v, cascade: profile, target: target) else { return nil }
            var out = f
            out.yaw = side.map(Self.profileYaw(mirrored:))
            return out
        }
    }

    func nearestFirst(_ faces: [FaceCandidate], to p: FaceCandidate) -> [FaceCandidate] {
        faces.sorted {
            hypot($0.centerX - p.centerX, $0.centerY - p.centerY)
                < hypot($1.centerX - p.centerX, $1.centerY - p.centerY)
        }
    }
}
