import ScanCore
internal import CScanOpenCV

/// A picture derived from a frame region for one reader pass, with the map from its pixels back to the frame.
struct PassImage {
    var plane: LumaPlane
    /// Frame pixel = origin + pass pixel / scale (per axis).
    var scaleX: Double
    var scaleY: Double
    var originX: Double
    var originY: Double

    /// Maps a point in this image's pixels to frame pixels.
    func toFrame(_ x: Double, _ y: Double) -> (Double, Double) {
        (originX + x / scaleX, originY + y / scaleY)
    }
}

/// Image operations for the reader passes. Inputs are packed planes; outputs are new packed planes.
enum ImageOps {
    /// Resized copy. `interpolation`: 0 area, 1 linear, 2 nearest, 3 cubic.
    static func resized(_ plane: LumaPlane, width: Int, height: Int, interpolation: Int32) -> LumaPlane? {
        guard width > 0, height > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: width * height)
        let status = plane.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                scv_resize(src.baseAddress, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                           dst.baseAddress, Int32(width), Int32(height), interpolation)
            }
        }
        return status == SCV_OK ? LumaPlane(width: width, height: height, bytes: out) : nil
    }

    /// Adaptive mean threshold (dark stays dark): `block` odd ≥ 3, `c` subtracted from the local mean.
    static func thresholded(_ plane: LumaPlane, block: Int, c: Double) -> LumaPlane? {
        var out = [UInt8](repeating: 0, count: plane.width * plane.height)
        let status = plane.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                scv_adaptive_threshold(src.baseAddress, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                                       dst.baseAddress, Int32(block), c)
            }
        }
        return status == SCV_OK ? LumaPlane(width: plane.width, height: plane.height, bytes: out) : nil
    }

    /// Gaussian blur with an odd kernel.
    static func blurred(_ plane: LumaPlane, kernel: Int, sigma: Double) -> LumaPlane? {
        var out = [UInt8](repeating: 0, count: plane.width * plane.height)
        let status = plane.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                scv_gaussian_blur(src.baseAddress, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                                  dst.baseAddress, Int32(kernel), sigma)
            }
        }
        return status == SCV_OK ? LumaPlane(width: plane.width, height: plane.height, bytes: out) : nil
    }
}
