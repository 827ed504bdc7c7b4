import Foundation
import ScanCore

/// Tells a UPC-E symbol from the left half of an EAN-13/UPC-A that a reader took for one, by the bars on either
/// side of where the read ended.
///
/// A UPC-E's end guard (space, bar, space, bar, space, bar: six 1-module elements) is the EAN-13 centre guard
/// (five) plus the first bar of the right half when its first digit is 3–8, and the left half of an EAN-13 is
/// six digits in the parity patterns UPC-E uses for number system 1 (the EAN-13's first digit is that
/// UPC-E's check digit). So when the EAN-13 itself does not decode (blurred, damaged), its left half reads as
/// a UPC-E whenever the expanded UPC-A's check digit happens to agree: one time in ten. zbar checks no quiet
/// zone after an end guard, and zxing-cpp 3.1 reads such a UPC-E on a turned image. A real UPC-E ends in a
/// quiet zone (7 modules in GS1's specification); the inner one has the EAN-13's other half beyond it.
///
/// The test: on a line across the bars (``acrossBars(on:at:reading:radius:)``), and on one along the read,
/// through the point where the read ended (zbar: its scan line's last edge, which may be either end of the
/// symbol; zxing-cpp: both ends), the bars on each side are followed outward while each next bar is within
/// ``gapFactor`` times the median bar-to-bar distance. A real UPC-E has the whole symbol (17 bars) on one side
/// and at most its last guard bars on the other. At the inner end of an EAN-13's left half bars run on both
/// ways; at its outer end they run on for the EAN-13's 30 bars.
/// (Generated shelf frames: 11–13 bars on the shorter side at every inner end, 0–2 on the quiet side of every
/// right UPC-E read; docs/reader.md.)
enum RetailQuietZone {
    /// Bars in a row on the shorter side at which a UPC-E read counts as inside a longer symbol.
    static let minimumBarsOnBothSides = 6
    /// A bar further than this many median bar-to-bar distances from the last one ends the run.
    static let gapFactor = 2.0

    /// Dark runs (bars) on one line through a point, as distances in pixels from it along `direction`
    /// (`ahead`) and against it (`behind`), nearest first.
    struct Bars: Sendable, Equatable {
        var ahead: [Int]
        var behind: [Int]
        /// Pixels from the point to the plane's edge along the line, ahead and behind.
        var aheadRoom = Int.max
        var behindRoom = Int.max
    }

    /// The bars on the line through `point` (pixels of `plane`) along `direction` (any length). The profile
    /// is the mean of three parallel lines a pixel apart (nearest-neighbour samples, one per pixel of length);
    /// a sample is dark when it is below the midpoint of the darkest and lightest samples within `radius` of it
    /// along the line and that range is at least `minimumContrast` grey levels (a flat stretch is light).
    /// `radius` defaults to a 64th of the line's length, at least 12 pixels. nil when the point is off the
    /// plane or the line is too short.
    static func bars(
        on plane: LumaPlane, at point: (Double, Double), direction: (Double, Double), radius: Int? = nil,
        minimumContrast: Int = 24
    ) -> Bars? {
        let norm = (direction.0 * direction.0 + direction.1 * direction.1).squareRoot()
        guard norm > 0, point.0 >= 0, point.1 >= 0, point.0 < Double(plane.width), point.1 < Double(plane.height) else {
            return nil
        }
        let ux = direction.0 / norm
        let uy = direction.1 / norm
        // Samples at t = -back ... +front pixels from the point, while all three lines stay on the plane.
        func inside(_ t: Int) -> Bool {
            for k in -1...1 {
                let x = point.0 + Double(t) * ux - Double(k) * uy
                let y = point.1 + Double(t) * uy + Double(k) * ux
                if x < 0 || y < 0 || x > Double(plane.width - 1) || y > Double(plane.height - 1) { return false }
            }
            return true
        }
        guard inside(0) else { return nil }
        var back = 0
        var front = 0
        while inside(-(back + 1)) { back += 1 }
        while inside(front + 1) { front += 1 }
        let n = back + front + 1
        let r = radius ?? max(12, n / 64)
        guard n > 2 * r else { return nil }
        var profile = [Int](repeating: 0, count: n)
        plane.bytes.withUnsafeBufferPointer { b in
            for i in 0..<n {
                let t = Double(i - back)
                var sum = 0
                for k in -1...1 {
                    let x = Int((point.0 + t * ux - Double(k) * uy).rounded())
                    let y = Int((point.1 + t * uy + Double(k) * ux).rounded())
                    sum += Int(b[y * plane.stride + x])
                }
                profile[i] = sum
            }
        }
        // The envelope over the window, as a running minimum and maximum (O(n·radius): lines are a few
        // thousand samples at most, and this runs only for UPC-E reads).
        var dark = [Bool](repeating: false, count: n)
        for i in 0..<n {
            var lo = Int.max
            var hi = Int.min
            for j in max(0, i - r)...min(n - 1, i + r) {
                lo = min(lo, profile[j])
                hi = max(hi, profile[j])
            }
            dark[i] = hi - lo >= 3 * minimumContrast && 2 * profile[i] < lo + hi
        }
        var ahead: [Int] = []
        var behind: [Int] = []
        var start = 0
        for i in 1...n where i == n || dark[i] != dark[start] {
            if dark[start] {
                let d = (start + i - 1) / 2 - back
                if d >= 0 { ahead.append(d) } else { behind.append(-d) }
            }
            start = i
        }
        behind.reverse()
        return Bars(ahead: ahead, behind: behind, aheadRoom: front, behindRoom: back)
    }

