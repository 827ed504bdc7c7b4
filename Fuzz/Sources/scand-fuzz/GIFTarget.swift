import ScanCapture
import ScanCore

/// The GIF decoder (giflib, with scand's glue in CScanOpenCV's decode.cpp: the record walk to the first
/// image, the screen and budget check, interlaced rows, the offset and the transparent index) through the
/// public still-image entry.
///
/// Inputs that do not start with `GIF8` are skipped. The pixel budget is 2^22 (4 Mpixel), so a screen that
/// declares a huge picture must be refused before its pixels are allocated.
enum GIFTarget {
    static let limits = DecoderLimits(maxPixels: 1 << 22)

    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.count >= 4, Array(data.prefix(4)) == Array("GIF8".utf8) else { return }
        do {
            let source = try ImageSource(name: "fuzz.gif", bytes: Array(data), limits: limits)
            guard let frame = try source.nextFrame() else { fatalError("a decoded image gave no frame") }
            let plane = frame.luma
            fuzzCheck(plane.width > 0 && plane.height > 0, "decoded size \(plane.width)x\(plane.height)")
            fuzzCheck(plane.width * plane.height <= limits.maxPixels, "decoded \(plane.width)x\(plane.height) over the budget")
            fuzzCheck(plane.bytes.count == plane.width * plane.height, "luma holds \(plane.bytes.count) bytes for \(plane.width)x\(plane.height)")
            fuzzCheck(try source.nextFrame() == nil, "a still image gave a second frame")
        } catch {
            // A clear error for bad input is the expected outcome.
        }
    }
}
