public import ScanCore
internal import CScanOpenCV

/// Greyscale JPEG encoding of a luma plane with libjpeg-turbo (for the frame output's subscribers: a
/// preview encodes only while someone watches).
public enum JPEGEncoder {
    /// The plane as a baseline greyscale JPEG at `quality` (1...100), same pixel size as the plane.
    /// - Throws: ``ScanError/invalidArgument(_:)`` for a quality outside 1...100.
    public static func encode(_ plane: LumaPlane, quality: Int = 80) throws -> [UInt8] {
        guard (1...100).contains(quality) else { throw ScanError.invalidArgument("JPEG quality must be 1...100, got \(quality)") }
        // A greyscale JPEG of natural content is far below one byte per pixel; noise at quality 100 can
        // exceed it, and then the encoder says how much room it needs.
        var capacity = plane.width * plane.height / 2 + 4096
        var message = [CChar](repeating: 0, count: 256)
        while true {
            var out = [UInt8](repeating: 0, count: capacity)
            var length = 0
            let status = plane.bytes.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    scv_jpeg_encode_gray(src.baseAddress, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                                         Int32(quality), dst.baseAddress, dst.count, &length, &message, message.count)
                }
            }
            switch status {
            case SCV_OK:
                out.removeLast(out.count - length)
                return out
            case SCV_ERR_MEMORY where length > capacity:
                capacity = length
            default:
                throw ScanError.output(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
    }
}
