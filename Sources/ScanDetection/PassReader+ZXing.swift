internal import Foundation
internal import ScanCore

/// zxing-cpp's reads of the pass images as metadata objects (the zxing mapping), and fragments of longer reads.
extension PassReader {
    /// zxing-cpp's reads of one pass image of `types`, after its own conflict rule (``dropConflicts(_:)``),
    /// the filters (``accept(_:)``) and the check against the deskewed pass (zxing too reads part of a tilted
    /// Interleaved 2 of 5, on the downscaled image of a stream frame). `density` is zbar's for `pass`;
    /// `bothPolarities` as in ``ZXingReader/read(_:types:quick:bothPolarities:)``.
    func zxingPassReads(
        _ image: PassImage, pass: ReaderPass, base: PassImage, types: Set<MetadataObjectType>,
        frameSize: PixelSize, density: Int, bothPolarities: Bool = false
    ) throws -> [MetadataObject] {
        let found = try confirmingGS1DataBar(
            dropConflicts(
                try scanZXing(image, types: types, frameSize: frameSize, bothPolarities: bothPolarities)
            ).filter(accept), image: image, byZXing: false)
        return checkAgainstDeskewed(
            found, pass: pass, base: base, frameSize: frameSize, density: BarcodeDetector.frameDensity(pass, density))
    }

    func scanZXing(
        _ pass: PassImage, types: Set<MetadataObjectType>, frameSize: PixelSize, quick: Bool = false,
        bothPolarities: Bool = false
    ) throws -> [MetadataObject] {
        guard !types.isEmpty else { return [] }
        return objects(
            in: try ZXingReader.read(pass.plane, types: types, quick: quick, bothPolarities: bothPolarities),
            pass: pass, frameSize: frameSize)
    }

    /// zxing-cpp symbols found in `pass` as metadata objects in frame coordinates (UPC-E reads inside a longer
    /// symbol dropped, ``BarcodeConfiguration/checkUPCEQuietZone``).
    func objects(in symbols: [ZXingReader.Symbol], pass: PassImage, frameSize: PixelSize) -> [MetadataObject] {
        let frameWidth = Double(frameSize.width)
        let frameHeight = Double(frameSize.height)
        return symbols.compactMap { symbol -> MetadataObject? in
            if symbol.type == .upce, configuration.checkUPCEQuietZone,
                BarcodeDetector.upceInsideLongerSymbol(symbol, on: pass.plane, edgeCounts: streaming)
            {
                confirmations["UPC-E inside a longer symbol", default: 0] += 1
                return nil
            }
            var pts = symbol.corners
            if symbol.type.isLinear {
                // zxing gives a linear code's scan line; make it at least one pass pixel thick, as zbar's box.
                let ys = pts.map(\.1)
                if (ys.max() ?? 0) - (ys.min() ?? 0) < 1 {
                    pts[2].1 += 1
                    pts[3].1 += 1
                }
            }
            let corners = pts.map { p -> NormalizedPoint in
                let f = pass.toFrame(p.0, p.1)
                return NormalizedPoint(x: f.0 / frameWidth, y: f.1 / frameHeight)
            }
            var payload = symbol.bytes
            let other = textReader.code39(&payload, type: symbol.type)
            let (text, encoding) = TextDecoding.decode(payload, type: symbol.type, segments: symbol.segments)
            var object = MetadataObject(
                type: symbol.type, bounds: NormalizedRect(boundingPoints: corners), corners: corners,
                stringValue: text, payload: payload,
                quality: symbol.type.isLinear ? symbol.lineCount : nil,
                textEncoding: encoding, isGS1: symbol.isGS1, sequence: symbol.sequence)
            (object.rawValue, object.fullASCIIValue) = other
            return object
        }
    }
}

