// `package`, not public: the benchmark's naive baseline (ScanBenchmark) runs a `Cascade`; no C type
// reaches the public API.
package import CScanOpenCV
public import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

/// A face found on one frame, in frame pixels (origin top-left, y down).
public struct FaceCandidate: Sendable, Hashable {
    /// Centre of the face, frame pixels.
    public var centerX: Double
    public var centerY: Double
    /// Side of the upright face square, frame pixels.
    public var size: Double
    /// Degrees, positive clockwise as displayed; nil when unknown.
    public var roll: Double?
    /// Coarse yaw in degrees (0, 45, 90, 270, 315); nil when unknown.
    public var yaw: Double?
    /// Found only by the profile cascade (its box is less reliable: half-occluded frontal faces fire too).
    public var isProfile: Bool
    /// How the detector's raw box (`centerX`, `centerY`, `size`) maps to the face square.
    public var calibration: FaceBoxCalibration

    public init(
        centerX: Double, centerY: Double, size: Double, roll: Double? = nil, yaw: Double? = nil,
        isProfile: Bool = false,
        calibration: FaceBoxCalibration = .identity
    ) {
        self.centerX = centerX
        self.centerY = centerY
        self.size = size
        self.roll = roll
        self.yaw = yaw
        self.isProfile = isProfile
        self.calibration = calibration
    }

    /// The face square (forehead to chin, cheek to cheek: the frontal Haar box convention) in frame pixels: centre and side, after calibration.
    /// Upright: rotating it by `roll` about its centre lines it up with the face.
    public var faceSquare: (centerX: Double, centerY: Double, side: Double) {
        let a = (roll ?? 0) * .pi / 180
        let d = calibration.shiftDown * size
        return (centerX - sin(a) * d, centerY + cos(a) * d, size * calibration.scale)
    }

    /// The upright face square, normalized device coordinates of a frame of `frameSize`.
    public func bounds(in frameSize: PixelSize) -> NormalizedRect {
        let q = faceSquare
        return NormalizedRect(
            x: (q.centerX - q.side / 2) / Double(frameSize.width),
            y: (q.centerY - q.side / 2) / Double(frameSize.height),
            width: q.side / Double(frameSize.width), height: q.side / Double(frameSize.height))
    }
}

/// The loaded CenterFace network (`centerface.onnx`). Owns its handle; not thread-safe.
final class CenterFaceNet {
    let handle: OpaquePointer
    let path: String
    private var results = [scv_face_hit](repeating: scv_face_hit(), count: 64)

    /// - Throws: ``ScanError/model(file:reason:)`` naming `path` when it is missing or not a CenterFace network.
    init(path: String) throws {
        var message = [CChar](repeating: 0, count: 512)
        var out: OpaquePointer?
        let status = scv_face_net_load(path, &out, &message, message.count)
        guard status == SCV_OK, let out else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ScanError.model(file: path, reason: reason.isEmpty ? "cannot load the network" : reason)
        }
        handle = out
        self.path = path
    }

    deinit { scv_face_net_free(handle) }

    /// Makes the network for `width`×`height` (multiples of 32) ready and runs it once, so the first frame that
    /// needs that size does not pay for it.
    func prepare(width: Int, height: Int) throws {
        let status = scv_face_net_prepare(handle, Int32(width), Int32(height))
        guard status == SCV_OK else {
            throw ScanError.detector("face network \(path): OpenCV failed (status \(status.rawValue))")
        }
    }

    /// Faces on a packed `width`×`height` luma buffer (multiples of 32), boxes and landmarks in its pixels.
    func detect(_ pixels: [UInt8], width: Int, height: Int, threshold: Double) throws -> [scv_face_hit] {
        var count: Int32 = 0
        let capacity = Int32(results.count)
        let status = pixels.withUnsafeBufferPointer { px in
            results.withUnsafeMutableBufferPointer { out in
                scv_face_net_detect(
                    handle, px.baseAddress, Int32(width), Int32(height), Int32(width), Float(threshold),
                    out.baseAddress, capacity, &count)
            }
        }
        guard status == SCV_OK else {
            throw ScanError.detector("face network \(path): OpenCV failed (status \(status.rawValue))")
        }
        return Array(results.prefix(Int(min(count, capacity))))
    }
}

