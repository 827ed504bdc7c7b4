internal import Foundation
internal import ScanCore

/// Confirming the 1-D reads of transformed pass images before they are reported.
extension PassReader {
    /// Keeps the reads of a transformed pass image that are trustworthy: 2-D codes, zxing's non-retail linear
    /// reads other than Codabar and DataBar Expanded, and the other linear reads (``needsConfirming(_:engine:)``) once confirmed
    /// (``BarcodeConfiguration/confirmTransformedLinearReads``, on by default) by, in this order:
    /// 1. on a stream, another step on a recent frame having read it unconfirmed (`pending`, keyed by
    ///    `source`). On a still image two pass images are made from the same pixels and misread alike (an
    ///    ITF-14's 8-digit Interleaved 2 of 5 prefix on the upscaled and the thresholded image of one
    ///    frame), so their agreement confirms nothing there;
    /// 2. its quality: at least ``transformedQualityMargin`` scan lines (not for an EAN/UPC read on a still
    ///    image's pyramid level below half size, whose modules are too few pixels for lines to tell);
    /// 3. the other engine reading the same type and payload around the code on the same pass image;
    /// 4. the same on the plain frame (`base`): zxing with `tryHarder`, then zbar on every line.
    /// An EAN/UPC read of a lossy image (scaled, thresholded) confirmed only by the cheap evidence (1, 2) must
    /// also meet no conflict: no other image of the frame may read other EAN/UPC digits on its symbol
    /// (``conflictsElsewhere(_:base:source:frameSize:)``; a blur that misleads one pass image misleads the next
    /// the same way, so agreement and scan lines are weak evidence there, and the other reading shows the
    /// symbol is ambiguous).
    /// An EAN-13/UPC-A or EAN-8 read counts the cheap evidence (1, 2) only when it does not rest on one half
    /// read alone (``bothHalvesSeen(_:on:frameSize:)``): zbar joins a half to the other half it read last, on
    /// any earlier line, so on a blurred symbol one misread half joined to the other half read again and again
    /// gives many scan lines of a wrong payload whose check digit happens to hold (a 640×480 conveyor frame's
    /// upscaled image: "1713031134352" for 9506000134352, 14 lines); then only the re-reads (3, 4) confirm it.
    /// An unconfirmed read is remembered in `pending` and dropped.
    func confirm(
        _ found: [MetadataObject], pass: PassImage, base: PassImage, engine: BarcodeEngine, frameSize: PixelSize,
        source: String, pending: inout PendingReads, stamp: Int = 0
    ) throws -> [MetadataObject] {
        guard configuration.confirmTransformedLinearReads,
            found.contains(where: { BarcodeDetector.needsConfirming($0.type, engine: engine) })
        else { return found }
        var out: [MetadataObject] = []
        for o in found {
            guard BarcodeDetector.needsConfirming(o.type, engine: engine), let payload = o.payload else {
                out.append(o)
                continue
            }
            if let whole = try longerInterleaved2of5(
                o, base: base, engine: engine, source: source, frameSize: frameSize)
            {
                confirmations["longer Interleaved 2 of 5", default: 0] += 1
                if !out.contains(whole) { out.append(whole) }
                continue
            }
            let key = PendingReads.Key(type: o.type, payload: payload)
            var how: String?
            // The cheap evidence first, then the re-reads.
            // On a still's pyramid level below half size an EAN/UPC read's scan lines are no evidence: held-out
            // photo seed 3131's inverted EAN-13 (modules of 5 px, blurred) read with other last digits and a valid
            // check digit on 4 lines of the ¼ level's inverted twin, where its modules are 1.3 px, and on no
            // other image.
            let smallLevelRetail =
                !streaming && BarcodeDetector.retailModules[o.type] != nil && pass.framePixelsPerPixel > 2.01
            // Asked only when the cheap evidence would count (a scan of the read's region).
            var halves: Bool?
            func bothHalves() -> Bool {
                if halves == nil { halves = bothHalvesSeen(o, on: pass, frameSize: frameSize) }
                return halves!
            }
            if streaming, let seen = pending.sources[key], seen.source != source, bothHalves() {
                how = "second pass"
            } else if !smallLevelRetail, let q = o.quality, q >= BarcodeDetector.transformedQualityMargin,
                bothHalves()
            {
                how = "quality"
            } else if let reread = try rereadConfirming(o, readBy: engine, on: pass, base: base, frameSize: frameSize) {
                how = reread
            }
            // (Not for the inverted frame: it loses nothing, so its reads stand as plain-pass reads do.)
            if how == "second pass" || how == "quality", BarcodeDetector.retailModules[o.type] != nil,
                !source.hasPrefix("inverted/"),
                try conflictsElsewhere(o, base: base, source: source, frameSize: frameSize)
            {
                confirmations["conflict across passes", default: 0] += 1
                how = nil
            }
            if let how {
                confirmations[how, default: 0] += 1
                pending.sources[key] = nil
                out.append(o)
            } else {
                unconfirmedReads += 1
                if pending.sources[key] == nil { pending.sources[key] = (source, stamp) }
            }
        }
        return out
    }