extension PassReader {
    /// GS1 DataBar Expanded reads whose element string fails GS1's rules (``GS1ElementString``: an unknown AI, a
    /// field of the wrong length or characters, a wrong check digit, a date that does not exist) stand only when
    /// the other engine reads the same payload on the same pass image (`byZXing`: zbar's reads, confirmed by
    /// zxing-cpp; else zxing-cpp's, confirmed by zbar on every line). DataBar Expanded always holds a GS1 element
    /// string, so data that breaks its rules is most likely a misread (the held-out photographs: one whose data
    /// after AI 15 was wrong); two engines reading the same broken data is a symbol printed that way, kept as
    /// read (`gs1Valid: false` says what is wrong). Costs one read of the pass image, on images with such a
    /// read only.
    func confirmingGS1DataBar(_ found: [MetadataObject], image: PassImage, byZXing: Bool) throws -> [MetadataObject] {
        func broken(_ o: MetadataObject) -> Bool {
            o.type == .gs1DataBarExpanded && o.payload.map { !GS1ElementString($0).isValid } ?? false
        }
        guard found.contains(where: broken) else { return found }
        let other: [[UInt8]]
        if byZXing {
            other = try ZXingReader.read(image.plane, types: [.gs1DataBarExpanded]).map(\.bytes)
        } else {
            // zbar reading DataBar Expanded whatever the engine setting (`--engine zxing` leaves zbar none).
            other = ZBarReader(types: [.gs1DataBarExpanded], configuration: configuration)
                .scan(image.plane, density: 1, qrOnly: false).symbols.map(\.bytes)
        }
        return found.filter { o in
            guard broken(o) else { return true }
            let confirmed = o.payload.map { other.contains($0) } ?? false
            confirmations[confirmed ? "GS1 DataBar confirmed" : "GS1 DataBar dropped", default: 0] += 1
            return confirmed
        }
    }
}

extension BarcodeDetector {
    /// Whether zxing-cpp's UPC-E read `symbol` (corners in `plane`'s pixels; left and right edges at the
    /// symbol's ends, whichever way it reads) lies inside a longer symbol (``RetailQuietZone``), judged at both
    /// ends (with `edgeCounts`, an end at the plane's edge counts as inside: streams).
    static func upceInsideLongerSymbol(_ symbol: ZXingReader.Symbol, on plane: LumaPlane, edgeCounts: Bool = false)
        -> Bool
    {
        let c = symbol.corners
        guard c.count == 4 else { return false }
        let start = ((c[0].0 + c[3].0) / 2, (c[0].1 + c[3].1) / 2)
        let end = ((c[1].0 + c[2].0) / 2, (c[1].1 + c[2].1) / 2)
        let direction = (end.0 - start.0, end.1 - start.1)
        guard direction.0 * direction.0 + direction.1 * direction.1 >= 1 else { return false }
        return RetailQuietZone.insideLongerSymbol(on: plane, ends: c, direction: direction, edgeCounts: edgeCounts)
    }

    /// Fragments of a longer read in the same frame:
    /// - Interleaved 2 of 5: a short I2/5 read that overlaps a longer one, or whose digits are part of a longer
    ///   read, is a partial decode of that longer code;
    /// - with `upceInsideEAN13` (``BarcodeConfiguration/checkUPCEQuietZone``), a UPC-E whose box overlaps or
    ///   touches an EAN-13/UPC-A read's box is that symbol's left half read as a UPC-E (docs/reader.md "UPC-E
    ///   inside EAN-13"): a real UPC-E's 51 modules cannot hold an EAN-13's 95.
    static func suppressFragments(_ objects: [MetadataObject], upceInsideEAN13: Bool = true) -> [MetadataObject] {
        let i25 = objects.filter { $0.type.family == .interleaved2of5 }
        let ean13 = upceInsideEAN13 ? objects.filter { $0.type == .ean13 } : []
        guard i25.count > 1 || (!ean13.isEmpty && objects.contains { $0.type == .upce }) else { return objects }
        return objects.filter { o in
            if o.type == .upce { return !ean13.contains { touch($0.bounds, o.bounds) } }
            guard o.type.family == .interleaved2of5, let p = o.payload else { return true }
            return !i25.contains { other in
                guard let q = other.payload, q.count > p.count else { return false }
                let contained = String(decoding: q, as: UTF8.self).contains(String(decoding: p, as: UTF8.self))
                return contained || other.bounds.intersection(o.bounds).area > 0.5 * o.bounds.area
            }
        }
    }
}