/// One loaded OpenCV cascade. Owns its handle; not thread-safe.
package final class Cascade {
    let handle: OpaquePointer
    let path: String
    /// Training window side (the larger of width and height), pixels.
    let window: Int
    private var results = [scv_rect](repeating: scv_rect(), count: 128)

    /// - Throws: ``ScanError/model(file:reason:)`` naming `path` when it is missing or not a cascade.
    package init(path: String) throws {
        var message = [CChar](repeating: 0, count: 512)
        var out: OpaquePointer?
        let status = scv_cascade_load(path, &out, &message, message.count)
        guard status == SCV_OK, let out else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ScanError.model(file: path, reason: reason.isEmpty ? "cannot load cascade" : reason)
        }
        handle = out
        self.path = path
        var w: Int32 = 0
        var h: Int32 = 0
        scv_cascade_window(out, &w, &h)
        window = Int(max(w, h, 1))
    }

    deinit { scv_cascade_free(handle) }

    /// Detections (pixel rectangles of `pixels`, a packed `width`×`height` buffer).
    package func detect(
        _ pixels: [UInt8], width: Int, height: Int, stride: Int? = nil, scaleFactor: Double,
        minNeighbors: Int, minSize: Int, maxSize: Int
    ) throws -> [scv_rect] {
        var count: Int32 = 0
        let capacity = Int32(results.count)
        let status = pixels.withUnsafeBufferPointer { px in
            results.withUnsafeMutableBufferPointer { out in
                scv_cascade_detect(
                    handle, px.baseAddress, Int32(width), Int32(height), Int32(stride ?? width),
                    scaleFactor, Int32(minNeighbors), Int32(minSize), Int32(maxSize),
                    out.baseAddress, capacity, &count)
            }
        }
        guard status == SCV_OK else {
            throw ScanError.detector("cascade \(path): OpenCV failed (status \(status.rawValue))")
        }
        return Array(results.prefix(Int(min(count, capacity))))
    }
}

/// A rotated, scaled view of part of a frame, with the mapping back to frame pixels.
struct RotatedView {
    var pixels: [UInt8]
    let width: Int
    let height: Int
    /// Frame point shown at the view's centre.
    let centerX: Double, centerY: Double
    /// Degrees the frame was turned counter-clockwise as displayed (a face rolled clockwise by `angle` is upright).
    let angle: Double
    /// View pixels per frame pixel.
    let scale: Double

    /// Renders the view. Pixels outside the frame repeat the frame's edge (`fill` nil, for the cascades, which
    /// were tuned so) or are the grey level `fill` (the network: a face cut by the frame's edge stays a cut
    /// face, which it finds; smeared edge rows hid such faces in the window search, `bench/faces` edge clip).
    init(
        _ luma: LumaPlane, centerX: Double, centerY: Double, angle: Double, scale: Double, width: Int, height: Int,
        fill: UInt8? = nil
    ) throws {
        self.width = width
        self.height = height
        self.centerX = centerX
        self.centerY = centerY
        self.angle = angle
        self.scale = scale
        var out = [UInt8](repeating: 0, count: width * height)
        let status = luma.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                scv_rotate_region(
                    src.baseAddress, Int32(luma.width), Int32(luma.height), Int32(luma.stride),
                    centerX, centerY, angle, scale, dst.baseAddress, Int32(width), Int32(height),
                    fill.map { Int32($0) } ?? -1)
            }
        }
        guard status == SCV_OK else {
            throw ScanError.detector("rotating a \(luma.width)x\(luma.height) region failed")
        }
        pixels = out
    }

    /// Frame pixel of view pixel (x, y).
    func framePoint(x: Double, y: Double) -> (x: Double, y: Double) {
        let dx = x - Double(width) / 2
        let dy = y - Double(height) / 2
        let a = angle * .pi / 180
        let c = cos(a)
        let s = sin(a)
        return (centerX + (c * dx - s * dy) / scale, centerY + (s * dx + c * dy) / scale)
    }

    /// Mirrors the view left to right in place.
    mutating func mirror() {
        for row in 0..<height {
            var lo = row * width
            var hi = lo + width - 1
            while lo < hi {
                pixels.swapAt(lo, hi)
                lo += 1
                hi -= 1
            }
        }
    }
}

/// Finds faces with OpenCV cascades (`AVMetadataFaceObject`): a frontal cascade on the frame and on copies
/// rotated by ±``FaceConfiguration/rollSearchAngle`` (faces rolled up to ±45°), roll from the eye pair,
/// yaw from the profile cascade and its mirror. Owns its cascade handles; use from one thread at a time.
///
/// ``detect(in:rectOfInterest:)`` searches the whole frame and reports faces without `faceID`;
/// ``FaceTracker`` adds stable IDs and the cheaper window search around known faces.
public final class FaceDetector {
    public let configuration: FaceConfiguration
    let frontal: Cascade
    let profile: Cascade?
    let eyes: Cascade?
    /// The neural network when ``FaceConfiguration/detector`` is `.centerface` and its model loaded.
    let net: CenterFaceNet?
    /// Why the neural detector is not used although it was asked for (the model file is missing or
    /// unreadable); the cascades of ``FaceConfiguration/cascade`` work instead. nil otherwise.
    public let fallbackReason: String?

