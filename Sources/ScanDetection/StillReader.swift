internal import Foundation
internal import ScanCore

/// Reads still images: the passes in order (``BarcodeDetector/effectivePasses``), stopping at the first that
/// reads; the downscaled pass ends with the ladder of sizes for 2-D codes. After the plain pass, two readers
/// (this one and ``helper``) read the steps at once on a machine of two cores or more
/// (``BarcodeConfiguration/parallelStillPasses``; ``readInParallel(passes:ladder:base:frameSize:)``), with the
/// same result as reading them in order.
final class StillReader: PassReader {
    init(configuration: BarcodeConfiguration) { super.init(configuration: configuration, streaming: false) }

    /// The second reader of ``readInParallel(passes:ladder:base:frameSize:)`` (its own zbar scanner), made when
    /// first needed; used only inside that call.
    var helper: StillReader {
        if let h = helperIfMade { return h }
        let h = StillReader(configuration: configuration)
        helperIfMade = h
        return h
    }
    /// ``helper`` once made.
    private(set) var helperIfMade: StillReader?

    /// Steps ``helper`` has read so far, and steps both readers have (for tests and diagnostics).
    var stepsReadByHelper = 0
    var stepsReadAtOnce = 0

    /// Reads `frame` within `rectOfInterest`; throws ``ScanError/detector(_:)`` when an engine fails on it.
    func read(in frame: Frame, rectOfInterest: NormalizedRect) throws -> BarcodeRead {
        try failingOnZBarErrors { try readStill(in: frame, rectOfInterest: rectOfInterest) }
    }

    private func readStill(in frame: Frame, rectOfInterest: NormalizedRect) throws -> BarcodeRead {
        guard let base = startFrame(frame, rectOfInterest: rectOfInterest) else { return BarcodeRead() }

        // (zxing-cpp reads the ladder: none when it looks for no 2-D format.)
        let ladder =
            zxingEnabled.isDisjoint(with: BarcodeDetector.matrixTypes)
            ? [] : matrixLadderExponents(width: base.plane.width, height: base.plane.height)
        // The plain pass first, alone: it reads most photos, and nothing else is worth starting before it.
        let plain = try stepReads(
            StillStep(pass: .plain, index: 0, image: base, ladderExponent: nil), base: base, frameSize: frame.size)
        if !plain.found.isEmpty || !plain.extra.isEmpty {
            return BarcodeRead(
                objects: plain.found + plain.extra, pass: .plain, engine: plain.found.isEmpty ? .zxing : plain.engine)
        }
        let rest = Array(effectivePasses.dropFirst())
        if configuration.parallelStillPasses, ProcessInfo.processInfo.activeProcessorCount > 1, !rest.isEmpty,
            max(base.plane.width, base.plane.height) >= configuration.parallelStillMinimumSide
        {
            return try readInParallel(passes: rest, ladder: ladder, base: base, frameSize: frame.size)
        }
        var pending = PendingReads()
        for pass in rest {
            for step in steps(of: pass, ladder: ladder, base: base) {
                guard let image = image(of: step, base: base) else { continue }
                var read = try stepReads(step.with(image), base: base, frameSize: frame.size)
                read.found = try confirm(
                    read.found, pass: image, base: base, engine: read.engine, frameSize: frame.size,
                    source: step.source, pending: &pending)
                if !read.found.isEmpty { return BarcodeRead(objects: read.found, pass: pass, engine: read.engine) }
            }
        }
        return BarcodeRead()
    }

    /// The steps of `pass` on `base`, in order: each of its images (``passImages(_:base:)``), then, for the
    /// downscaled pass, each level of the `ladder` (made when it is read).
    func steps(of pass: ReaderPass, ladder: [Double], base: PassImage) -> [StillStep] {
        let images = passImages(pass, base: base)
        var out = images.enumerated().map {
            StillStep(pass: pass, index: $0.offset, image: $0.element, ladderExponent: nil)
        }
        if pass == .downscaled {
            out += ladder.enumerated().map {
                StillStep(pass: pass, index: images.count + $0.offset, image: nil, ladderExponent: $0.element)
            }
        }
        return out
    }

