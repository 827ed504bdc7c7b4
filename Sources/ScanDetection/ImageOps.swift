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
        return apply(plane, width: width, height: height) { src, dst in
            scv_resize(src, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                       dst, Int32(width), Int32(height), interpolation)
        }
    }

    /// Adaptive mean threshold (dark stays dark): `block` odd ≥ 3, `c` subtracted from the local mean.
    static func thresholded(_ plane: LumaPlane, block: Int, c: Double) -> LumaPlane? {
        apply(plane, width: plane.width, height: plane.height) { src, dst in
            scv_adaptive_threshold(src, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                                   dst, Int32(block), c)
        }
    }

    /// Lends `plane`'s bytes and a new packed `width`×`height` buffer to `op` (a CScanOpenCV call) for the
    /// duration of the call; the buffer becomes the result when `op` succeeds.
    private static func apply(_ plane: LumaPlane, width: Int, height: Int,
                              _ op: (UnsafePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) -> scv_status) -> LumaPlane? {
        var out = [UInt8](repeating: 0, count: width * height)
        let status = plane.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in op(src.baseAddress, dst.baseAddress) }
        }
        return status == SCV_OK ? LumaPlane(width: width, height: height, bytes: out) : nil
    }
}