    public var availableTypes: Set<MetadataObjectType> { [.face] }

    /// The detector actually in use (`.centerface`, or the cascade family after a fallback).
    public var activeKind: FaceDetectorKind {
        net != nil ? .centerface : (configuration.cascade == .haar ? .haar : .lbp)
    }

    /// Whether the neural network finds the faces (false: cascades, asked for or after a fallback).
    public var isNeural: Bool { net != nil }

    /// The neural model's file name inside the models directory.
    public static let neuralModelFile = "centerface.onnx"

    /// Loads the detector named by `configuration.detector` from `modelDirectory`: the neural model (falling
    /// back to the cascades of `configuration.cascade`, with ``fallbackReason`` set, when it cannot be loaded)
    /// or the cascades.
    /// - Throws: ``ScanError/model(file:reason:)`` naming the missing or corrupt cascade file.
    public convenience init(configuration: FaceConfiguration = FaceConfiguration(), modelDirectory: String) throws {
        let dir = modelDirectory.hasSuffix("/") ? modelDirectory : modelDirectory + "/"
        var c = configuration
        if let family = configuration.detector.cascade { c.cascade = family }
        let neural = configuration.detector == .centerface
        try self.init(
            configuration: c,
            frontalPath: dir + c.cascade.frontalFile,
            profilePath: c.estimateYaw ? dir + c.cascade.profileFile : nil,
            eyePath: c.eyeRoll ? dir + FaceCascade.eyeFile : nil,
            netPath: neural ? dir + Self.neuralModelFile : nil)
    }

    /// Loads explicit cascade files (profile and eyes optional) and, with `netPath`, the neural model; when
    /// the model cannot be loaded the cascades are used and ``fallbackReason`` says why. The profile and eye
    /// cascades are not loaded while the network works (its landmarks give roll and yaw).
    /// - Throws: ``ScanError/model(file:reason:)`` naming the missing or corrupt cascade file, or
    ///   ``ScanError/invalidArgument(_:)`` for an invalid configuration.
    public init(
        configuration: FaceConfiguration, frontalPath: String, profilePath: String?, eyePath: String?,
        netPath: String? = nil
    ) throws {
        if let problem = configuration.validationError { throw ScanError.invalidArgument(problem) }
        self.configuration = configuration
        var net: CenterFaceNet?
        var reason: String?
        if let netPath {
            do {
                net = try CenterFaceNet(path: netPath)
            } catch let ScanError.model(file, why) {
                reason =
                    "neural face model \(file): \(why); using the \(configuration.cascade.rawValue) cascades instead"
            }
        }
        self.net = net
        fallbackReason = reason
        frontal = try Cascade(path: frontalPath)
        profile = net == nil ? try profilePath.map { try Cascade(path: $0) } : nil
        eyes = net == nil ? try eyePath.map { try Cascade(path: $0) } : nil
    }

    /// Raw box → face square of each detector (see ``FaceBoxCalibration``), fitted by `bench/faces/calibrate.py` on
    /// the tuning photographs' `faceSquare` in `bench/faces/marks.json` (hopper and biden held out).
    public static func calibration(for kind: FaceDetectorKind) -> FaceBoxCalibration {
        switch kind {
        case .centerface: return FaceBoxCalibration(scale: 0.988, shiftDown: -0.072)
        case .haar: return FaceBoxCalibration(scale: 0.979, shiftDown: -0.002)
        case .lbp: return FaceBoxCalibration(scale: 1.466, shiftDown: -0.123)
        }
    }

    var cascadeCalibration: FaceBoxCalibration { Self.calibration(for: configuration.cascade == .haar ? .haar : .lbp) }

    /// Full-frame detection (no faceIDs), for still images: every frontal face within `rectOfInterest`
    /// (normalized device coordinates) with roll and yaw, plus (with ``FaceConfiguration/estimateYaw``) profile
    /// faces from the profile cascade and its mirror (yaw 90/270, roll unknown). Bounds are relative to the
    /// whole frame.
    public func detect(in frame: Frame, rectOfInterest: NormalizedRect = .unit) throws -> [MetadataObject] {
        if net != nil {
            return try detectFaces(in: frame.luma, rectOfInterest: rectOfInterest, still: true).map {
                MetadataObject(type: .face, bounds: $0.bounds(in: frame.size), rollAngle: $0.roll, yawAngle: $0.yaw)
            }
        }
        var faces = try detectFaces(in: frame.luma, rectOfInterest: rectOfInterest)
        for i in faces.indices {
            refineRoll(&faces[i], in: frame.luma)
            classifyYaw(&faces[i], in: frame.luma)
        }
        if configuration.estimateYaw {
            let region = PixelRect(covering: rectOfInterest.intersection(.unit), in: frame.size)
            if region.width >= 8, region.height >= 8 {
                faces = Self.suppressDuplicates(faces + (try detectProfiles(in: frame.luma, region: region)))
            }
        }
        return faces.map {
            MetadataObject(type: .face, bounds: $0.bounds(in: frame.size), rollAngle: $0.roll, yawAngle: $0.yaw)
        }
    }