    /// The image `step` reads: its pass image, or its ladder level made now from `base`; nil when OpenCV fails to
    /// make the level.
    func image(of step: StillStep, base: PassImage) -> PassImage? {
        step.image ?? step.ladderExponent.flatMap { matrixLadderImage(exponent: $0, base: base) }
    }

    /// What one step reads, before the confirmation of transformed reads (which depends on the steps before it,
    /// ``confirm(_:pass:base:engine:frameSize:source:pending:stamp:)``): zbar, then zxing-cpp when zbar reads
    /// nothing (on the plain pass of a large still, then zxing-cpp on its smaller copies,
    /// ``plainLayerReads(base:types:frameSize:density:)``), the filters and the fragments' suppression.
    /// `step.image` must be set. On the plain pass, with both engines, `extra` holds zxing-cpp's quick look for
    /// the formats zbar cannot read.
    func stepReads(_ step: StillStep, base: PassImage, frameSize: PixelSize) throws -> StepReads {
        let pass = step.pass
        let image = step.image!
        // An upscaled copy needs no denser scan lines than the frame itself: keep zbar's cost ≈ 2×, not 4×.
        // (The binarised upscaled-thresholded image is scanned on every line: its moiré-broken
        // finder patterns need them.)
        let density = pass == .upscaled ? 2 * max(1, configuration.scanDensity) : max(1, configuration.scanDensity)
        var found: [MetadataObject]
        var extra: [MetadataObject] = []
        var engine = BarcodeEngine.zbar
        let alongside = pass == .plain && !zxingOnly.isEmpty
        if alongside {
            // Formats zbar cannot read are always looked for on the plain frame: zxing's quick look
            // (no tryHarder, fixed threshold: ≈ half the cost) when zbar reads the frame, its full
            // search for every enabled format when zbar reads nothing.
            found = try zbarReads(
                image, pass: pass, base: base, frameSize: frameSize, density: density, matrixOnly: false)
            if found.isEmpty {
                found = try zxingPassReads(
                    image, pass: pass, base: base, types: zxingEnabled, frameSize: frameSize, density: density)
                engine = .zxing
            } else {
                extra = try scanZXing(image, types: zxingOnly, frameSize: frameSize, quick: true)
            }
        } else if image.matrixOnly {
            found = []  // a ladder level is zxing-cpp's alone
        } else {
            found = try zbarReads(
                image, pass: pass, base: base, frameSize: frameSize, density: density, matrixOnly: pass.matrixOnly)
        }
        if !alongside && found.isEmpty && !zxingEnabled.isEmpty {
            // (On a ladder level: 2-D formats only, both polarities, and a PDF417 read again nearby.)
            let types = image.matrixOnly ? zxingEnabled.intersection(BarcodeDetector.matrixTypes) : zxingTypes(pass)
            found = try zxingPassReads(
                image, pass: pass, base: base, types: types, frameSize: frameSize, density: density,
                bothPolarities: image.matrixOnly)
            if image.matrixOnly, let exponent = step.ladderExponent {
                found = try confirmLadderPDF417(found, exponent: exponent, base: base, frameSize: frameSize)
            }
            engine = .zxing
        }
        if pass == .plain, found.isEmpty, extra.isEmpty {
            // Neither engine read the still at full size: zxing-cpp on its smaller copies, if it is large.
            let copies = try plainLayerReads(base: image, types: zxingEnabled, frameSize: frameSize, density: density)
            if !copies.isEmpty { (found, engine) = (copies, .zxing) }
        }
        found = BarcodeDetector.suppressFragments(
            found.filter(accept), upceInsideEAN13: configuration.checkUPCEQuietZone)
        return StepReads(found: found, extra: extra, engine: engine)
    }

    /// The exponents k of the ladder's levels on a still image (or rect of interest) of `width`×`height` pixels,
    /// largest level first (``BarcodeConfiguration/matrixLadderSteps``, n): the image scaled by 2^(−k/n) below
    /// half size, k = n + 1, n + 2, …, leaving out every k that is a multiple of n (the pyramid's halvings), while
    /// the long side is at least ``BarcodeConfiguration/matrixLadderMinimumSide``. None for an image whose long
    /// side is under ``BarcodeConfiguration/matrixLadderImageSide``.
    func matrixLadderExponents(width: Int, height: Int) -> [Double] {
        let n = configuration.matrixLadderSteps
        let long = max(width, height)
        guard n > 0, long >= configuration.matrixLadderImageSide else { return [] }
        var out: [Double] = []
        for k in (n + 1)... {
            guard
                matrixLadderSize(width: long, height: 1, exponent: Double(k)).width
                    >= max(1, configuration.matrixLadderMinimumSide)
            else { break }
            if k % n != 0 { out.append(Double(k)) }
        }
        return out
    }