    /// How many bars run on from the point on one side (`distances` nearest first), each within `gap` pixels
    /// of the last (the first within `gap` of the point).
    static func run(_ distances: [Int], gap: Double) -> Int {
        var count = 0
        var last = 0
        for d in distances {
            guard Double(d - last) <= gap else { break }
            count += 1
            last = d
        }
        return count
    }

    /// Whether `bars` look like a point on a symbol longer than a UPC-E: bars run on for at least
    /// ``minimumBarsOnBothSides`` on both sides (a point inside it), or for at least ``maximumUPCEBars`` on one
    /// side (a UPC-E has 17 bars, an EAN-13 30: the point is at the outer end of an EAN-13). A bar-to-bar
    /// distance is "near" up to ``gapFactor`` times the median one among the 12 nearest bars of each side.
    /// With `edgeCounts`, also when the bars on one side run on to the plane's edge (the last of the run, or
    /// the point, within one median bar-to-bar distance of it): no quiet zone can be seen there, and the read may be the
    /// inner part of a symbol the edge cuts (a panning clip: an EAN-13's right half with the edge across its
    /// left half, read as a UPC-E on 6 frames).
    static func longerSymbol(_ bars: Bars, edgeCounts: Bool = false) -> Bool {
        var steps: [Int] = []
        for side in [bars.ahead, bars.behind] {
            let near = side.prefix(12)
            steps += zip(near, near.dropFirst()).map { $1 - $0 }
        }
        guard !steps.isEmpty else { return false }
        steps.sort()
        let median = Double(steps[steps.count / 2])
        let gap = gapFactor * median
        let a = run(bars.ahead, gap: gap)
        let b = run(bars.behind, gap: gap)
        if edgeCounts {
            // The next bar would lie past the edge: closer to it than one median bar-to-bar distance (a real
            // UPC-E's 7-module quiet zone is about two).
            let lastAhead = a > 0 ? bars.ahead[a - 1] : 0
            let lastBehind = b > 0 ? bars.behind[b - 1] : 0
            if Double(bars.aheadRoom - lastAhead) < median || Double(bars.behindRoom - lastBehind) < median {
                return true
            }
        }
        return min(a, b) >= minimumBarsOnBothSides || max(a, b) >= maximumUPCEBars
    }
    /// Bars in a run on one side at which the symbol counts as longer than a UPC-E (17 bars; blur merges bars
    /// and glare splits them: a right UPC-E read on a glare frame ran to 24 on one of its three lines).
    static let maximumUPCEBars = 24

