import ScanCore
internal import CScanZXing

/// Reads codes with zxing-cpp. Holds no C state between calls; results are copied out and freed at once.
struct ZXingReader {
    /// Code types scand reads with zxing-cpp. GS1 DataBar (omnidirectional) is left to zbar: Debian's
    /// zxing 1.4.0 is built with assertions on and its DataBar reader aborts the process on some frames
    /// (`Result::operator==`: `lineCount() == 1`).
    static let types: Set<MetadataObjectType> = [
        .qr, .microQR, .ean13, .ean8, .upce, .code39, .code93, .code128, .interleaved2of5, .itf14, .codabar,
        .gs1DataBarExpanded, .pdf417, .aztec, .dataMatrix,
    ]

    /// zxing-cpp's version string.
    static var version: String { String(cString: scz_version()) }

    struct Symbol {
        var type: MetadataObjectType
        var bytes: [UInt8]
        /// Character-set runs of `bytes`, as the symbol declares them.
        var segments: [TextDecoding.Segment]
        /// FNC1 in first position (GS1 element string, GS-separated).
        var isGS1: Bool
        /// zxing's own rendering of the text (for cross-checks only; scand decodes `bytes` itself).
        var zxingText: String
        var corners: [(Double, Double)] // TL TR BR BL in image pixels
        var lineCount: Int
    }

    static func formats(for types: Set<MetadataObjectType>) -> UInt32 {
        var bits: UInt32 = 0
        for t in types {
            switch t {
            case .qr: bits |= UInt32(SCZ_QR)
            case .microQR: bits |= UInt32(SCZ_MICRO_QR)
            case .ean13: bits |= UInt32(SCZ_EAN13) | UInt32(SCZ_UPCA)
            case .ean8: bits |= UInt32(SCZ_EAN8)
            case .upce: bits |= UInt32(SCZ_UPCE)
            case .code39: bits |= UInt32(SCZ_CODE39)
            case .code93: bits |= UInt32(SCZ_CODE93)
            case .code128: bits |= UInt32(SCZ_CODE128)
            case .interleaved2of5, .itf14: bits |= UInt32(SCZ_ITF)
            case .codabar: bits |= UInt32(SCZ_CODABAR)
            case .gs1DataBar: break // see `types`
            case .gs1DataBarExpanded: bits |= UInt32(SCZ_DATABAR_EXP)
            case .pdf417: bits |= UInt32(SCZ_PDF417)
            case .aztec: bits |= UInt32(SCZ_AZTEC)
            case .dataMatrix: bits |= UInt32(SCZ_DATA_MATRIX)
            case .face: break
            }
        }
        return bits
    }

    /// Reads every symbol of `types` in `plane`.
    /// - Throws: ``ScanError/detector(_:)`` when zxing fails.
    /// `quick`: no tryHarder, a fixed binarisation threshold (≈ half the time; for frames zbar has read).
    static func read(_ plane: LumaPlane, types: Set<MetadataObjectType>, quick: Bool = false) throws -> [Symbol] {
        try read(plane, region: PixelRect(x: 0, y: 0, width: plane.width, height: plane.height), types: types, quick: quick)
    }

    /// Reads every symbol of `types` in `region` of `plane` (pixels; clipped to the plane). Corners are in
    /// the region's pixels.
    static func read(_ plane: LumaPlane, region: PixelRect, types: Set<MetadataObjectType>, quick: Bool = false) throws -> [Symbol] {
        let x0 = max(0, region.x), y0 = max(0, region.y)
        let x1 = min(plane.width, region.x + region.width), y1 = min(plane.height, region.y + region.height)
        guard x1 > x0, y1 > y0 else { return [] }
        let bits = formats(for: types)
        guard bits != 0 else { return [] }
        var options = scz_options(formats: bits, try_harder: quick ? 0 : 1, try_rotate: 1, try_downscale: 0,
                                  validate_itf_checksum: 0, min_line_count: 2, max_symbols: 0,
                                  fixed_threshold: quick ? 1 : 0)
        var results: UnsafeMutablePointer<scz_result>?
        var count: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = plane.bytes.withUnsafeBufferPointer { src in
            scz_read(src.baseAddress! + y0 * plane.stride + x0, Int32(x1 - x0), Int32(y1 - y0), Int32(plane.stride), &options,
                     &results, &count, &message, message.count)
        }
        guard status == SCZ_OK else {
            throw ScanError.detector("zxing: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { scz_results_free(results, count) }
        guard let results else { return [] }
        var out: [Symbol] = []
        for i in 0..<Int(count) {
            let r = results[i]
            var bytes = r.length > 0 && r.bytes != nil ? Array(UnsafeBufferPointer(start: r.bytes, count: r.length)) : []
            let type: MetadataObjectType
            switch Int(r.format) {
            case SCZ_QR: type = .qr
            case SCZ_MICRO_QR: type = .microQR
            case SCZ_EAN13: type = .ean13
            case SCZ_UPCA: type = .ean13; bytes = [0x30] + bytes // as zbar and AVFoundation report UPC-A
            case SCZ_EAN8: type = .ean8
            case SCZ_UPCE: type = .upce
            case SCZ_CODE39: type = .code39
            case SCZ_CODE93: type = .code93
            case SCZ_CODE128: type = .code128
            case SCZ_ITF: type = GS1.interleaved2of5Type(bytes, enabled: types)
            case SCZ_CODABAR: type = .codabar
            case SCZ_DATABAR:
                type = .gs1DataBar
                // zxing gives the bare GTIN-14; zbar (and GS1's element string) has the AI (01) in front.
                if bytes.count == 14, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { bytes = [0x30, 0x31] + bytes }
            case SCZ_DATABAR_EXP: type = .gs1DataBarExpanded
            case SCZ_PDF417: type = .pdf417
            case SCZ_AZTEC: type = .aztec
            case SCZ_DATA_MATRIX: type = .dataMatrix
            default: continue
            }
            guard types.contains(type) else { continue }
            var segments: [TextDecoding.Segment] = []
            if let s = r.segments {
                for k in 0..<Int(r.segment_count) {
                    segments.append(TextDecoding.Segment(offset: Int(s[k].offset), eci: s[k].eci >= 0 ? Int(s[k].eci) : nil,
                                                         fromMode: s[k].from_mode != 0))
                }
            }
            if segments.isEmpty { segments = [TextDecoding.Segment(offset: 0, eci: nil, fromMode: false)] }
            let prefix = bytes.count - Int(r.length) // UPC-A's added leading 0
            if prefix > 0 { segments = segments.map { var s = $0; s.offset = s.offset == 0 ? 0 : s.offset + prefix; return s } }
            let text = r.text != nil ? String(cString: r.text) : ""
            let c = r.corners
            let corners = [(c.0, c.1), (c.2, c.3), (c.4, c.5), (c.6, c.7)]
            out.append(Symbol(type: type, bytes: bytes, segments: segments, isGS1: r.gs1 != 0, zxingText: text,
                              corners: corners, lineCount: Int(r.line_count)))
        }
        return out
    }
}