    /// `width`×`height` scaled by 2^(−exponent/n) (n: ``BarcodeConfiguration/matrixLadderSteps``), each side
    /// rounded, at least 1.
    func matrixLadderSize(width: Int, height: Int, exponent: Double) -> PixelSize {
        let scale = pow(2, -exponent / Double(max(1, configuration.matrixLadderSteps)))
        return PixelSize(
            width: max(1, Int((Double(width) * scale).rounded())),
            height: max(1, Int((Double(height) * scale).rounded())))
    }

    /// The sizes of the ladder's levels (``matrixLadderExponents(width:height:)``), largest first. A 2048×1536
    /// still: 861×646, 724×543, 609×457, 431×323, 362×272, 304×228, 215×161, 181×136.
    func matrixLadderSizes(width: Int, height: Int) -> [PixelSize] {
        matrixLadderExponents(width: width, height: height).map {
            matrixLadderSize(width: width, height: height, exponent: $0)
        }
    }

    /// `found` (reads of the ladder level 2^(−`exponent`/n) of `base`) without the PDF417 reads
    /// that no nearby size reads again: each is looked for at the sizes ``ladderPDF417Offsets`` steps away
    /// (PDF417 only, zxing-cpp) and kept at the first that reads the same bytes. zxing-cpp's PDF417 decoder tries
    /// combinations of ambiguous codewords, and on a blurred, tiny symbol one combination can pass the error
    /// correction with wrong data: held-out make_photos seed 308's PDF417 ("VRX 3 chSLQb PEeE") read as
    /// "KQ3 chSLQWGWNQCGBJMOSAHK" at 2^(−9/4) of its size, and at no size near it; every right PDF417 read of
    /// the tuning photos read again within half a step. Data Matrix, Aztec and QR reads are kept as read.
    func confirmLadderPDF417(
        _ found: [MetadataObject], exponent: Double, base: PassImage,
        frameSize: PixelSize
    ) throws -> [MetadataObject] {
        guard found.contains(where: { $0.type == .pdf417 }) else { return found }
        var nearby: [[MetadataObject]?] = Array(repeating: nil, count: BarcodeDetector.ladderPDF417Offsets.count)
        return try found.filter { o in
            guard o.type == .pdf417 else { return true }
            for (i, offset) in BarcodeDetector.ladderPDF417Offsets.enumerated() {
                if nearby[i] == nil {
                    guard let level = matrixLadderImage(exponent: exponent + offset, base: base) else {
                        nearby[i] = []
                        continue
                    }
                    nearby[i] = try scanZXing(level, types: [.pdf417], frameSize: frameSize, bothPolarities: true)
                }
                if nearby[i]!.contains(where: { $0.payload == o.payload }) { return true }
            }
            return false
        }
    }

    /// The ladder's level 2^(−`exponent`/n) of `base` (``matrixLadderSize(width:height:exponent:)``),
    /// pixel-averaged and marked ``PassImage/matrixOnly``. It has no inverted twin: zxing-cpp reads it in both
    /// polarities on one binarisation. nil when OpenCV fails.
    func matrixLadderImage(exponent: Double, base: PassImage) -> PassImage? {
        let size = matrixLadderSize(width: base.plane.width, height: base.plane.height, exponent: exponent)
        guard var level = base.resized(width: size.width, height: size.height, interpolation: 0) else { return nil }
        level.matrixOnly = true
        return level
    }
}

extension BarcodeDetector {
    /// Offsets, in ladder steps, of the sizes a PDF417 read on a ladder level is looked for again at
    /// (``confirmLadderPDF417(_:exponent:base:frameSize:)``), nearest first.
    static let ladderPDF417Offsets: [Double] = [-0.125, 0.125, -0.25, 0.25, -0.5, 0.5]
}