    /// The re-read that confirms `o`, read by `engine` on `pass` (a transformed image of `base`): the other
    /// engine around it on `pass` ("other engine"), then zxing-cpp ("plain zxing") and zbar ("plain zbar") around
    /// it on `base`, tried in that order up to the first that reads it (``readsSame(_:on:frameSize:engine:)``);
    /// nil when none does. The re-read routes of ``confirm(_:pass:base:engine:frameSize:source:pending:stamp:)``
    /// and of the plain pass's smaller copies (``StillReader/plainLayerReads(base:types:frameSize:density:)``).
    func rereadConfirming(
        _ o: MetadataObject, readBy engine: BarcodeEngine, on pass: PassImage, base: PassImage, frameSize: PixelSize
    ) throws -> String? {
        let other: BarcodeEngine? = engine == .zbar ? .zxing : engine == .zxing ? .zbar : nil
        if let other, try readsSame(o, on: pass, frameSize: frameSize, engine: other) { return "other engine" }
        if try readsSame(o, on: base, frameSize: frameSize, engine: .zxing) { return "plain zxing" }
        if try readsSame(o, on: base, frameSize: frameSize, engine: .zbar) { return "plain zbar" }
        return nil
    }

    /// Whether `engine` reads `o` (same type and payload) on `image` around where `o` was read: its box
    /// widened by a sixth of its length and at least 16 pass pixels on each side.
    func readsSame(_ o: MetadataObject, on image: PassImage, frameSize: PixelSize, engine: BarcodeEngine) throws
        -> Bool
    {
        switch engine {
        case .zxing:
            return try zxingReads(around: o, on: image, frameSize: frameSize).contains { symbol in
                var p = symbol.bytes
                _ = textReader.decode(&p, type: symbol.type, segments: symbol.segments)
                return p == o.payload || (o.type == .code128 && p.map { $0 & 0x7F } == o.payload?.map { $0 & 0x7F })
            }
        case .zbar, .both:
            guard BarcodeDetector.zbarTypes.contains(o.type),
                let clipped = clippedRegion(around: o, on: image, frameSize: frameSize)
            else { return false }
            let crop = image.cropped(to: clipped)
            return scanZBar(crop, frameSize: frameSize, density: 1, matrixOnly: false).contains { r in
                r.type == o.type
                    && (r.payload == o.payload
                        || (o.type == .code128 && r.payload?.map { $0 & 0x7F } == o.payload?.map { $0 & 0x7F }))
                    && accept(r)
            }
        }
    }

    /// Whether an EAN-13/UPC-A or EAN-8 read on `image` rests on both its halves: zbar, scanning every row and
    /// then every column around `o` (its box widened by its length on each side, since the box may cover one
    /// half), reads `o`'s payload with reports at both ends and the centre
    /// (``ZBarReader/bothHalvesRead(_:byRows:)``), or reads nothing of the kind there (no evidence either way:
    /// the read stands as before). False when every read of the payload there shows one half read alone, or
    /// when it reads there a payload that shares one half with `o`'s and not the other (the symbol's other half
    /// reads two ways: a still of the blurred conveyor gave "1713031134352" on its upscaled image and
    /// "9153037134352" on the rescan, for 9506000134352). True for any other symbology.
    func bothHalvesSeen(_ o: MetadataObject, on image: PassImage, frameSize: PixelSize) -> Bool {
        guard ZBarReader.isReadInHalves(o.type), let payload = o.payload,
            let clipped = clippedRegion(around: o, on: image, frameSize: frameSize, widen: 1)
        else { return true }
        let crop = image.plane.cropped(to: clipped)
        var found = false
        for byRows in [true, false] {
            let scan = zbar.zbarScan(crop, density: 1, qrOnly: false, lines: byRows ? .rows : .columns)
            for s in scan.symbols where s.type == o.type {
                if s.bytes == o.payload {
                    if ZBarReader.bothHalvesRead(s, byRows: byRows) { return true }
                    found = true
                } else if ZBarReader.sharesOneHalf(s.bytes, payload) {
                    found = true  // the symbol's other half reads two ways
                }
            }
        }
        if found { confirmations["one half read alone", default: 0] += 1 }
        return !found
    }

