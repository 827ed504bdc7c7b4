internal import Foundation
internal import ScanCore

/// zbar's reads of the pass images, and the checks made on them.
extension PassReader {
    /// zbar's reads of one pass image, after the filters (``accept(_:)``), the check against the deskewed pass
    /// (``checkAgainstDeskewed(_:pass:base:frameSize:density:)``) and the conflict and small-retail checks
    /// (``checkRetailReads(_:image:frameSize:)``), in that order.
    func zbarReads(
        _ image: PassImage, pass: ReaderPass, base: PassImage, frameSize: PixelSize, density: Int,
        matrixOnly: Bool
    ) throws -> [MetadataObject] {
        try checkedZBarReads(
            scanZBar(image, frameSize: frameSize, density: density, matrixOnly: matrixOnly), on: image, pass: pass,
            base: base, frameSize: frameSize, density: density)
    }

    /// ``zbarReads(_:pass:base:frameSize:density:matrixOnly:)`` after its scan: the filters and checks on what zbar
    /// read (`found`) on `image`.
    func checkedZBarReads(
        _ found: [MetadataObject], on image: PassImage, pass: ReaderPass, base: PassImage, frameSize: PixelSize,
        density: Int
    ) throws -> [MetadataObject] {
        var found = found
        if streaming, pass == .plain, density > 1 {
            found = found.map { o in denseReread(o, on: image, density: density, frameSize: frameSize) ?? o }
        }
        found = try confirmingGS1DataBar(found.filter(accept), image: image, byZXing: true)
        return try checkRetailReads(
            checkAgainstDeskewed(
                found, pass: pass, base: base, frameSize: frameSize,
                density: BarcodeDetector.frameDensity(pass, density)),
            image: image, frameSize: frameSize)
    }

    /// On a stream frame's plain pass, whose lines are `density` pixels apart: a 1-D read on fewer lines than
    /// ``BarcodeConfiguration/minimumLinearQuality`` is read again by zbar on every line of the bands of the
    /// image around it (the rows and the columns within ``denseRereadSpan`` × `density` pixels of where it was
    /// read: zbar's box of a 1-line read is the point where that line finished it, at one end of the symbol, and
    /// the line may be a row or a column), and that read (same type and payload, on as many lines as a still
    /// image's read needs) replaces it. A small or blurred 1-D code decodes on a few rows only: a 1920×1080
    /// EAN-13 of 1.5 px modules on a busy backdrop read on 6–13 rows with every line scanned, and on 0–3 lines
    /// 5 px apart, so the quality rule dropped it on half the frames the naive pass read it on. nil when the
    /// dense read does not confirm it (the read is then dropped by the quality rule, as before).
    func denseReread(_ o: MetadataObject, on image: PassImage, density: Int, frameSize: PixelSize) -> MetadataObject? {
        guard o.type.isLinear, let q = o.quality, q > 0, q < configuration.minimumLinearQuality else { return nil }
        var lowered = o
        lowered.quality = configuration.minimumLinearQuality
        guard accept(lowered) else { return nil }  // the length and check-digit rules hold whatever the lines
        let center = image.fromFrame(
            (o.bounds.x + o.bounds.width / 2) * Double(frameSize.width),
            (o.bounds.y + o.bounds.height / 2) * Double(frameSize.height))
        let span = BarcodeDetector.denseRereadSpan * density
        let planeWidth = image.plane.width
        let planeHeight = image.plane.height
        let y0 = max(0, Int(center.1) - span)
        let y1 = min(planeHeight, Int(center.1) + span + 1)
        let x0 = max(0, Int(center.0) - span)
        let x1 = min(planeWidth, Int(center.0) + span + 1)
        var reads: [MetadataObject] = []
        if y1 - y0 > 2 {
            reads += scanZBar(
                image.cropped(to: PixelRect(x: 0, y: y0, width: planeWidth, height: y1 - y0)), frameSize: frameSize,
                density: 1, matrixOnly: false)
        }
        if x1 - x0 > 2 {
            reads += scanZBar(
                image.cropped(to: PixelRect(x: x0, y: 0, width: x1 - x0, height: planeHeight)), frameSize: frameSize,
                density: 1, matrixOnly: false)
        }
        guard
            let dense = reads.filter({ $0.type == o.type && $0.payload == o.payload && accept($0) })
                .max(by: { ($0.quality ?? 0) < ($1.quality ?? 0) })
        else { return nil }
        confirmations["dense re-read", default: 0] += 1
        return dense
    }