    /// Whether a UPC-E read lies inside a longer symbol. `ends` are points (pass pixels) where the read's lines
    /// end, at either end of the symbol (zbar's scan lines end where they finish decoding, which is the symbol's
    /// start for a line read backwards), and `direction` is along the symbol. The points are grouped by end
    /// (along `direction`, more than ``endSeparation`` pixels apart); at each end up to three points (the
    /// outermost two and the middle one across the symbol) are looked at, and an end where most of them find
    /// a longer symbol (``longerSymbol(_:)``) marks the read: a real UPC-E has a quiet zone beyond both ends and
    /// 17 bars between them. Through each point two lines are followed, across the bars
    /// (``acrossBars(on:at:reading:radius:)``) and along `direction`, and either one finding a longer symbol
    /// counts: where a symbol's bars lean off the perpendicular of its rows (perspective), the line across them
    /// from a point near its top or bottom edge slants off the symbol after a UPC-E's length, while the read's
    /// own line stays on its rows (never-seen shelf frame 7401/092 under ffmpeg noise, docs/reader.md); where
    /// a reader's line crosses the bars at a slant (zxing-cpp on a turned image), the line across them stays on.
    /// With `edgeCounts` (streams), an end whose bars run on to the plane's edge counts as inside a longer
    /// symbol (``longerSymbol(_:edgeCounts:)``): the code will be read whole once it is further in view.
    static func insideLongerSymbol(
        on plane: LumaPlane, ends: [(Double, Double)], direction: (Double, Double),
        edgeCounts: Bool = false
    ) -> Bool {
        let along = { (p: (Double, Double)) in p.0 * direction.0 + p.1 * direction.1 }
        let across = { (p: (Double, Double)) in p.1 * direction.0 - p.0 * direction.1 }
        let norm = (direction.0 * direction.0 + direction.1 * direction.1).squareRoot()
        guard norm > 0, !ends.isEmpty else { return false }
        var groups: [[(Double, Double)]] = []
        for p in ends.sorted(by: { along($0) < along($1) }) {
            if let last = groups.last?.last, (along(p) - along(last)) / norm <= endSeparation {
                groups[groups.count - 1].append(p)
            } else {
                groups.append([p])
            }
        }
        for group in groups {
            let sorted = group.sorted { across($0) < across($1) }
            var looked = 0
            var inside = 0
            for k in Set([0, sorted.count / 2, sorted.count - 1]).sorted() {
                let p = sorted[k]
                let acrossLine = acrossBars(on: plane, at: p, reading: direction)
                let lines = (acrossLine == direction ? [direction] : [acrossLine, direction]).compactMap {
                    bars(on: plane, at: p, direction: $0)
                }
                guard !lines.isEmpty else { continue }
                looked += 1
                if lines.contains(where: { longerSymbol($0, edgeCounts: edgeCounts) }) { inside += 1 }
            }
            if looked > 0, 2 * inside > looked { return true }
        }
        return false
    }
    /// The direction across the bars around `point` (pixels of `plane`): the dominant gradient direction of
    /// the pixels within `radius` (a structure tensor of central differences), signed to agree with `reading`.
    /// `reading` itself when the gradients do not agree on one direction (coherence below 0.5) or the window is
    /// off the plane. A scan line may cross a tilted symbol at a slant and leave it through the ends of its
    /// bars (zxing-cpp reading the 45° turned image of an upright code): the profile is taken across the bars
    /// instead, so it meets the rest of a longer symbol.
    static func acrossBars(on plane: LumaPlane, at point: (Double, Double), reading: (Double, Double), radius: Int = 10)
        -> (Double, Double)
    {
        let cx = Int(point.0.rounded())
        let cy = Int(point.1.rounded())
        guard cx - radius >= 1, cy - radius >= 1, cx + radius < plane.width - 1, cy + radius < plane.height - 1 else {
            return reading
        }
        var xx = 0.0
        var yy = 0.0
        var xy = 0.0
        plane.bytes.withUnsafeBufferPointer { b in
            for y in (cy - radius)...(cy + radius) {
                for x in (cx - radius)...(cx + radius) {
                    let gx = Double(Int(b[y * plane.stride + x + 1]) - Int(b[y * plane.stride + x - 1]))
                    let gy = Double(Int(b[(y + 1) * plane.stride + x]) - Int(b[(y - 1) * plane.stride + x]))
                    xx += gx * gx
                    yy += gy * gy
                    xy += gx * gy
                }
            }
        }
        let trace = xx + yy
        guard trace > 0 else { return reading }
        let coherence = ((xx - yy) * (xx - yy) + 4 * xy * xy).squareRoot() / trace
        guard coherence >= 0.5 else { return reading }
        let angle = 0.5 * atan2(2 * xy, xx - yy)
        var d = (cos(angle), sin(angle))
        if d.0 * reading.0 + d.1 * reading.1 < 0 { d = (-d.0, -d.1) }
        return d
    }

    /// Points further apart than this along the symbol (pixels) belong to different ends.
    static let endSeparation = 8.0

    /// The reading direction (pass pixels) of a zbar read with orientation `orientation` (`zbar_orientation_t`:
    /// 0 up, read left to right; 1 right, top to bottom; 2 down, right to left; 3 left, bottom to top). nil
    /// when zbar does not know it.
    static func direction(zbarOrientation orientation: Int) -> (Double, Double)? {
        switch orientation {
        case 0: (1, 0)
        case 1: (0, 1)
        case 2: (-1, 0)
        case 3: (0, -1)
        default: nil
        }
    }
}
