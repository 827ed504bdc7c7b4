internal import Foundation
internal import ScanCore

/// The images the passes read (``ReaderPass``): the frame inverted, scaled, thresholded and turned.
extension PassReader {
    /// The images a pass looks at: the pass itself (for `downscaled` on still images, each level of its pyramid)
    /// and, for extra passes, each one's inverted twin after it.
    func passImages(_ pass: ReaderPass, base: PassImage) -> [PassImage] {
        let p = base.plane
        var images: [PassImage] = []
        switch pass {
        case .plain:
            return [base]
        case .inverted:
            return [base.inverted()]
        case .downscaled:
            // Half size; on a still image also the further levels of ``pyramidDivisors(width:height:)``, largest
            // first, each made from the level above it in its chain (¼ from ½, ⅙ from ⅓). On streams: half size
            // only here; a stream step makes the one level it reads (readStreamFrame).
            let divisors = pyramidDivisors(width: p.width, height: p.height)
            var levels: [Int: PassImage] = [:]
            for d in streaming ? Array(divisors.prefix(1)) : divisors {
                let (parent, by) = d == 2 || d == 3 ? (base, d) : (levels[d / 2], 2)
                guard let parent,
                    let level = parent.resized(
                        width: parent.plane.width / by, height: parent.plane.height / by,
                        interpolation: 0)
                else { continue }
                levels[d] = level
                images.append(level)
            }
        case .upscaled:
            guard let u = upscaledImage(base) else { return [] }
            images.append(u)
        case .thresholded, .upscaledThresholded:
            guard let t = thresholdedImage(pass, base: base, inverted: false) else { return [] }
            images.append(t)
        case .deskewed:
            return deskewedImages(base)
        }
        // Each image, then its inverted twin.
        guard configuration.tryInverted else { return images }
        return images.flatMap { [$0, $0.inverted()] }
    }

    /// Image `index` of ``passImages(_:base:)`` for `pass`, made alone: a stream step reads one image of a pass
    /// per frame, so the pass's other image is not made, and a thresholded pass's inverted twin is thresholded
    /// inverted in one go (the same bytes as inverting the plain result). nil when the pass has no such image.
    /// (Not for `deskewed` or the stream pyramid's `downscaled` levels, which a stream step makes itself.)
    func passImage(_ pass: ReaderPass, index: Int, base: PassImage) -> PassImage? {
        let twins = configuration.tryInverted ? 2 : 1
        switch pass {
        case .thresholded, .upscaledThresholded:
            guard index < twins else { return nil }
            return thresholdedImage(pass, base: base, inverted: index == 1)
        case .upscaled:
            guard index < twins, let u = upscaledImage(base) else { return nil }
            return index == 1 ? u.inverted() : u
        default:
            let images = passImages(pass, base: base)
            return index < images.count ? images[index] : nil
        }
    }

    /// The `upscaled` pass's image: `base` at twice its size (bilinear), if its long side is at most
    /// ``BarcodeConfiguration/maximumUpscaleSide`` pixels.
    func upscaledImage(_ base: PassImage) -> PassImage? {
        let p = base.plane
        guard max(p.width, p.height) <= configuration.maximumUpscaleSide else { return nil }
        return base.resized(width: p.width * 2, height: p.height * 2, interpolation: 1)
    }

    /// The binarised image of the `thresholded` or `upscaledThresholded` pass (0 and 255; dark 255 when
    /// `inverted`), with its map to frame pixels.
    func thresholdedImage(_ pass: ReaderPass, base: PassImage, inverted: Bool) -> PassImage? {
        let p = base.plane
        if pass == .upscaledThresholded {
            // Binarising at ×2 keeps the module edges of ≈3 px modules (bilinear gives sub-pixel edges); the
            // block (≈1/20 of the frame's long side) follows a specular band, and the bias (`c`) keeps a
            // screen's faint pixel-grid moiré on the light side instead of turning it into module-sized dots.
            guard var u = upscaledImage(base) else { return nil }
            let block = min(101, max(15, (max(u.plane.width, u.plane.height) / 40) | 1))
            guard
                let t = ImageOps.thresholded(
                    u.plane, block: block, c: BarcodeDetector.upscaledThresholdBias, inverted: inverted)
            else { return nil }
            u.plane = t
            return u
        }
        // On a large still: the half-size image (``BarcodeConfiguration/largeStillSide``).
        var source = base
        if !streaming, max(p.width, p.height) > configuration.largeStillSide,
            let d = base.resized(width: p.width / 2, height: p.height / 2, interpolation: 0)
        {
            source = d
        }
        var block = max(source.plane.width, source.plane.height) / 24
        block = min(101, max(15, block | 1))
        guard let t = ImageOps.thresholded(source.plane, block: block, c: 2, inverted: inverted) else { return nil }
        source.plane = t
        return source
    }

