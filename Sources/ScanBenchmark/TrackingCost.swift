import Foundation
import ScanCore
import ScanDetection
import ScanOutput

/// What the code tracker (``CodeTracker``, `trackID`) costs a frame with many codes in view (issue 50's target:
/// 50 codes, at most 1 ms a frame), beside the same run's baseline: encoding those objects as the frame's JSON
/// line, which every frame with them pays anyway.
public enum TrackingCost {
    /// Medians over the runs, microseconds a frame.
    public struct Result: Sendable {
        public var codes: Int
        public var frames: Int
        public var trackerMicroseconds: Double
        public var encodeMicroseconds: Double
        /// Tracks the tracker ended with (one per code when every code kept its track).
        public var tracks: Int
    }

    /// Runs `codes` identical EAN-13 symbols on a grid of a 1920×1080 frame, swaying a few pixels a frame and
    /// each unread on one frame in five (seeded), for `frames` frames, `runs` times.
    public static func measure(codes: Int = 50, frames: Int = 600, runs: Int = 5) -> Result {
        let payload = Array("9506000134352".utf8)
        let columns = max(1, Int(Double(codes).squareRoot().rounded(.up)))
        var state: UInt64 = 50
        func draw() -> UInt64 {  // SplitMix64
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let scenes: [[MetadataObject]] = (0..<frames).map { f in
            (0..<codes).compactMap { k -> MetadataObject? in
                if f > 0 && draw() % 5 == 0 { return nil }
                let x = Double(k % columns) * 180 + 50 + 30 * sin(Double(f) / 20)
                let y = Double(k / columns) * 120 + 30 + 10 * cos(Double(f) / 25)
                return MetadataObject(
                    type: .ean13,
                    bounds: NormalizedRect(x: x / 1920, y: y / 1080, width: 100 / 1920, height: 60 / 1080),
                    stringValue: "9506000134352", payload: payload)
            }
        }
        var tracker: [Double] = []
        var encode: [Double] = []
        var tracks = 0
        let encoder = JSONLinesEncoder()
        for _ in 0..<runs {
            let t = CodeTracker()
            var tracked: [[MetadataObject]] = []
            tracked.reserveCapacity(frames)
            let start = MonotonicInstant.now
            for (f, objects) in scenes.enumerated() {
                tracked.append(t.update(objects, source: "bench", time: Double(f) / 30, width: 1920, height: 1080))
            }
            let mid = MonotonicInstant.now
            var bytes = 0
            for (f, objects) in tracked.enumerated() {
                let event = MetadataEvent(
                    source: "bench", frame: f, time: Double(f) / 30, width: 1920, height: 1080, objects: objects)
                bytes += encoder.encode(.metadata(event)).line.count
            }
            let end = MonotonicInstant.now
            precondition(bytes > 0)
            tracks = t.trackCount
            tracker.append(Double(start.duration(to: mid).nanoseconds) / 1000 / Double(frames))
            encode.append(Double(mid.duration(to: end).nanoseconds) / 1000 / Double(frames))
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        return Result(
            codes: codes, frames: frames, trackerMicroseconds: median(tracker), encodeMicroseconds: median(encode),
            tracks: tracks)
    }
}