    /// zbar reads a skewed ITF-14 or a long Interleaved 2 of 5 as a shorter one, the digits of the symbol's
    /// start (a never-seen synthetic photo's 12-digit "600760055769", turned in perspective, as "60076005" on 3
    /// lines of its upscaled image; zxing-cpp on the plain frame splits it into "60076005" and "5769"; the
    /// deskewed image reads all 12 on 61 lines). For a transformed zbar read of that family: zbar's read on
    /// another image of the frame (`base` and the pass images other than `source`'s) of the same family, on the
    /// same symbol (boxes that touch), longer and beginning or ending with its digits, reported instead; nil
    /// otherwise. Costs a zbar scan per pass image, for such reads only, and on still images only (on a stream
    /// the next frames' steps read the symbol again, and a frame's budget has no room for every image).
    func longerInterleaved2of5(
        _ o: MetadataObject, base: PassImage, engine: BarcodeEngine, source: String, frameSize: PixelSize
    ) throws -> MetadataObject? {
        guard !streaming, engine == .zbar, o.type.family == .interleaved2of5, let payload = o.payload else {
            return nil
        }
        return firstOnOtherImages(base: base, source: source, frameSize: frameSize) { r in
            guard r.type.family == .interleaved2of5, let digits = r.payload, digits.count > payload.count,
                BarcodeDetector.touch(r.bounds, o.bounds), accept(r)
            else { return false }
            return digits.starts(with: payload) || digits.reversed().starts(with: payload.reversed())
        }
    }

    /// The first of zbar's reads, on the images of the frame other than `source`'s (`base` and its 1-D pass
    /// images, each scanned as its pass scans it), that `matches`; nil when none does. Scans image by image and
    /// stops at the first match.
    private func firstOnOtherImages(
        base: PassImage, source: String, frameSize: PixelSize, where matches: (MetadataObject) -> Bool
    ) -> MetadataObject? {
        let density = streaming ? streamDensity(for: frameSize) : max(1, configuration.scanDensity)
        for pass in effectivePasses where !pass.matrixOnly {
            for (index, image) in passImages(pass, base: base).enumerated() {
                if source == "\(pass.rawValue)/\(index)" || source.hasPrefix("\(pass.rawValue)/\(index)/") { continue }
                let reads = scanZBar(
                    image, frameSize: frameSize, density: pass == .upscaled ? 2 * density : density, matrixOnly: false)
                if let found = reads.first(where: matches) { return found }
            }
        }
        return nil
    }

    /// ``BarcodeDetector/region(around:on:frameSize:widen:)`` within `image`; nil when too small to scan.
    func clippedRegion(around o: MetadataObject, on image: PassImage, frameSize: PixelSize, widen: Double = 1.0 / 6)
        -> PixelRect?
    {
        let region = BarcodeDetector.region(around: o, on: image, frameSize: frameSize, widen: widen)
        let clipped = PixelRect(
            x: max(0, region.x), y: max(0, region.y),
            width: min(image.plane.width, region.x + region.width) - max(0, region.x),
            height: min(image.plane.height, region.y + region.height) - max(0, region.y))
        return clipped.width > 8 && clipped.height > 2 ? clipped : nil
    }

    /// Whether another image of the frame (`base` and its pass images other than `source`'s; zbar, as the
    /// passes scan them) reads an EAN/UPC payload other than `o`'s on `o`'s symbol (boxes that touch, in
    /// normalized frame coordinates). On a stream a payload found free of conflict is not checked again while
    /// it keeps being read (``rereadMemoryFrames``). Costs one zbar scan per pass image, only for EAN/UPC reads
    /// of lossy images confirmed by agreement or scan lines alone. (It scans whole images: zbar's box may mark
    /// one end of the symbol only, so a crop around it missed the UPC-A a wrong UPC-E lay in.)
    func conflictsElsewhere(_ o: MetadataObject, base: PassImage, source: String, frameSize: PixelSize) throws -> Bool {
        guard let payload = o.payload else { return false }
        let key = RereadKey(type: o.type, bytes: payload)
        if streaming, let seen = conflictChecked[key], streamFrames - seen <= BarcodeDetector.rereadMemoryFrames {
            conflictChecked[key] = streamFrames
            return false
        }
        let conflict = firstOnOtherImages(base: base, source: source, frameSize: frameSize) { r in
            BarcodeDetector.retailModules[r.type] != nil && r.payload != payload
                && BarcodeDetector.touch(r.bounds, o.bounds)
                && accept(r)
        }
        if conflict != nil { return true }
        if streaming {
            if conflictChecked.count >= BarcodeDetector.rereadCacheSize {
                conflictChecked.removeAll(keepingCapacity: true)
            }
            conflictChecked[key] = streamFrames
        }
        return false
    }

