internal import CScanJPEG
public import ScanCore

/// scand's one JPEG encoder (libjpeg-turbo, baseline, fast integer DCT): grey luma planes for the preview
/// (``VideoFrame``'s `jpegData`, the MJPEG stream, `/snapshot.jpg`) and RGB pictures for the annotated
/// images (`scan --annotate`, `/snapshot.jpg?annotate=1`). Encoding runs on the caller's thread.
public enum JPEGEncoder {
    /// The plane as a baseline greyscale JPEG at `quality` (1...100), same pixel size as the plane.
    /// - Throws: ``ScanError/invalidArgument(_:)`` for a quality outside 1...100, ``ScanError/output(_:)``
    ///   when libjpeg fails.
    public static func encode(_ plane: LumaPlane, quality: Int = 80) throws -> [UInt8] {
        try plane.bytes.withUnsafeBufferPointer {
            try encode(
                $0, width: plane.width, height: plane.height, stride: plane.stride, components: 1, quality: quality)
        }
    }

    /// The picture as a baseline colour JPEG (YCbCr 4:2:0) at `quality` (1...100).
    /// - Throws: as for a grey plane.
    public static func encode(_ image: RGBImage, quality: Int = 85) throws -> [UInt8] {
        try image.pixels.withUnsafeBufferPointer {
            try encode(
                $0, width: image.width, height: image.height, stride: image.width * 3, components: 3, quality: quality)
        }
    }

    private static func encode(
        _ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, stride: Int, components: Int,
        quality: Int
    ) throws -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw ScanError.invalidArgument("JPEG quality must be 1...100, got \(quality)")
        }
        precondition(pixels.count >= stride * (height - 1) + width * components, "JPEG source buffer too small")
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = scan_jpeg_encode(
            pixels.baseAddress, Int32(width), Int32(height), Int32(stride), Int32(components),
            Int32(quality), &out, &size, &message, message.count)
        guard status == 0, let out else {
            throw ScanError.output(
                "JPEG encoding failed: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))"
            )
        }
        defer { scan_jpeg_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }
}
