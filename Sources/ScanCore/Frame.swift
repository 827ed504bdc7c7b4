/// An 8-bit luma (grey) plane: `height` rows of `width` bytes, each row `stride` bytes apart.
/// Coordinates are frame pixels, origin top-left.
public struct LumaPlane: Sendable {
    public let width: Int
    public let height: Int
    public let stride: Int
    /// Row-major bytes; `bytes.count >= stride * (height - 1) + width`.
    public let bytes: [UInt8]

    /// Wraps `bytes`. Precondition: the buffer is large enough for the geometry.
    public init(width: Int, height: Int, stride: Int? = nil, bytes: [UInt8]) {
        let stride = stride ?? width
        precondition(width > 0 && height > 0 && stride >= width, "invalid plane geometry")
        precondition(bytes.count >= stride * (height - 1) + width, "plane buffer too small")
        self.width = width
        self.height = height
        self.stride = stride
        self.bytes = bytes
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// The luma value at pixel (x, y).
    @inlinable public subscript(x: Int, y: Int) -> UInt8 { bytes[y * stride + x] }

    /// A tightly packed copy of the pixel rectangle `rect` (clipped to the plane).
    public func cropped(to rect: PixelRect) -> LumaPlane {
        let x0 = max(0, rect.x)
        let y0 = max(0, rect.y)
        let x1 = min(width, rect.x + rect.width)
        let y1 = min(height, rect.y + rect.height)
        precondition(x1 > x0 && y1 > y0, "empty crop")
        if x0 == 0 && y0 == 0 && x1 == width && y1 == height && stride == width { return self }
        let w = x1 - x0
        let h = y1 - y0
        var out = [UInt8](repeating: 0, count: w * h)
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<h {
                    let s = src.baseAddress! + (y0 + row) * stride + x0
                    (dst.baseAddress! + row * w).update(from: s, count: w)
                }
            }
        }
        return LumaPlane(width: w, height: h, bytes: out)
    }

    /// A tightly packed copy with every value inverted (255 - v): light-on-dark becomes dark-on-light.
    public func inverted() -> LumaPlane {
        let width = width
        let height = height
        let stride = stride
        // Written through pointers, row by row, into an array that is not zeroed first: the compiler vectorises
        // the inner loop (a bounds-checked element loop cost 1 % of a 720p stream's CPU).
        let out = bytes.withUnsafeBufferPointer { src in
            [UInt8](unsafeUninitializedCapacity: width * height) { dst, initialized in
                let s = src.baseAddress!
                let d = dst.baseAddress!
                for row in 0..<height {
                    let from = s + row * stride
                    let to = d + row * width
                    for col in 0..<width { to[col] = ~from[col] }
                }
                initialized = width * height
            }
        }
        return LumaPlane(width: width, height: height, bytes: out)
    }
}

/// One captured or decoded picture, as handed from a ``FrameSource`` to the detectors.
public struct Frame: Sendable {
    /// The luma plane the detectors read.
    public var luma: LumaPlane
    /// 0-based index of this frame within its source.
    public var index: Int
    /// Seconds since the source's first frame (0 for a still image).
    public var time: Double
    /// The driver's sequence number, for live sources.
    public var sequence: UInt32?
    /// When the frame was captured (a camera buffer's own stamp) or decoded (used for frame→JSON latency).
    public var captureClock: MonotonicInstant?

    public init(
        luma: LumaPlane, index: Int, time: Double, sequence: UInt32? = nil, captureClock: MonotonicInstant? = nil
    ) {
        self.luma = luma
        self.index = index
        self.time = time
        self.sequence = sequence
        self.captureClock = captureClock
    }

    public var width: Int { luma.width }
    public var height: Int { luma.height }
    public var size: PixelSize { luma.size }
}