    /// zxing-cpp's reads of `o`'s type around `o` on `image` (`tryHarder`).
    func zxingReads(
        around o: MetadataObject, on image: PassImage, frameSize: PixelSize, widen: Double = 1.0 / 6
    ) throws -> [ZXingReader.Symbol] {
        guard ZXingReader.types.contains(o.type) else { return [] }
        let region = BarcodeDetector.region(around: o, on: image, frameSize: frameSize, widen: widen)
        return try ZXingReader.read(image.plane, region: region, types: [o.type], quick: false).filter {
            $0.type == o.type
        }
    }
}

extension BarcodeDetector {
    /// Linear reads from transformed pass images that nothing has confirmed yet, by type and payload, with
    /// where they were read (a pass image on a still image, a frame on a stream).
    struct PendingReads {
        struct Key: Hashable {
            var type: MetadataObjectType
            var payload: [UInt8]
        }
        var sources: [Key: (source: String, stamp: Int)] = [:]
        mutating func forget(olderThan stamp: Int) { sources = sources.filter { $0.value.stamp >= stamp } }
    }

    /// A transformed 1-D read seen on at least this many scan lines (zbar's quality; zxing's agreeing lines)
    /// counts as confirmed: one above ``BarcodeConfiguration/minimumLinearQuality``'s default. Measured on the
    /// shelf set (docs/reader.md): the upscaled pass's wrong EAN-13 reads were on 2 lines, its right ones on 3–9.
    static let transformedQualityMargin = 3

    /// Whether a transformed read of `type` by `engine` must be confirmed: EAN-13/UPC-A, EAN-8 and UPC-E from
    /// either engine (one mod-10 check digit lets a blurred symbol pass as other digits), and the other linear
    /// types when zbar read them (zbar reads a skewed ITF-14 or long Interleaved 2 of 5 as a shorter one).
    /// 2-D codes carry error correction and are never held back. Measured on the four generated sets
    /// (2026-11-24, docs/reader.md): of zbar's transformed non-retail reads the 36 right ones were all on 3+
    /// scan lines and the 2 wrong ones (I2/5 prefixes) on 2; zxing's 19 were all right, 7 of them on fewer
    /// than 3 lines, which holding them back would have lost. Codabar is held back from zxing too: it has no
    /// check character at all, and zxing-cpp read "D4212C" along one pixel column (2 lines) of a code-free photo's
    /// thresholded image on 12–16 of 24 frames of a stream (docs/reader.md, "Codabar from zxing's transformed passes").
    /// So is GS1 DataBar Expanded: zxing-cpp read one on 2 lines of the thresholded image of a 12 MP photo of a
    /// tilted PDF417 symbol (never-seen seed 9595), and holding zxing's back lost no read on any set
    /// (docs/reader.md, "DataBar Expanded from zxing's transformed passes").
    static func needsConfirming(_ type: MetadataObjectType, engine: BarcodeEngine) -> Bool {
        retailModules[type] != nil
            || (type.isLinear && (engine != .zxing || [.codabar, .gs1DataBarExpanded].contains(type)))
    }

    /// Whether two boxes (normalized frame coordinates) overlap or touch. zbar's boxes are the bands its scan
    /// lines crossed, and may be a pixel wide, so touching counts.
    static func touch(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
        min(a.x + a.width, b.x + b.width) >= max(a.x, b.x) && min(a.y + a.height, b.y + b.height) >= max(a.y, b.y)
    }

    /// `o`'s box on `image` (pass pixels), widened by a sixth of its length and 16 pixels on each side.
    static func region(around o: MetadataObject, on image: PassImage, frameSize: PixelSize, widen: Double = 1.0 / 6)
        -> PixelRect
    {
        let frameWidth = Double(frameSize.width)
        let frameHeight = Double(frameSize.height)
        let points = o.corners.map { image.fromFrame($0.x * frameWidth, $0.y * frameHeight) }
        let xs = points.map(\.0)
        let ys = points.map(\.1)
        let x0 = xs.min() ?? 0
        let x1 = xs.max() ?? 0
        let y0 = ys.min() ?? 0
        let y1 = ys.max() ?? 0
        let m = max(x1 - x0, y1 - y0) * widen + 16
        return PixelRect(
            x: Int((x0 - m).rounded(.down)), y: Int((y0 - m).rounded(.down)),
            width: Int((x1 - x0 + 2 * m).rounded(.up)) + 1, height: Int((y1 - y0 + 2 * m).rounded(.up)) + 1)
    }
}
