internal import CScanOpenCV
import Foundation
import ScanCore

/// A picture derived from a frame region for one reader pass, with the map from its pixels back to the frame.
struct PassImage {
    var plane: LumaPlane
    /// The affine map from this image's pixels to frame pixels: frame x = a·x + b·y + c, frame y = d·x + e·y + f
    /// (a scaled pass: a = 1/scale, b = d = 0, (c, f) = origin; the deskewed pass adds a rotation).
    private(set) var map: (a: Double, b: Double, c: Double, d: Double, e: Double, f: Double)
    /// Whether only 2-D formats are looked for on this image (a level of the still pyramid's ladder,
    /// ``BarcodeConfiguration/matrixLadderSteps``); its resampled and inverted copies keep it.
    var matrixOnly = false

    /// An image whose pixel (x, y) is frame pixel (origin + (x, y) / scale), per axis.
    init(plane: LumaPlane, scaleX: Double, scaleY: Double, originX: Double, originY: Double) {
        self.plane = plane
        map = (1 / scaleX, 0, originX, 0, 1 / scaleY, originY)
    }

    /// Frame pixels per pixel of this image along a side (the square root of the map's area scale): 0.5 for an
    /// upscaled ×2 image, 2 for a half-size one, 1 for the frame itself or a turn of it.
    var framePixelsPerPixel: Double { (abs(map.a * map.e - map.b * map.d)).squareRoot() }

    /// Maps a point in this image's pixels to frame pixels.
    func toFrame(_ x: Double, _ y: Double) -> (Double, Double) {
        (map.a * x + map.b * y + map.c, map.d * x + map.e * y + map.f)
    }

    /// Maps a point in frame pixels to this image's pixels.
    func fromFrame(_ x: Double, _ y: Double) -> (Double, Double) {
        let det = map.a * map.e - map.b * map.d
        let u = x - map.c
        let v = y - map.f
        return ((map.e * u - map.b * v) / det, (map.a * v - map.d * u) / det)
    }

    /// This map for an image resampled from this one by `sx`, `sy` new pixels per old pixel (the plane is the
    /// caller's to set).
    func rescaled(by sx: Double, _ sy: Double) -> PassImage {
        var out = self
        out.map.a = map.a / sx
        out.map.b = map.b / sy
        out.map.d = map.d / sx
        out.map.e = map.e / sy
        return out
    }

    /// This image resampled to `width`×`height` pixels (``ImageOps/resized(_:width:height:interpolation:)``:
    /// 0 area, 1 linear, 2 nearest, 3 cubic), with its map to frame pixels scaled to match. nil when a side is
    /// 0 or OpenCV fails.
    func resized(width: Int, height: Int, interpolation: Int32) -> PassImage? {
        guard let resampled = ImageOps.resized(plane, width: width, height: height, interpolation: interpolation) else {
            return nil
        }
        var out = rescaled(by: Double(width) / Double(plane.width), Double(height) / Double(plane.height))
        out.plane = resampled
        return out
    }

    /// This image with its luma inverted (255 − value: light-on-dark codes read as dark-on-light), same map.
    func inverted() -> PassImage {
        var out = self
        out.plane = plane.inverted()
        return out
    }

    /// The part of this image within `rect` (this image's pixels, inside the image), with its map.
    func cropped(to rect: PixelRect) -> PassImage {
        var out = self
        out.plane = plane.cropped(to: rect)
        let x = Double(rect.x)
        let y = Double(rect.y)
        out.map.c = map.a * x + map.b * y + map.c
        out.map.f = map.d * x + map.e * y + map.f
        return out
    }

    /// This image turned by `degrees` (image axes, y down: positive turns x towards y) about its centre, into
    /// a `width`×`height` image with the same centre: the new image's pixel p shows this image's pixel
    /// R(−degrees)·(p − new centre) + old centre. Pixels from outside are `border`. nil when OpenCV fails.
    func turned(by degrees: Double, border: UInt8) -> PassImage? {
        let t = degrees * Double.pi / 180
        let cosT = cos(t)
        let sinT = sin(t)
        let w = Double(plane.width)
        let h = Double(plane.height)
        let nw = Int((abs(w * cosT) + abs(h * sinT)).rounded(.up))
        let nh = Int((abs(w * sinT) + abs(h * cosT)).rounded(.up))
        guard nw > 0, nh > 0 else { return nil }
        // Forward (this → turned): q = R(p − c) + c'.
        let cx = w / 2
        let cy = h / 2
        let ncx = Double(nw) / 2
        let ncy = Double(nh) / 2
        let m = [cosT, -sinT, ncx - (cosT * cx - sinT * cy), sinT, cosT, ncy - (sinT * cx + cosT * cy)]
        guard let turned = ImageOps.warped(plane, width: nw, height: nh, map: m, border: border) else { return nil }
        // Inverse (turned → this): p = Rᵀ(q − c') + c; then this image's map to the frame.
        let ia = cosT
        let ib = sinT
        let ic = cx - (cosT * ncx + sinT * ncy)
        let id = -sinT
        let ie = cosT
        let iff = cy - (-sinT * ncx + cosT * ncy)
        var out = self
        out.plane = turned
        out.map = (
            map.a * ia + map.b * id, map.a * ib + map.b * ie, map.a * ic + map.b * iff + map.c,
            map.d * ia + map.e * id, map.d * ib + map.e * ie, map.d * ic + map.e * iff + map.f
        )
        return out
    }
}

