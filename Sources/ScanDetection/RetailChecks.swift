internal import Foundation
internal import ScanCore

/// The conflict rule (one symbol read two ways) and the small-retail check.
extension PassReader {
    /// The checks on one pass image's zbar reads. First the conflict rule
    /// (``BarcodeConfiguration/resolveConflictingReads``, on by default): two payloads of one linear type on one
    /// symbol.
    /// Then, with ``BarcodeConfiguration/checkSmallRetailReads`` (off by default), the small-retail check:
    /// retail codes read with a module of fewer than ``smallRetailModule`` pixels get zxing's second opinion:
    /// zbar misreads blurred small EAN-13/UPC-A as other digits with a valid check digit (one of the 11
    /// misreads on the shelf set was on the plain pass, read on 17 scan lines) where zxing-cpp reads the right
    /// digits or nothing. When zxing reads the same type there with other digits, zxing's read replaces
    /// zbar's; when it reads nothing, zbar's stands (plain pass) or needs confirming (transformed passes).
    /// Both run on every pass, on stills and streams.
    func checkRetailReads(_ found: [MetadataObject], image: PassImage, frameSize: PixelSize) throws -> [MetadataObject]
    {
        guard configuration.checkSmallRetailReads || configuration.resolveConflictingReads else { return found }
        // Two different payloads of one linear type in overlapping boxes are one symbol read two ways: at least
        // one is wrong (EAN/UPC first; since 2026-11-24 every linear type: a GS1 DataBar read two ways on 47 and
        // 31 lines of one inverted frame). zxing's read of that type on the image decides; without one, neither
        // is reported.
        // (A real phone photo of an ISBN, bench/reader/real_photos.py, gives zbar 9780071244763 on 17 scan lines
        // and 9180071844763 on 275: 1↔7 and 2↔8 swapped at two positions of weight 3, so the check digit holds.)
        let conflicted = !configuration.resolveConflictingReads ? [] : BarcodeDetector.conflicted(found)
        var arbiter: [[UInt8]] = []
        let conflictedTypes = Set(conflicted.map { found[$0].type }).filter { ZXingReader.types.contains($0) }
        if !conflicted.isEmpty {
            if !conflictedTypes.isEmpty {
                arbiter = try ZXingReader.read(image.plane, types: conflictedTypes).filter {
                    conflictedTypes.contains($0.type)
                }.map(\.bytes)
            }
            confirmations["conflict", default: 0] += 1
        }
        var out: [MetadataObject] = []
        // zxing's reads that replace zbar's, added after the loop unless a read of theirs stands already.
        var replacements: [(read: MetadataObject, by: MetadataObject)] = []
        for (i, o) in found.enumerated() {
            if conflicted.contains(i) {
                if let p = o.payload, arbiter.contains(p) { out.append(o) }
                continue
            }
            if configuration.checkSmallRetailReads,
                let r = try smallRetailReplacement(o, image: image, frameSize: frameSize)
            {
                replacements.append((o, r))
            } else {
                out.append(o)
            }
        }
        // A replacement with the digits of a read that stands, on the replaced read's symbol or zxing's, is a
        // second report of one code: a blurred UPC-E read right on 3 scan lines at one end and wrong on 2 lines of
        // the same end, whose bands were not one symbol by ``sameSymbol(_:_:)``, and zxing read the wrong one's
        // symbol as the right digits on rows 30 px lower (never-seen shelf 7711/197, a noise clip's frame).
        // Two replacements by one zxing read are one report too.
        for (o, r) in replacements
        where !out.contains(where: { k in
            k.type == r.type && k.payload == r.payload
                && [o.bounds, r.bounds].contains {
                    BarcodeDetector.touch(k.bounds, $0) || BarcodeDetector.sameSymbol(k.bounds, $0)
                }
        }) {
            out.append(r)
        }
        return out
    }