    /// Scale at which a full frame is searched so the smallest wanted face fills the cascade window.
    var fullFrameScale: Double { min(1.0, Double(frontal.window) / Double(configuration.minimumFaceSize)) }

    /// The search angles (degrees) of full-frame detection number `cycle`: upright always; with
    /// ``FaceConfiguration/rollSearch`` both rotated copies when `cycle` is nil, otherwise one of them,
    /// alternating (so the cost per full search is two passes instead of three).
    public func searchAngles(cycle: Int?) -> [Double] {
        guard configuration.rollSearch else { return [0] }
        let a = configuration.rollSearchAngle
        guard let cycle else { return [0, -a, a] }
        return [0, cycle % 2 == 0 ? -a : a]
    }

    /// Frontal faces anywhere in `rectOfInterest`, searched on copies of the frame turned by `angles`
    /// (degrees; default: ``searchAngles(cycle:)`` with all angles). Roll is the search angle (coarse);
    /// call ``refineRoll(_:in:)``. `still`: the frame is a still image, searched at the network input size its
    /// smallest faces need (``neuralScale(longSide:still:)``) rather than a stream's.
    public func detectFaces(
        in luma: LumaPlane, rectOfInterest: NormalizedRect = .unit, angles: [Double]? = nil, still: Bool = false
    ) throws -> [FaceCandidate] {
        let region = PixelRect(covering: rectOfInterest.intersection(.unit), in: luma.size)
        guard region.width >= 8, region.height >= 8 else { return [] }
        let s = fullFrameScale
        let w = max(1, Int((Double(region.width) * s).rounded()))
        let h = max(1, Int((Double(region.height) * s).rounded()))
        let cx = Double(region.x) + Double(region.width) / 2
        let cy = Double(region.y) + Double(region.height) / 2
        let angles = angles ?? searchAngles(cycle: nil)
        if net != nil {
            return Self.suppressDuplicates(
                try angles.flatMap { try neuralFaces(in: luma, region: region, angle: $0, still: still) })
        }
        let minSize = max(frontal.window, Int((Double(configuration.minimumFaceSize) * s).rounded()))
        let maxSize = configuration.maximumFaceSize.map { max(minSize, Int(Double($0) * s)) } ?? 0
        var found: [FaceCandidate] = []
        for angle in angles {
            let view = try RotatedView(luma, centerX: cx, centerY: cy, angle: angle, scale: s, width: w, height: h)
            found += try frontalFaces(in: view, minSize: minSize, maxSize: maxSize, region: region)
        }
        return Self.suppressDuplicates(found)
    }

    /// The frontal cascade's hits on `view` (sizes in view pixels; 0: no maximum) as faces in frame pixels,
    /// roll = the view's angle; only faces centred inside `region` (frame pixels) are kept.
    func frontalFaces(in view: RotatedView, minSize: Int, maxSize: Int, region: PixelRect) throws
        -> [FaceCandidate]
    {
        let rects = try frontal.detect(
            view.pixels, width: view.width, height: view.height, scaleFactor: configuration.scaleFactor,
            minNeighbors: configuration.minNeighbors, minSize: minSize, maxSize: maxSize)
        return rects.compactMap { r in
            let p = view.framePoint(x: Double(r.x) + Double(r.width) / 2, y: Double(r.y) + Double(r.height) / 2)
            guard p.x >= Double(region.x), p.y >= Double(region.y),
                p.x < Double(region.x + region.width), p.y < Double(region.y + region.height)
            else { return nil }
            return FaceCandidate(
                centerX: p.x, centerY: p.y, size: Double(r.width) / view.scale, roll: view.angle, yaw: 0,
                calibration: cascadeCalibration)
        }
    }

    /// Merges detections of one face (from several search angles or windows): keeps the first of any
    /// pair whose centres lie within half a face of each other and whose sizes are within 1.6×.
    static func suppressDuplicates(_ faces: [FaceCandidate]) -> [FaceCandidate] {
        var kept: [FaceCandidate] = []
        for f in faces {
            let duplicate = kept.contains { k in
                hypot(k.centerX - f.centerX, k.centerY - f.centerY) < 0.5 * min(k.size, f.size)
                    && max(k.size, f.size) < 1.6 * min(k.size, f.size)
            }
            if !duplicate { kept.append(f) }
        }
        return kept
    }
}