    /// The deskewed pass's images: `base` turned so that each of the strongest bar-like directions in it
    /// (``ImageOps/barOrientations(_:block:minimumCoherence:minimumBlocks:capacity:)``: 8-pixel blocks whose
    /// gradients agree, at least 6 of them within 5°) that is at least ``deskewMinimumTilt`` off the frame's
    /// axes lies along x (upright bars). The corners outside the frame are filled with the frame's mean grey.
    func deskewedImages(_ base: PassImage) -> [PassImage] {
        let plan = deskewPlan(base)
        return plan.degrees.compactMap { plan.base.turned(by: -$0, border: plan.border) }
    }

    /// What the deskewed pass turns: `base` (scaled to at most ``deskewMaximumSide`` pixels on its long side),
    /// the angles (degrees, image axes) by which its images stand the bars upright, at most
    /// ``deskewDirections`` of them, and the grey that fills the turned images' corners.
    /// Finding the directions costs more than a turn (6 and 4 ms at 1280×720 on this machine), so a stream
    /// step turns only the image it reads, and reuses directions found on a recent frame (``deskewMemoryFrames``).
    /// With `degrees`, those directions are used instead of being looked for.
    func deskewPlan(_ base: PassImage, degrees known: [Double]? = nil) -> (
        base: PassImage, degrees: [Double], border: UInt8
    ) {
        var base = base
        // A large photo is turned at most ``deskewMaximumSide`` pixels on its long side (area-averaged first):
        // a 12-megapixel frame turned by 45° would be 25 megapixels per direction.
        let long = max(base.plane.width, base.plane.height)
        if long > BarcodeDetector.deskewMaximumSide {
            let k = Double(BarcodeDetector.deskewMaximumSide) / Double(long)
            let w = max(1, Int(Double(base.plane.width) * k))
            let h = max(1, Int(Double(base.plane.height) * k))
            guard let small = base.resized(width: w, height: h, interpolation: 0) else { return (base, [], 0) }
            base = small
        }
        let p = base.plane
        guard p.width >= 32, p.height >= 32 else { return (base, [], 0) }
        if let known { return (base, known, known.isEmpty ? 0 : ImageOps.meanLevel(p)) }
        let directions = ImageOps.barOrientations(p, block: 8, minimumCoherence: 0.75, minimumBlocks: 6, capacity: 4)
        var degrees: [Double] = []
        for d in directions {
            let off = d.degrees.truncatingRemainder(dividingBy: 90)
            guard min(off, 90 - off) >= BarcodeDetector.deskewMinimumTilt else { continue }
            degrees.append(d.degrees)
            if degrees.count == BarcodeDetector.deskewDirections { break }
        }
        return (base, degrees, degrees.isEmpty ? 0 : ImageOps.meanLevel(p))
    }
}

extension BarcodeDetector {
    /// The deskewed pass turns frames (or rects of interest) of at most this many pixels on the long side; larger
    /// ones are scaled down to it first.
    static let deskewMaximumSide = 1920

    /// How many directions the deskewed pass turns a frame to, at most.
    static let deskewDirections = 2

    /// Bar directions closer than this to the frame's axes (degrees) are left to the other passes: zbar's scan
    /// lines cross a code tilted that little whole unless its bars are very short.
    static let deskewMinimumTilt = 7.0

    /// The `upscaledThresholded` pass's bias: a pixel turns dark only when this far below its local mean.
    static let upscaledThresholdBias = 8.0
}