    /// 1-D reads (zbar's or zxing-cpp's) on few scan lines (below ``deskewCheckBelowQuality``) checked against
    /// the deskewed images of the frame: a horizontal scan line crossing a tilted code with short bars enters and leaves it
    /// through its long sides, and Interleaved 2 of 5 (no check digit, any even length) and Codabar then read
    /// the part crossed as a shorter code (held-out synthetic sets: "903922" of "56903922" at 20°, on 2 lines).
    /// When zbar reads the same kind of code (I2/5 and ITF-14 are one kind) on a deskewed image, on at least
    /// ``transformedQualityMargin`` lines, where the read lies, with a longer payload, that read replaces this
    /// one; with the same payload, a shorter one or nothing there, this one stands. Reads of any pass but the
    /// deskewed one; zbar's before its conflict and small-retail checks, so zxing's verdict there has the last
    /// word. Costs one orientation estimate and up to two turned zbar scans, on frames with such a read only.
    func checkAgainstDeskewed(
        _ found: [MetadataObject], pass: ReaderPass, base: PassImage, frameSize: PixelSize,
        density: Int
    ) -> [MetadataObject] {
        guard pass != .deskewed, configuration.passes.contains(.deskewed), configuration.extraPasses,
            found.contains(where: {
                $0.type.isLinear && ($0.quality ?? Int.max) < BarcodeDetector.deskewCheckBelowQuality
            })
        else { return found }
        let reads = deskewedImages(base).flatMap {
            scanZBar($0, frameSize: frameSize, density: density, matrixOnly: false).filter(accept)
        }.filter { ($0.quality ?? 0) >= BarcodeDetector.transformedQualityMargin }
        var out: [MetadataObject] = []
        for o in found {
            guard o.type.isLinear, (o.quality ?? Int.max) < BarcodeDetector.deskewCheckBelowQuality else {
                out.append(o)
                continue
            }
            let there = reads.filter {
                $0.type.family == o.type.family && BarcodeDetector.touch($0.bounds, o.bounds)
                    && ($0.payload?.count ?? 0) > (o.payload?.count ?? 0)
            }
            if there.isEmpty {
                out.append(o)
                continue
            }
            confirmations["deskewed replaced", default: 0] += 1
            if let best = there.max(by: { ($0.quality ?? 0) < ($1.quality ?? 0) }),
                !out.contains(where: { $0.type == best.type && $0.payload == best.payload })
            {
                out.append(best)
            }
        }
        return out
    }

    /// One zbar pass over a pass image (``ZBarReader``), on every `density`th line (on a large still image,
    /// more: ``stillDensity(_:for:)``); `matrixOnly` reads QR only. What zbar could not do is kept for
    /// ``failingOnZBarErrors(_:)``.
    func scanZBar(_ pass: PassImage, frameSize: PixelSize, density: Int, matrixOnly: Bool) -> [MetadataObject] {
        guard !zbarEnabled.isEmpty, !matrixOnly || zbarEnabled.contains(.qr) else { return [] }
        let density = streaming ? density : stillDensity(density, for: pass)
        return objects(
            fromZBar: zbar.scan(pass.plane, density: density, qrOnly: matrixOnly), pass: pass, frameSize: frameSize)
    }

    /// What one zbar scan of `pass` found, as metadata objects (``makeObject(_:pass:frameSize:)``); a failure is
    /// kept for ``failingOnZBarErrors(_:)``.
    func objects(fromZBar scan: ZBarReader.Scan, pass: PassImage, frameSize: PixelSize)
        -> [MetadataObject]
    {
        if let failure = scan.failure { zbarFailure = failure }
        return scan.symbols.compactMap { makeObject($0, pass: pass, frameSize: frameSize) }
    }

    /// What a zbar symbol on `pass` becomes: frame geometry, the payload's text; nil for a UPC-E read inside a
    /// longer symbol.
    func makeObject(_ s: ZBarSymbol, pass: PassImage, frameSize: PixelSize) -> MetadataObject? {
        let frameWidth = Double(frameSize.width)
        let frameHeight = Double(frameSize.height)
        func normalized(_ p: (Double, Double)) -> NormalizedPoint {
            let f = pass.toFrame(p.0, p.1)
            return NormalizedPoint(x: f.0 / frameWidth, y: f.1 / frameHeight)
        }
        if s.type == .upce, configuration.checkUPCEQuietZone,
            let direction = RetailQuietZone.direction(zbarOrientation: s.orientation),
            RetailQuietZone.insideLongerSymbol(
                on: pass.plane, ends: s.points, direction: direction, edgeCounts: streaming)
        {
            confirmations["UPC-E inside a longer symbol", default: 0] += 1
            return nil
        }
        let corners = s.corners.map(normalized)
        var payload = s.bytes
        var segments = [TextDecoding.Segment(offset: 0, eci: nil, fromMode: false)]
        var isGS1 = s.isGS1
        if let refined = textReader.refine(
            type: s.type, bytes: s.bytes, points: s.points, pass: pass, frame: streaming ? streamFrames : nil)
        {
            payload = refined.bytes
            segments = refined.segments
            isGS1 = isGS1 || refined.isGS1
        }
        let other = textReader.code39(&payload, type: s.type)
        let (text, encoding) = TextDecoding.decode(payload, type: s.type, segments: segments)
        var object = MetadataObject(
            type: s.type, bounds: NormalizedRect(boundingPoints: corners), corners: corners,
            stringValue: text, payload: payload, quality: s.quality, textEncoding: encoding, isGS1: isGS1,
            sequence: s.sequenceSize.map { StructuredAppend(index: nil, size: $0) })
        (object.rawValue, object.fullASCIIValue) = other
        return object
    }
}

extension BarcodeDetector {
    /// Half the height of ``denseReread(_:on:density:frameSize:)``'s bands, in the plain pass's line spacings.
    static let denseRereadSpan = 4

    /// zbar's scan-line spacing for frame-scale images given `density` for `pass` (the upscaled image is
    /// scanned on every 2nd line of 2).
    static func frameDensity(_ pass: ReaderPass, _ density: Int) -> Int {
        pass == .upscaled ? max(1, density / 2) : density
    }

    /// 1-D reads on fewer scan lines than this are checked against the deskewed pass
    /// (``checkAgainstDeskewed(_:pass:base:frameSize:density:)``).
    static let deskewCheckBelowQuality = 3
}
