internal import CScanZBar
public import ScanCore

/// The code half of the benchmark's naive baseline (ScanBenchmark's `NaiveBaseline`): what a user would write
/// by hand, every full frame through `zbar_scan_image` with zbar's default settings (every symbology,
/// density 1, no inversion, zbar's own text guessing). It lives here because ScanDetection is the one Swift
/// module that imports zbar. Not for production use.
///
/// Owns its zbar scanner and image (one owner per C handle); not thread-safe: one caller at a time.
public final class NaiveZBarReader {
    private let scanner: OpaquePointer
    private let image: OpaquePointer

    public init() {
        scanner = zbar_image_scanner_create()
        image = zbar_image_create()
        zbar_image_set_format(image, ZBarReader.y800)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 1)
    }

    deinit {
        zbar_image_destroy(image)
        zbar_image_scanner_destroy(scanner)
    }

    /// The codes zbar reads on the whole frame, in zbar's order, of the types scand reports. Each object's
    /// `bounds` is the whole frame (`NormalizedRect.unit`, normalized device coordinates): the baseline does
    /// not locate codes, and its objects are only counted.
    public func read(_ frame: Frame) -> [MetadataObject] {
        var out: [MetadataObject] = []
        frame.luma.cropped(to: PixelRect(x: 0, y: 0, width: frame.width, height: frame.height)).bytes
            .withUnsafeBufferPointer { b in
                zbar_image_set_size(image, UInt32(frame.width), UInt32(frame.height))
                zbar_image_set_data(image, b.baseAddress, UInt(b.count), nil)
                defer { zbar_image_set_data(image, nil, 0, nil) }
                guard zbar_scan_image(scanner, image) > 0 else { return }
                var symbol = zbar_image_first_symbol(image)
                while let s = symbol {
                    let n = Int(zbar_symbol_get_data_length(s))
                    let bytes =
                        zbar_symbol_get_data(s).map { p in
                            p.withMemoryRebound(to: UInt8.self, capacity: n) {
                                Array(UnsafeBufferPointer(start: $0, count: n))
                            }
                        } ?? []
                    if let type = Symbologies.type(
                        zbar: zbar_symbol_get_type(s), bytes: bytes, enabled: BarcodeDetector.zbarTypes)
                    {
                        out.append(
                            MetadataObject(
                                type: type, bounds: .unit, stringValue: String(decoding: bytes, as: UTF8.self),
                                payload: bytes))
                    }
                    symbol = zbar_symbol_next(s)
                }
            }
        return out
    }
}
