/// An 8-bit RGB picture, rows packed (`width * 3` bytes each, R G B), origin top-left. Frame pixels.
/// What `scan --annotate` and `/snapshot.jpg?annotate=1` draw on before JPEG encoding.
public struct RGBImage: Sendable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes, row-major.
    public var pixels: [UInt8]

    /// A black picture. Precondition: both sides positive.
    public init(width: Int, height: Int) {
        precondition(width > 0 && height > 0, "invalid image geometry")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
    }

    /// The grey `luma` plane as RGB (the three channels equal).
    public init(luma: LumaPlane) {
        width = luma.width
        height = luma.height
        var out = [UInt8](repeating: 0, count: luma.width * luma.height * 3)
        luma.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<luma.height {
                    let s = y * luma.stride
                    let d = y * luma.width * 3
                    for x in 0..<luma.width {
                        let v = src[s + x]
                        dst[d + 3 * x] = v
                        dst[d + 3 * x + 1] = v
                        dst[d + 3 * x + 2] = v
                    }
                }
            }
        }
        pixels = out
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
}