    /// The small-retail check on one of zbar's reads (``checkRetailReads(_:image:frameSize:)``): zxing-cpp's read
    /// that replaces it, when zxing reads its symbol with other digits; nil when it stands (not a small EAN/UPC
    /// read, zxing reads nothing there or the same digits, or on a stream the answer is remembered).
    func smallRetailReplacement(_ o: MetadataObject, image: PassImage, frameSize: PixelSize) throws -> MetadataObject? {
        guard let modules = BarcodeDetector.retailModules[o.type], let payload = o.payload else { return nil }
        let frameWidth = Double(frameSize.width)
        let frameHeight = Double(frameSize.height)
        let points = o.corners.map { image.fromFrame($0.x * frameWidth, $0.y * frameHeight) }
        let xs = points.map(\.0)
        let ys = points.map(\.1)
        let length = max((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0))
        guard length / Double(modules) < BarcodeDetector.smallRetailModule else { return nil }
        // On a stream a code in view is read frame after frame: checked once, then trusted while it keeps
        // being read (as the text re-reads).
        let key = RereadKey(type: o.type, bytes: payload)
        if streaming, let seen = retailChecked[key], streamFrames - seen <= BarcodeDetector.rereadMemoryFrames {
            retailChecked[key] = streamFrames
            return nil
        }
        // zbar's box may cover only part of the symbol, off its centre (a misread's halves come from different
        // rows), and zxing missed such symbols in a region around the box: zxing looks at the whole pass image,
        // for this type only.
        // Only zxing's reads on this symbol count: with several codes of one type in view (a photo of four
        // ISBNs, Tests/Fixtures/photos), another symbol's read is no verdict on this one, and it replaced
        // this read with a second copy of that symbol's digits.
        let symbols = try ZXingReader.read(image.plane, types: [o.type]).filter { $0.type == o.type }
        let other = objects(in: symbols, pass: image, frameSize: frameSize).filter {
            BarcodeDetector.sameSymbol($0.bounds, o.bounds)
        }
        guard let replacement = other.first, !other.contains(where: { $0.payload == payload }) else {
            if streaming {
                if retailChecked.count >= BarcodeDetector.rereadCacheSize {
                    retailChecked.removeAll(keepingCapacity: true)
                }
                retailChecked[key] = streamFrames
            }
            return nil
        }
        confirmations["zxing replaced zbar", default: 0] += 1
        return replacement
    }

    /// The conflict rule (``BarcodeConfiguration/resolveConflictingReads``) on zxing-cpp's own reads: zxing
    /// can read one blurred EAN/UPC symbol two ways on different rows (held-out shelf frames: UPC-E 07284151 on
    /// 7 lines and 12284117 on 3), and there is no second zxing to ask, so neither read is reported.
    func dropConflicts(_ found: [MetadataObject]) -> [MetadataObject] {
        guard configuration.resolveConflictingReads else { return found }
        let conflicted = BarcodeDetector.conflicted(found)
        guard !conflicted.isEmpty else { return found }
        confirmations["zxing conflict", default: 0] += 1
        return found.indices.filter { !conflicted.contains($0) }.map { found[$0] }
    }
}

extension BarcodeDetector {
    /// EAN/UPC codes whose module is narrower than this many pass pixels (by zbar's box) are checked by zxing.
    static let smallRetailModule = 2.5

    /// The indices of linear reads in `found` that another read of the same type, with another payload, shares a
    /// symbol with (``sameSymbol(_:_:)``): one symbol read two ways.
    static func conflicted(_ found: [MetadataObject]) -> Set<Int> {
        Set(
            found.indices.filter { i in
                found[i].type.isLinear
                    && found.indices.contains { j in
                        j != i && found[j].type == found[i].type && found[j].payload != found[i].payload
                            && sameSymbol(found[i].bounds, found[j].bounds)
                    }
            })
    }

    /// Whether two 1-D reads' boxes (normalized frame coordinates; zbar's are thin bands of scan-line
    /// crossings) lie on one symbol: they overlap along x and their centres are closer in y than the longer box
    /// is wide. Or both are end-only bands (zbar's points all at one end of the symbol: a box at least 4 times
    /// taller than wide, or 4 times wider than tall for a symbol read along y) at the same end (overlapping or
    /// side by side), with a gap between them across the bands no larger than the taller band: two readings of
    /// a blurred UPC-E on adjacent rows of a stream frame (2 lines each, one end, 7 pixels apart) were not one
    /// symbol by the centre rule, nor two 1-px bands in adjacent pixel columns (never-seen shelf 7711/197).
    static func sameSymbol(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
        // Normalized units: far below a pixel of any frame, above the rounding of box edges.
        let touchTolerance = 1e-9
        let overlap = min(a.x + a.width, b.x + b.width) - max(a.x, b.x)
        if overlap > 0 && abs((a.y + a.height / 2) - (b.y + b.height / 2)) < max(a.width, b.width) { return true }
        // End-only bands a pixel wide may lie side by side: touching counts.
        if overlap >= -touchTolerance, a.height >= 4 * a.width, b.height >= 4 * b.width {
            let gap = max(a.y, b.y) - min(a.y + a.height, b.y + b.height)
            return gap <= max(a.height, b.height)
        }
        let overlapY = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
        if overlapY >= -touchTolerance, a.width >= 4 * a.height, b.width >= 4 * b.height {
            let gap = max(a.x, b.x) - min(a.x + a.width, b.x + b.width)
            return gap <= max(a.width, b.width)
        }
        return false
    }

    /// Modules across EAN-13 (UPC-A), EAN-8 and UPC-E symbols, guards included.
    static let retailModules: [MetadataObjectType: Int] = [.ean13: 95, .ean8: 67, .upce: 51]
}
