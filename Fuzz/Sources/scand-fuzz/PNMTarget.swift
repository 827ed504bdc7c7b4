import ScanCapture
import ScanCore

/// The Netpbm decoder (P1-P6, ASCII and binary) through the public still-image entry.
///
/// Inputs that do not start with `P1`…`P6` are skipped: others go to libpng/libjpeg or OpenCV, which are
/// not this target's subject. The decoder gets a pixel budget of 2^22 (4 Mpixel), passed through the
/// `ImageSource(name:bytes:limits:)` interface, so a header that declares a huge image must be refused
/// before its pixels are allocated.
enum PNMTarget {
    static let limits = DecoderLimits(maxPixels: 1 << 22)

    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.count >= 2, data[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(data[1]) else { return }
        StillImageCheck.run(data, name: "fuzz.pnm", limits: limits)
    }
}
