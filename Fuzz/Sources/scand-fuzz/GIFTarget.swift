import ScanCapture
import ScanCore

/// The GIF decoder (giflib, with scand's glue in CScanImageIO's decode.cpp: the record walk to the first
/// image, the screen and budget check, interlaced rows, the offset and the transparent index) through the
/// public still-image entry.
///
/// Inputs that do not start with `GIF8` are skipped. The pixel budget is 2^22 (4 Mpixel), so a screen that
/// declares a huge picture must be refused before its pixels are allocated.
enum GIFTarget {
    static let limits = DecoderLimits(maxPixels: 1 << 22)

    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.count >= 4, Array(data.prefix(4)) == Array("GIF8".utf8) else { return }
        StillImageCheck.run(data, name: "fuzz.gif", limits: limits)
    }
}
