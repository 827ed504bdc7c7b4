public import ScanCore
import ScanDetection

/// The naive pipeline a user would write by hand, kept as the benchmark's baseline: every full frame
/// through `zbar_scan_image` with zbar's default settings (ScanDetection's `NaiveZBarReader`), plus, when
/// faces are enabled, OpenCV's Haar default frontal cascade on the full frame (scale 1.1, min neighbours 3,
/// min size 30 px) with greedy IoU matching for IDs.
///
/// Not for production use: it exists so `scand bench` can report ratios against it in the same run.
public final class NaiveBaseline {
    private let codes: NaiveZBarReader?
    private let faces: NaiveFaceBaseline?

    /// - Parameters:
    ///   - codes: scan codes with default zbar.
    ///   - faceCascadePath: the Haar default cascade; nil to skip faces.
    public init(codes: Bool, faceCascadePath: String?) throws {
        self.codes = codes ? NaiveZBarReader() : nil
        faces = try faceCascadePath.map { try NaiveFaceBaseline(cascadePath: $0) }
    }

    /// One frame's objects (normalized device coordinates) and the seconds each half took.
    public struct Result: Sendable {
        public var objects: [MetadataObject]
        public var codeSeconds: Double
        public var faceSeconds: Double
    }

    /// Scans the whole frame. Geometry is normalized device coordinates.
    public func process(_ frame: Frame) throws -> Result {
        let t0 = MonotonicInstant.now
        var out = codes?.read(frame) ?? []
        let t1 = MonotonicInstant.now
        if let faces { out += try faces.process(frame) }
        let t2 = MonotonicInstant.now
        return Result(
            objects: out, codeSeconds: t0.duration(to: t1).inSeconds, faceSeconds: t1.duration(to: t2).inSeconds)
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// The baseline's faces: the Haar default cascade on every full frame (1.1, 3, min 30 px) and greedy IoU
/// matching (≥ 0.3) to the previous frame's faces for IDs.
final class NaiveFaceBaseline {
    private let cascade: Cascade
    private var previous: [(id: Int, box: NormalizedRect)] = []
    private var nextID = 1

    init(cascadePath: String) throws { cascade = try Cascade(path: cascadePath) }

    func process(_ frame: Frame) throws -> [MetadataObject] {
        let rects = try cascade.detect(
            frame.luma.bytes, width: frame.width, height: frame.height, stride: frame.luma.stride,
            scaleFactor: 1.1, minNeighbors: 3, minSize: 30, maxSize: 0)
        let frameWidth = Double(frame.width)
        let frameHeight = Double(frame.height)
        var boxes = rects.map {
            NormalizedRect(
                x: Double($0.x) / frameWidth, y: Double($0.y) / frameHeight, width: Double($0.width) / frameWidth,
                height: Double($0.height) / frameHeight)
        }
        var matched: [(id: Int, box: NormalizedRect)] = []
        var unused = previous
        // Greedy: best IoU pair first.
        while !boxes.isEmpty {
            var best: (Int, Int, Double)?
            for (i, b) in boxes.enumerated() {
                for (j, p) in unused.enumerated() {
                    let iou = b.iou(p.box)
                    if iou >= 0.3, iou > (best?.2 ?? 0) { best = (i, j, iou) }
                }
            }
            guard let (i, j, _) = best else { break }
            matched.append((unused[j].id, boxes[i]))
            boxes.remove(at: i)
            unused.remove(at: j)
        }
        for b in boxes {
            matched.append((nextID, b))
            nextID += 1
        }
        previous = matched
        return matched.map { MetadataObject(type: .face, bounds: $0.box, faceID: $0.id) }
    }
}
