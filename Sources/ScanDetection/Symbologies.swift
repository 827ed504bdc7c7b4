// `package`: the benchmark's naive baseline (ScanBenchmark) maps zbar's results through
// ``Symbologies/type(zbar:bytes:enabled:)``; no C type reaches the public API.
package import CScanZBar
internal import CScanZXing
package import ScanCore

/// How each engine names each code type: the one table every mapping between ``MetadataObjectType`` and the
/// engines' symbologies (zbar's `zbar_symbol_type_t`, the zxing shim's `SCZ_*` format bits) derives from —
/// which symbologies to enable for a set of types, which type a result is, and which types an engine reads.
/// (The user-facing aliases for type names, `qrcode`, `i25`, …, are ``MetadataObjectType/zbarNames``: names
/// need no engine, so they live in ScanCore.)
package enum Symbologies {
    struct Row {
        var type: MetadataObjectType
        /// zbar symbologies enabled to read `type`; empty when zbar cannot read it.
        var zbar: [zbar_symbol_type_t]
        /// Further zbar symbologies reported as `type` (never enabled on their own).
        var zbarAlso: [zbar_symbol_type_t] = []
        /// zxing-cpp formats (the shim's `SCZ_*` bits) asked for to read `type`; empty when scand does not
        /// read it with zxing-cpp.
        var zxing: [Int]
        /// Further zxing-cpp formats reported as `type` (never asked for).
        var zxingAlso: [Int] = []
    }

    /// One row per code type. Interleaved 2 of 5 and ITF-14 are one symbology to both engines: a result is
    /// told apart by its digits (``GS1/interleaved2of5Type(_:enabled:)``).
    static let rows: [Row] = [
        Row(type: .qr, zbar: [ZBAR_QRCODE], zxing: [SCZ_QR]),
        Row(type: .microQR, zbar: [], zxing: [SCZ_MICRO_QR]),
        // UPC-A arrives as EAN-13 with a leading 0, as in AVFoundation (zxing's UPC-A gets the 0 added).
        Row(type: .ean13, zbar: [ZBAR_EAN13], zbarAlso: [ZBAR_UPCA, ZBAR_ISBN13], zxing: [SCZ_EAN13, SCZ_UPCA]),
        Row(type: .ean8, zbar: [ZBAR_EAN8], zxing: [SCZ_EAN8]),
        Row(type: .upce, zbar: [ZBAR_UPCE], zxing: [SCZ_UPCE]),
        Row(type: .code39, zbar: [ZBAR_CODE39], zxing: [SCZ_CODE39]),
        Row(type: .code93, zbar: [ZBAR_CODE93], zxing: [SCZ_CODE93]),
        Row(type: .code128, zbar: [ZBAR_CODE128], zxing: [SCZ_CODE128]),
        Row(type: .interleaved2of5, zbar: [ZBAR_I25], zxing: [SCZ_ITF]),
        Row(type: .itf14, zbar: [ZBAR_I25], zxing: [SCZ_ITF]),
        Row(type: .codabar, zbar: [ZBAR_CODABAR], zxing: [SCZ_CODABAR]),
        // GS1 DataBar (omnidirectional) is left to zbar: Debian's zxing 1.4.0 is built with assertions on and
        // its DataBar reader aborts the process on some frames (`Result::operator==`: `lineCount() == 1`).
        Row(type: .gs1DataBar, zbar: [ZBAR_DATABAR], zxing: [], zxingAlso: [SCZ_DATABAR]),
        Row(type: .gs1DataBarExpanded, zbar: [ZBAR_DATABAR_EXP], zxing: [SCZ_DATABAR_EXP]),
        Row(type: .pdf417, zbar: [], zxing: [SCZ_PDF417]),
        Row(type: .aztec, zbar: [], zxing: [SCZ_AZTEC]),
        Row(type: .dataMatrix, zbar: [], zxing: [SCZ_DATA_MATRIX]),
    ]

    /// Code types zbar reads.
    static let zbarTypes = Set(rows.filter { !$0.zbar.isEmpty }.map(\.type))
    /// Code types scand reads with zxing-cpp.
    static let zxingTypes = Set(rows.filter { !$0.zxing.isEmpty }.map(\.type))

    /// The zbar symbologies to enable for `types` (once each).
    static func zbarSymbologies(for types: Set<MetadataObjectType>) -> [zbar_symbol_type_t] {
        var out: [zbar_symbol_type_t] = []
        for row in rows where types.contains(row.type) {
            for s in row.zbar where !out.contains(s) { out.append(s) }
        }
        return out
    }

    /// The zxing shim's format bits to ask for `types`.
    static func zxingFormats(for types: Set<MetadataObjectType>) -> UInt32 {
        rows.filter { types.contains($0.type) }.reduce(0) { bits, row in row.zxing.reduce(bits) { $0 | UInt32($1) } }
    }

    /// The type of a zbar result of symbology `symbology` with payload `bytes`; nil when it is none of
    /// `enabled`.
    package static func type(zbar symbology: zbar_symbol_type_t, bytes: [UInt8], enabled: Set<MetadataObjectType>)
        -> MetadataObjectType?
    {
        let row = rows.first { $0.zbar.contains(symbology) || $0.zbarAlso.contains(symbology) }
        return row.flatMap { resolve($0.type, bytes: bytes, enabled: enabled) }
    }

    /// The type of a zxing result of format `format` (one `SCZ_*` bit) with payload `bytes`; nil when it is
    /// none of `enabled`.
    static func type(zxing format: Int, bytes: [UInt8], enabled: Set<MetadataObjectType>) -> MetadataObjectType? {
        let row = rows.first { $0.zxing.contains(format) || $0.zxingAlso.contains(format) }
        return row.flatMap { resolve($0.type, bytes: bytes, enabled: enabled) }
    }

    /// `type`, or ITF-14 for an Interleaved 2 of 5 result that is one; nil when not enabled.
    private static func resolve(_ type: MetadataObjectType, bytes: [UInt8], enabled: Set<MetadataObjectType>)
        -> MetadataObjectType?
    {
        let type = type == .interleaved2of5 ? GS1.interleaved2of5Type(bytes, enabled: enabled) : type
        return enabled.contains(type) ? type : nil
    }
}
