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
            return try detectFaces(in: frame.luma, rectOfInterest: rectOfInterest).map {
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
    /// call ``refineRoll(_:in:)``.
    public func detectFaces(in luma: LumaPlane, rectOfInterest: NormalizedRect = .unit, angles: [Double]? = nil) throws
        -> [FaceCandidate]
    {
        let region = PixelRect(covering: rectOfInterest.intersection(.unit), in: luma.size)
        guard region.width >= 8, region.height >= 8 else { return [] }
        let s = fullFrameScale
        let w = max(1, Int((Double(region.width) * s).rounded()))
        let h = max(1, Int((Double(region.height) * s).rounded()))
        let cx = Double(region.x) + Double(region.width) / 2
        let cy = Double(region.y) + Double(region.height) / 2
        let angles = angles ?? searchAngles(cycle: nil)
        if net != nil {
            return Self.suppressDuplicates(try angles.flatMap { try neuralFaces(in: luma, region: region, angle: $0) })
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
    private func frontalFaces(in view: RotatedView, minSize: Int, maxSize: Int, region: PixelRect) throws
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

    // MARK: Neural detector

    /// Neural faces centred inside `region` (frame pixels) of `luma`, searched on a copy turned by `angle`
    /// degrees and scaled so its longer side is ``FaceConfiguration/neuralInputWidth`` (at most 1:1).
    func neuralFaces(in luma: LumaPlane, region: PixelRect, angle: Double) throws -> [FaceCandidate] {
        guard let net else { return [] }
        let longSide = Double(max(region.width, region.height))
        let s = min(1.0, Double(configuration.neuralInputWidth) / longSide)
        let w = Self.roundUp32(Double(region.width) * s)
        let h = Self.roundUp32(Double(region.height) * s)
        let view = try RotatedView(
            luma, centerX: Double(region.x) + Double(region.width) / 2,
            centerY: Double(region.y) + Double(region.height) / 2, angle: angle, scale: s, width: w, height: h,
            fill: Self.neuralFill)
        return try net.detect(view.pixels, width: w, height: h, threshold: configuration.neuralThreshold).compactMap {
            hit in
            let c = candidate(from: hit, in: view)
            guard c.centerX >= Double(region.x), c.centerY >= Double(region.y),
                c.centerX < Double(region.x + region.width), c.centerY < Double(region.y + region.height)
            else { return nil }
            return c
        }
    }

    /// Re-detects a known face with the network in a window of 2.2 face sizes around `predicted`, turned
    /// upright by its roll and scaled to 96×96, with a lower score threshold (0.6 × ``FaceConfiguration/neuralThreshold``:
    /// a face is expected there). Faces within 0.7 face sizes of the prediction, nearest first.
    func neuralSearch(around predicted: FaceCandidate, in luma: LumaPlane) throws -> [FaceCandidate] {
        guard let net else { return [] }
        let side = 96
        let k = Double(side) / (2.2 * max(predicted.size, 8))
        let view = try RotatedView(
            luma, centerX: predicted.centerX, centerY: predicted.centerY, angle: predicted.roll ?? 0,
            scale: k, width: side, height: side, fill: Self.neuralFill)
        let found = try net.detect(
            view.pixels, width: side, height: side, threshold: 0.6 * configuration.neuralThreshold
        ).map {
            candidate(from: $0, in: view)
        }
        return nearestFirst(
            found.filter {
                hypot($0.centerX - predicted.centerX, $0.centerY - predicted.centerY) < 0.7 * predicted.size
                    && $0.size < 2 * predicted.size && $0.size > 0.5 * predicted.size
            }, to: predicted)
    }

    /// A network hit on `view` as a face in frame pixels: coarse yaw from how far the nose lies from the
    /// box centre (``yaw(noseOffset:)``), roll from the eye line (the view's angle for faces turned 90°, whose
    /// eye landmarks are unreliable).
    func candidate(from hit: scv_face_hit, in view: RotatedView) -> FaceCandidate {
        let bx = Double(hit.x) + Double(hit.width) / 2
        let by = Double(hit.y) + Double(hit.height) / 2
        let p = view.framePoint(x: bx, y: by)
        let sizeView = (Double(hit.width) * Double(hit.height)).squareRoot()
        let m = hit.landmarks
        let lx = Double(m.0)
        let ly = Double(m.1)
        let rx = Double(m.2)
        let ry = Double(m.3)
        let nx = Double(m.4)
        let yaw = Self.yaw(noseOffset: (nx - bx) / max(sizeView, 1))
        var roll = view.angle
        if (yaw == 0 || yaw == 45 || yaw == 315) && rx > lx {
            roll = view.angle + atan2(ry - ly, rx - lx) * 180 / .pi
        }
        return FaceCandidate(
            centerX: p.x, centerY: p.y, size: sizeView / view.scale, roll: roll, yaw: yaw,
            calibration: Self.calibration(for: .centerface))
    }

    /// AVFoundation's coarse yaw from the nose tip's offset from the centre of the network's box, in box
    /// sides (positive: toward the image's right with the face upright): 0 below 0.1, 45/315 below 0.2,
    /// 90/270 beyond. Frontal faces measure at most ±0.07, skimage's cameraman (turned right) 0.26–0.39
    /// (`bench/faces`); a face turned to the image's right (nose right) gets 45/90, as the profile cascade's.
    static func yaw(noseOffset r: Double) -> Double {
        let a = abs(r)
        if a < 0.1 { return 0 }
        if a < 0.2 { return r > 0 ? 45 : 315 }
        return r > 0 ? 90 : 270
    }

    /// Grey level the network's views show outside the frame. Mid-grey against the edge-replicating border:
    /// window-search recall on the `bench/faces` edge clip 0.643 → 1.000 (black: 0.973), held-out `scale_h`
    /// 0.893 → 0.947.
    static let neuralFill: UInt8 = 128

    static func roundUp32(_ v: Double) -> Int { max(32, (Int(v.rounded(.up)) + 31) / 32 * 32) }

    /// One piece of the full-frame search of a stream, which ``FaceTracker`` spreads over
    /// ``FaceConfiguration/detectionInterval`` frames so no frame pays for a whole search.
    ///
    /// A search at one angle is split by face size: the `coarse` job looks for faces of at least twice the
    /// smallest size on a half-size copy (cheap), the `strip` jobs for the small faces (the expensive part of
    /// the pyramid) on vertical strips of the full-size copy that overlap by more than the largest face they
    /// look for, so every face lies wholly inside some strip.
    public struct SearchJob: Sendable, Hashable {
        public enum Part: Sendable, Hashable {
            case coarse
            case strip(Int, of: Int)
        }
        /// Degrees the frame is turned for this job (see ``searchAngles(cycle:)``).
        public var angle: Double
        public var part: Part
    }

    /// Frame pixels per analysis pixel on a stream: frames whose shorter side exceeds
    /// ``FaceConfiguration/analysisShortSide`` are searched on a copy scaled down to it.
    func analysisScale(for size: PixelSize) -> Double {
        guard let side = configuration.analysisShortSide, side > 0 else { return 1 }
        return min(1, Double(side) / Double(max(1, min(size.width, size.height))))
    }

    /// The geometry shared by the jobs of a stream search over `region` (frame pixels).
    struct JobGeometry {
        let region: PixelRect  // frame pixels searched
        let scale: Double  // view pixels per frame pixel (fine jobs)
        let width: Int, height: Int
        let centerX: Double, centerY: Double
        let minSize: Int, fineMaxSize: Int, maxSize: Int
        let strips: Int, stripWidth: Int
        /// Whether any face is large enough for the coarse job (no maximum, or one above the strips' range).
        var hasCoarse: Bool { maxSize == 0 || maxSize > fineMaxSize }
    }

    func jobGeometry(frameSize: PixelSize, rectOfInterest: NormalizedRect) -> JobGeometry? {
        let region = PixelRect(covering: rectOfInterest.intersection(.unit), in: frameSize)
        guard region.width >= 8, region.height >= 8 else { return nil }
        let s = fullFrameScale * analysisScale(for: frameSize)
        let w = max(1, Int((Double(region.width) * s).rounded()))
        let h = max(1, Int((Double(region.height) * s).rounded()))
        let minSize = max(frontal.window, Int((Double(configuration.minimumFaceSize) * fullFrameScale).rounded()))
        let maxSize = configuration.maximumFaceSize.map { max(minSize, Int(Double($0) * s)) } ?? 0
        var fineMax = Int((Double(minSize) * 2.3).rounded())
        if maxSize > 0 { fineMax = min(fineMax, maxSize) }
        let strips = max(1, Int((Double(w) / 320).rounded(.up)))
        let overlap = fineMax + 4
        let stripWidth = strips == 1 ? w : min(w, (w + (strips - 1) * overlap + strips - 1) / strips)
        return JobGeometry(
            region: region, scale: s, width: w, height: h,
            centerX: Double(region.x) + Double(region.width) / 2, centerY: Double(region.y) + Double(region.height) / 2,
            minSize: minSize, fineMaxSize: fineMax, maxSize: maxSize, strips: strips, stripWidth: stripWidth)
    }

    /// Every job of a complete search at every angle of ``searchAngles(cycle:)`` with `cycle` nil (the first
    /// frame of a stream): per angle, the coarse job, then the strips.
    public func allSearchJobs(frameSize: PixelSize, rectOfInterest: NormalizedRect = .unit) -> [SearchJob] {
        guard let g = jobGeometry(frameSize: frameSize, rectOfInterest: rectOfInterest) else { return [] }
        return searchAngles(cycle: nil).flatMap { angle in
            (g.hasCoarse ? [SearchJob(angle: angle, part: .coarse)] : [])
                + (0..<g.strips).map { SearchJob(angle: angle, part: .strip($0, of: g.strips)) }
        }
    }

    /// The jobs of frame number `n` (counted from 0 at the start of the source) of a stream whose full
    /// search is spread over `interval` frames.
    ///
    /// Large faces (at least twice the smallest size) are cheap to find, so the coarse job runs on every
    /// other frame: upright on frames 0, 4, 8 …, the rotated copies in turn on frames 2, 6, 10 … (a large
    /// face anywhere is found within 4 frames upright, within 8 when rolled). The strips (small faces) of the upright copy
    /// and of one rotated copy (alternating between cycles, as ``searchAngles(cycle:)``) are spread over the
    /// `interval` frames of each cycle, on the frames without a coarse job first (at 720p, interval 8: six
    /// strips on frames 1, 3, 5, 7, 0, 2), so each frame costs about one job.
    public func streamSearchJobs(
        frame n: Int, interval: Int, frameSize: PixelSize,
        rectOfInterest: NormalizedRect = .unit
    ) -> [SearchJob] {
        guard let g = jobGeometry(frameSize: frameSize, rectOfInterest: rectOfInterest) else { return [] }
        var jobs: [SearchJob] = []
        // Which frames run a coarse job: every other one, or every one at interval 1 (the whole search on
        // every frame: the benchmark's full-frame reference), at the same angles as the strips.
        let coarseOn = { (frame: Int) in g.hasCoarse && (interval <= 1 || frame % 2 == 0) }
        if coarseOn(n) && interval <= 1 {
            jobs += searchAngles(cycle: n).map { SearchJob(angle: $0, part: .coarse) }
        } else if coarseOn(n) {
            let rotated = searchAngles(cycle: nil).dropFirst()
            let angle = n % 4 == 0 || rotated.isEmpty ? 0 : Array(rotated)[(n / 4) % rotated.count]
            jobs.append(SearchJob(angle: angle, part: .coarse))
        }
        let interval = max(1, interval)
        let strips = searchAngles(cycle: n / interval).flatMap { angle in
            (0..<g.strips).map { SearchJob(angle: angle, part: .strip($0, of: g.strips)) }
        }
        // The strips go to the frames of the cycle that have no coarse job first, then round again, so no
        // frame pays for a coarse job and a strip while another frame of the cycle does nothing.
        let position = n % interval
        let cycleStart = n - position
        let slots =
            (0..<interval).filter { !coarseOn(cycleStart + $0) } + (0..<interval).filter { coarseOn(cycleStart + $0) }
        guard let rank = slots.firstIndex(of: position) else { return jobs }
        return jobs + stride(from: rank, to: strips.count, by: interval).map { strips[$0] }
    }

    /// Runs one job of a stream search over `rectOfInterest` (normalized device coordinates) of `luma`.
    /// Returns frontal faces (frame pixels; roll is the job's angle, coarse: call ``refineRoll(_:in:)``).
    public func run(_ job: SearchJob, in luma: LumaPlane, rectOfInterest: NormalizedRect = .unit) throws
        -> [FaceCandidate]
    {
        guard let g = jobGeometry(frameSize: luma.size, rectOfInterest: rectOfInterest) else { return [] }
        let region = g.region
        // The job's view: the whole search view (coarse, at half scale) or a strip of it.
        let view: RotatedView
        let minSize: Int
        let maxSize: Int
        let scale: Double
        switch job.part {
        case .coarse:
            scale = g.scale / 2
            let w = max(1, g.width / 2)
            let h = max(1, g.height / 2)
            view = try RotatedView(
                luma, centerX: g.centerX, centerY: g.centerY, angle: job.angle, scale: scale, width: w, height: h)
            minSize = g.minSize  // faces of at least twice the smallest size (the strips look up to 2.3×)
            maxSize = g.maxSize > 0 ? max(minSize, g.maxSize / 2) : 0
        case .strip(let i, let n):
            scale = g.scale
            let x0 = n == 1 ? 0 : i * (g.width - g.stripWidth) / (n - 1)
            // Centre of the strip in the whole view, mapped back to the frame.
            let dx = Double(x0) + Double(g.stripWidth) / 2 - Double(g.width) / 2
            let a = job.angle * .pi / 180
            let cx = g.centerX + cos(a) * dx / scale
            let cy = g.centerY + sin(a) * dx / scale
            view = try RotatedView(
                luma, centerX: cx, centerY: cy, angle: job.angle, scale: scale, width: g.stripWidth, height: g.height)
            minSize = g.minSize
            maxSize = g.fineMaxSize
        }
        return try frontalFaces(in: view, minSize: minSize, maxSize: maxSize, region: region)
    }

    /// Re-detects a known face in a window around `predicted` (frame pixels; its roll, when known, turns
    /// the window upright). Tries the predicted roll, then ±15°, then the profile cascade and its mirror.
    /// Returns every face found in the window (frame pixels), nearest first.
    public func search(around predicted: FaceCandidate, in luma: LumaPlane) throws -> [FaceCandidate] {
        if net != nil { return try neuralSearch(around: predicted, in: luma) }
        let target = max(Double(frontal.window) * 1.3, 36)
        let k = target / max(predicted.size, 1)
        let side = Int((target * 2.0).rounded())
        let minSize = max(frontal.window, Int(target * 0.72))
        let maxSize = Int(target * 1.45)
        let roll = predicted.roll ?? 0
        var angles = [roll]
        if configuration.rollSearch { angles += [roll - 15, roll + 15] }
        for angle in angles where abs(angle) <= 60 {
            let view = try RotatedView(
                luma, centerX: predicted.centerX, centerY: predicted.centerY,
                angle: angle, scale: k, width: side, height: side)
            let rects = try frontal.detect(
                view.pixels, width: side, height: side, scaleFactor: 1.08,
                minNeighbors: max(2, configuration.minNeighbors - 1), minSize: minSize, maxSize: maxSize)
            if !rects.isEmpty {
                return nearestFirst(
                    rects.map { r in
                        let p = view.framePoint(
                            x: Double(r.x) + Double(r.width) / 2, y: Double(r.y) + Double(r.height) / 2)
                        return FaceCandidate(
                            centerX: p.x, centerY: p.y, size: Double(r.width) / k, roll: angle, yaw: 0,
                            calibration: cascadeCalibration)
                    }, to: predicted)
            }
        }
        if let profile, configuration.estimateYaw {
            let pTarget = max(Double(profile.window) * 1.3, 36)
            let pk = pTarget / max(predicted.size, 1)
            let pSide = Int((pTarget * 2.0).rounded())
            let view = try RotatedView(
                luma, centerX: predicted.centerX, centerY: predicted.centerY,
                angle: roll, scale: pk, width: pSide, height: pSide)
            if let (rect, mirrored) = try profileSide(view, cascade: profile, target: pTarget) {
                var x = Double(rect.x) + Double(rect.width) / 2
                if mirrored == true { x = Double(pSide) - x }
                let p = view.framePoint(x: x, y: Double(rect.y) + Double(rect.height) / 2)
                return [
                    FaceCandidate(
                        centerX: p.x, centerY: p.y, size: Double(max(rect.width, rect.height)) / pk,
                        roll: roll, yaw: mirrored.map(Self.profileYaw(mirrored:)), isProfile: true)
                ]
            }
        }
        return []
    }

    /// Which side the profile cascade sees in `view`: the best hit on the view as it is (`mirrored` false)
    /// or on its mirror image (`mirrored` true; the rectangle is in mirrored coordinates). When both sides
    /// fire, the side that still fires with more min neighbours wins; still tied: the plain hit with
    /// `mirrored` nil (side unknown). nil when the profile cascade finds nothing.
    func profileSide(_ view: RotatedView, cascade: Cascade, target: Double) throws -> (scv_rect, Bool?)? {
        var mirroredView = view
        mirroredView.mirror()
        let minSize = max(cascade.window, Int(target * 0.7))
        let maxSize = Int(target * 1.5)
        var tie: scv_rect?
        for neighbours in [configuration.minNeighbors, 6, 10, 15, 20] {
            let plain = try cascade.detect(
                view.pixels, width: view.width, height: view.height, scaleFactor: 1.08,
                minNeighbors: neighbours, minSize: minSize, maxSize: maxSize)
            let mirrored = try cascade.detect(
                mirroredView.pixels, width: view.width, height: view.height, scaleFactor: 1.08,
                minNeighbors: neighbours, minSize: minSize, maxSize: maxSize)
            switch (plain.first, mirrored.first) {
            case (nil, nil): return nil
            case (let p?, nil): return (p, false)
            case (nil, let m?): return (m, true)
            case (let p?, _?): tie = p
            }
        }
        return tie.map { ($0, nil) }
    }

    /// OpenCV's Haar profile cascade responds to faces turned to the image's left (the nose points left;
    /// checked on skimage's cameraman, who faces right and fires more strongly mirrored), so a hit on the
    /// mirrored picture is a face turned to the image's right.
    static func profileYaw(mirrored: Bool) -> Double { mirrored ? 90 : 270 }

    /// Replaces the coarse roll of a frontal face by the eye-pair angle (within ±25° of it); unchanged when
    /// two eyes are not found or eye roll is off.
    public func refineRoll(_ face: inout FaceCandidate, in luma: LumaPlane) {
        guard let eyes, configuration.eyeRoll, face.yaw == 0 || face.yaw == nil else { return }
        let base = face.roll ?? 0
        // The eye band: from 0.45 of the face above the centre to 0.1 below, along the face's own axis.
        let faceSide = 120.0
        let k = faceSide / max(face.size, 1)
        let a = base * .pi / 180
        let up = 0.175 * face.size
        let qx = face.centerX + sin(a) * up
        let qy = face.centerY - cos(a) * up
        let w = Int(faceSide)
        let h = Int(faceSide * 0.55)
        guard let view = try? RotatedView(luma, centerX: qx, centerY: qy, angle: base, scale: k, width: w, height: h),
            let rects = try? eyes.detect(
                view.pixels, width: w, height: h, scaleFactor: 1.1, minNeighbors: 3,
                minSize: max(eyes.window, Int(faceSide * 0.15)), maxSize: Int(faceSide * 0.42))
        else { return }
        let centres = rects.map {
            (x: Double($0.x) + Double($0.width) / 2, y: Double($0.y) + Double($0.height) / 2, s: Double($0.width))
        }
        var best: (score: Double, angle: Double)?
        for i in centres.indices {
            for j in centres.indices where centres[j].x > centres[i].x {
                let l = centres[i]
                let r = centres[j]
                let dx = r.x - l.x
                let dy = r.y - l.y
                guard dx > faceSide * 0.25, dx < faceSide * 0.7, l.x < faceSide * 0.55, r.x > faceSide * 0.45,
                    max(l.s, r.s) < 1.6 * min(l.s, r.s)
                else { continue }
                let angle = atan2(dy, dx) * 180 / .pi
                guard abs(angle) <= 25 else { continue }
                let score = abs(dx - faceSide * 0.42) / faceSide + abs((l.x + r.x) / 2 - faceSide / 2) / faceSide
                if best == nil || score < best!.score { best = (score, angle) }
            }
        }
        if let best { face.roll = base + best.angle }
    }

    /// For a frontal face, reports 45/315 when the profile cascade (or its mirror) also fires on it.
    public func classifyYaw(_ face: inout FaceCandidate, in luma: LumaPlane) {
        guard let profile, configuration.estimateYaw, face.yaw == 0 else { return }
        let target = max(Double(profile.window) * 1.4, 40)
        let k = target / max(face.size, 1)
        let side = Int((target * 1.5).rounded())
        guard
            let view = try? RotatedView(
                luma, centerX: face.centerX, centerY: face.centerY, angle: face.roll ?? 0,
                scale: k, width: side, height: side),
            let (_, side) = try? profileSide(view, cascade: profile, target: target), let mirrored = side
        else { return }
        face.yaw = mirrored ? 45 : 315
    }

    /// Profile faces on the whole frame (still images): the profile cascade on the frame and its mirror.
    func detectProfiles(in luma: LumaPlane, region: PixelRect) throws -> [FaceCandidate] {
        guard let profile else { return [] }
        let s = min(1.0, Double(profile.window) / Double(configuration.minimumFaceSize))
        let w = max(1, Int((Double(region.width) * s).rounded()))
        let h = max(1, Int((Double(region.height) * s).rounded()))
        let cx = Double(region.x) + Double(region.width) / 2
        let cy = Double(region.y) + Double(region.height) / 2
        let view = try RotatedView(luma, centerX: cx, centerY: cy, angle: 0, scale: s, width: w, height: h)
        var mirroredView = view
        mirroredView.mirror()
        let minSize = max(profile.window, Int(Double(configuration.minimumFaceSize) * s))
        var found: [FaceCandidate] = []
        for (v, mirrored) in [(view, false), (mirroredView, true)] {
            for r in try profile.detect(
                v.pixels, width: w, height: h, scaleFactor: configuration.scaleFactor,
                minNeighbors: configuration.minNeighbors + 2, minSize: minSize, maxSize: 0)
            {
                var x = Double(r.x) + Double(r.width) / 2
                if mirrored { x = Double(w) - x }
                let p = view.framePoint(x: x, y: Double(r.y) + Double(r.height) / 2)
                found.append(
                    FaceCandidate(
                        centerX: p.x, centerY: p.y, size: Double(r.width) / s, roll: nil, yaw: nil, isProfile: true))
            }
        }
        // Decide each face's side on a window around it (both sides often fire on a three-quarter view).
        return try Self.suppressDuplicates(found).compactMap { f in
            let target = max(Double(profile.window) * 1.4, 40)
            let k = target / max(f.size, 1)
            let side = Int((target * 2).rounded())
            let v = try RotatedView(
                luma, centerX: f.centerX, centerY: f.centerY, angle: 0, scale: k, width: side, height: side)
            guard let (_, side) = try profileSide(v, cascade: profile, target: target) else { return nil }
            var out = f
            out.yaw = side.map(Self.profileYaw(mirrored:))
            return out
        }
    }

    private func nearestFirst(_ faces: [FaceCandidate], to p: FaceCandidate) -> [FaceCandidate] {
        faces.sorted {
            hypot($0.centerX - p.centerX, $0.centerY - p.centerY)
                < hypot($1.centerX - p.centerX, $1.centerY - p.centerY)
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
