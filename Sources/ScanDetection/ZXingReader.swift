internal import CScanZXing
public import ScanCore

/// Reads codes with zxing-cpp. Holds no C state between calls; results are copied out and freed at once.
struct ZXingReader {
    /// Code types scand reads with zxing-cpp (GS1 DataBar omnidirectional is left to zbar; see ``Symbologies``).
    static var types: Set<MetadataObjectType> { Symbologies.zxingTypes }

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
        var corners: [(Double, Double)]  // TL TR BR BL in image pixels
        var lineCount: Int
        /// The symbol's place in a structured-append sequence; nil when it is not part of one.
        var sequence: StructuredAppend? = nil
    }

    /// `r`'s place in a structured-append sequence, nil when it is not part of one.
    private static func sequence(_ r: scz_result) -> StructuredAppend? {
        guard r.sequence_size > 1, r.sequence_index >= 0, r.sequence_index < r.sequence_size else { return nil }
        let id = withUnsafeBytes(of: r.sequence_id) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return StructuredAppend(index: Int(r.sequence_index), size: Int(r.sequence_size), id: id)
    }

    /// Reads every symbol of `types` in `plane`.
    /// - Throws: ``ScanError/detector(_:)`` when zxing fails.
    /// `quick`: no tryHarder, a fixed binarisation threshold (≈ half the time; for frames zbar has read).
    /// `bothPolarities`: also light-on-dark symbols (zxing-cpp's own tryInvert, on the same binarisation).
    /// `downscale`: also zxing-cpp's own downscaled copies of a large image (its default; scand's passes make
    /// their own).
    static func read(
        _ plane: LumaPlane, types: Set<MetadataObjectType>, quick: Bool = false, bothPolarities: Bool = false,
        downscale: Bool = false
    ) throws -> [Symbol] {
        try read(
            plane, region: PixelRect(x: 0, y: 0, width: plane.width, height: plane.height), types: types, quick: quick,
            bothPolarities: bothPolarities, downscale: downscale)
    }

    /// Reads every symbol of `types` in `region` of `plane` (pixels; clipped to the plane). Corners are in
    /// the region's pixels.
    static func read(
        _ plane: LumaPlane, region: PixelRect, types: Set<MetadataObjectType>, quick: Bool = false,
        bothPolarities: Bool = false, downscale: Bool = false
    ) throws -> [Symbol] {
        let x0 = max(0, region.x)
        let y0 = max(0, region.y)
        let x1 = min(plane.width, region.x + region.width)
        let y1 = min(plane.height, region.y + region.height)
        guard x1 > x0, y1 > y0 else { return [] }
        let bits = Symbologies.zxingFormats(for: types)
        guard bits != 0 else { return [] }
        var options = scz_options(
            formats: bits, try_harder: quick ? 0 : 1, try_rotate: 1, try_downscale: downscale ? 1 : 0,
            validate_itf_checksum: 0, min_line_count: 2, max_symbols: 0,
            fixed_threshold: quick ? 1 : 0, try_invert: bothPolarities ? 1 : 0)
        var results: UnsafeMutablePointer<scz_result>?
        var count: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = plane.bytes.withUnsafeBufferPointer { src in
            scz_read(
                src.baseAddress! + y0 * plane.stride + x0, Int32(x1 - x0), Int32(y1 - y0), Int32(plane.stride),
                &options,
                &results, &count, &message, message.count)
        }
        guard status == SCZ_OK else {
            throw ScanError.detector(
                "zxing: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { scz_results_free(results, count) }
        guard let results else { return [] }
        var out: [Symbol] = []
        for i in 0..<Int(count) {
            let r = results[i]
            var bytes =
                r.length > 0 && r.bytes != nil ? Array(UnsafeBufferPointer(start: r.bytes, count: r.length)) : []
            let format = Int(r.format)
            if format == SCZ_UPCA { bytes = [0x30] + bytes }  // as zbar and AVFoundation report UPC-A
            // zxing gives DataBar's bare GTIN-14; zbar (and GS1's element string) has the AI (01) in front.
            if format == SCZ_DATABAR, bytes.count == 14, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                bytes = [0x30, 0x31] + bytes
            }
            guard let type = Symbologies.type(zxing: format, bytes: bytes, enabled: types) else { continue }
            var segments: [TextDecoding.Segment] = []
            if let s = r.segments {
                for k in 0..<Int(r.segment_count) {
                    segments.append(
                        TextDecoding.Segment(
                            offset: Int(s[k].offset), eci: s[k].eci >= 0 ? Int(s[k].eci) : nil,
                            fromMode: s[k].from_mode != 0))
                }
            }
            if segments.isEmpty { segments = [TextDecoding.Segment(offset: 0, eci: nil, fromMode: false)] }
            let prefix = bytes.count - Int(r.length)  // UPC-A's added leading 0
            if prefix > 0 {
                segments = segments.map {
                    var s = $0
                    s.offset = s.offset == 0 ? 0 : s.offset + prefix
                    return s
                }
            }
            let text = r.text != nil ? String(cString: r.text) : ""
            let c = r.corners
            let corners = [(c.0, c.1), (c.2, c.3), (c.4, c.5), (c.6, c.7)]
            out.append(
                Symbol(
                    type: type, bytes: bytes, segments: segments, isGS1: r.gs1 != 0, zxingText: text,
                    corners: corners, lineCount: Int(r.line_count), sequence: Self.sequence(r)))
        }
        return out
    }
}

/// zxing-cpp as its own users run it: every format it reads, its default options (tryHarder, tryRotate,
/// tryInvert, tryDownscale, the local-average binariser, two agreeing lines for 1-D codes): the anchor
/// `scand bench --stills` measures scand's still reader against, in the same process on the same pixels.
public enum ZXingDefaults {
    /// One code zxing-cpp read: its type as scand names it and zxing-cpp's own text.
    public struct Read: Sendable {
        public var type: MetadataObjectType
        public var text: String
    }

    /// Reads `plane` (a whole image) with zxing-cpp's defaults.
    /// - Throws: ``ScanError/detector(_:)`` when zxing-cpp fails on it.
    public static func read(_ plane: LumaPlane) throws -> [Read] {
        try ZXingReader.read(plane, types: ZXingReader.types, bothPolarities: true, downscale: true).map {
            Read(type: $0.type, text: $0.zxingText)
        }
    }
}