/// Image operations for the reader passes. Inputs are packed planes; outputs are new packed planes.
enum ImageOps {
    /// Resized copy. `interpolation`: 0 area, 1 linear, 2 nearest, 3 cubic.
    static func resized(_ plane: LumaPlane, width: Int, height: Int, interpolation: Int32) -> LumaPlane? {
        guard width > 0, height > 0 else { return nil }
        return apply(plane, width: width, height: height) { src, dst in
            scv_resize(
                src, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                dst, Int32(width), Int32(height), interpolation)
        }
    }

    /// Adaptive mean threshold (dark stays dark, 0 and 255): `block` odd ≥ 3, `c` subtracted from the local mean.
    /// With `inverted`, dark becomes 255 and light 0: the same bytes as inverting the plain result, in one pass.
    static func thresholded(_ plane: LumaPlane, block: Int, c: Double, inverted: Bool = false) -> LumaPlane? {
        apply(plane, width: plane.width, height: plane.height) { src, dst in
            scv_adaptive_threshold(
                src, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                dst, Int32(block), c, inverted ? 1 : 0)
        }
    }

    /// `plane` warped by the 2×3 row-major affine `map` (its pixels to the new image's), bilinear, into a
    /// `width`×`height` image; pixels from outside `plane` are `border`.
    static func warped(_ plane: LumaPlane, width: Int, height: Int, map: [Double], border: UInt8) -> LumaPlane? {
        guard width > 0, height > 0, map.count == 6 else { return nil }
        return map.withUnsafeBufferPointer { m in
            apply(plane, width: width, height: height) { src, dst in
                scv_warp_affine(
                    src, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                    dst, Int32(width), Int32(height), m.baseAddress, Int32(border))
            }
        }
    }

    /// The gradient directions of bar-like texture in `plane` (``scv_bar_orientations``): degrees in
    /// [0, 180), image axes (0: vertical bars), strongest first, each with its count of `block`-pixel blocks.
    static func barOrientations(
        _ plane: LumaPlane, block: Int, minimumCoherence: Double, minimumBlocks: Int,
        capacity: Int
    ) -> [(degrees: Double, blocks: Double)] {
        var angles = [Double](repeating: 0, count: capacity)
        var support = [Double](repeating: 0, count: capacity)
        var count: Int32 = 0
        let status = plane.bytes.withUnsafeBufferPointer { src in
            angles.withUnsafeMutableBufferPointer { a in
                support.withUnsafeMutableBufferPointer { s in
                    scv_bar_orientations(
                        src.baseAddress, Int32(plane.width), Int32(plane.height), Int32(plane.stride),
                        Int32(block), minimumCoherence, Int32(minimumBlocks),
                        a.baseAddress, s.baseAddress, Int32(capacity), &count)
                }
            }
        }
        guard status == SCV_OK else { return [] }
        return (0..<Int(count)).map { (angles[$0], support[$0]) }
    }

    /// The mean grey level of `plane` (every 4th pixel of every 4th row).
    static func meanLevel(_ plane: LumaPlane) -> UInt8 {
        var sum = 0
        var n = 0
        for y in stride(from: 0, to: plane.height, by: 4) {
            for x in stride(from: 0, to: plane.width, by: 4) {
                sum += Int(plane[x, y])
                n += 1
            }
        }
        return n == 0 ? 128 : UInt8(sum / n)
    }

    /// Lends `plane`'s bytes and a new packed `width`×`height` buffer to `op` (a CScanOpenCV call) for the
    /// duration of the call; the buffer becomes the result when `op` succeeds. Every op here writes each pixel
    /// of its output (resize, adaptive threshold, and warp with a constant border), so the buffer is not zeroed
    /// first (zeroing them was half a per cent of a 720p stream's CPU).
    private static func apply(
        _ plane: LumaPlane, width: Int, height: Int,
        _ op: (UnsafePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) -> scv_status
    ) -> LumaPlane? {
        var status = SCV_ERR_ARGUMENT
        let out = plane.bytes.withUnsafeBufferPointer { src in
            [UInt8](unsafeUninitializedCapacity: width * height) { dst, initialized in
                status = op(src.baseAddress, dst.baseAddress)
                initialized = status == SCV_OK ? width * height : 0
            }
        }
        return status == SCV_OK ? LumaPlane(width: width, height: height, bytes: out) : nil
    }
}
