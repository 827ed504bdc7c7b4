internal import CScanOpenCV
internal import Foundation
public import ScanCore

extension FaceDetector {
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
}
