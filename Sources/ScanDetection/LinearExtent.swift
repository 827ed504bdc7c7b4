import ScanCore

/// The whole symbol of a 1-D read, from the scan line(s) it was read on.
///
/// zbar and zxing-cpp locate a linear code by the scan lines that decoded it: a box one pixel high when one
/// line read it, a few dozen pixels when several did. On the generated photos of seed 5353 such a box covered
/// a median of a fifth of the symbol (IoU with the printed symbol's box 0.0–0.67), so an outline drawn from it
/// was a line across the bars. AVFoundation's `bounds` of a barcode cover its bars; so do these, once extended:
/// the grey profile along the read's centre line is followed across the bars, both ways, while the profiles
/// still match it, allowing the bars to lean (a profile may slide up to four samples a coarse step, two a
/// fine one).
enum LinearExtent {
    /// Smallest normalized correlation between the profile one step further and the last one kept.
    static let minimumCorrelation = 0.6
    /// Smallest contrast (standard deviation of the profile) against the centre line's, as a fraction.
    static let minimumContrast = 0.4

    /// A point or a direction in frame pixels.
    typealias Point = (x: Double, y: Double)

    /// `corners` (normalized frame coordinates; top-left, top-right, bottom-right, bottom-left as read: the
    /// top edge runs along the reading direction) widened across the bars to where they end on `luma` (the
    /// whole frame). Returns `corners` unchanged when the read is too short to follow (under 16 pixels along
    /// the reading direction): zbar sometimes marks only one end of a symbol, a box a few pixels wide along its
    /// last bar (seed 5353 photo/029, a UPC-A 530 pixels long reported as 3×63), which says nothing of where
    /// the rest lies.
    static func extend(_ corners: [NormalizedPoint], on luma: LumaPlane) -> [NormalizedPoint] {
        guard corners.count == 4 else { return corners }
        let imageWidth = Double(luma.width)
        let imageHeight = Double(luma.height)
        let p = corners.map { (x: $0.x * imageWidth, y: $0.y * imageHeight) }
        // The centre line, from the start of the code (left edge's midpoint) to its end (right edge's).
        let a = (x: (p[0].x + p[3].x) / 2, y: (p[0].y + p[3].y) / 2)
        let b = (x: (p[1].x + p[2].x) / 2, y: (p[1].y + p[2].y) / 2)
        let length = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
        guard length >= 16 else { return corners }
        let u = (x: (b.x - a.x) / length, y: (b.y - a.y) / length)
        // Across the bars: the reading direction turned a quarter clockwise (down for an upright code).
        let v = (x: -u.y, y: u.x)
        // Never less than the box read: its own extent across the centre line.
        let offsets = p.map { ($0.x - a.x) * v.x + ($0.y - a.y) * v.y }
        let bars = Bars(
            luma: luma, u: u, v: v, length: length, step: max(1.0, length / 100),
            readDown: max(0, offsets.max() ?? 0), readUp: max(0, -(offsets.min() ?? 0)))
        // The bars' ends over each half of the code: on a photo in perspective the symbol's top and bottom
        // edges are not square to its bars, and the bars lean differently at each end.
        guard let left = bars.ends(from: a, span: length / 2),
            let right = bars.ends(from: (x: a.x + u.x * length / 2, y: a.y + u.y * length / 2), span: length / 2),
            let quad = outline(a: a, b: b, left: left, right: right)
        else { return corners }
        // A quad that folds over itself, or lies far outside the read, is a profile followed astray: keep the read.
        guard quad.allSatisfy({ abs(($0.x - a.x) * u.x + ($0.y - a.y) * u.y) <= 2 * length }) else { return corners }
        return quad.map { NormalizedPoint(x: min(max($0.x / imageWidth, 0), 1), y: min(max($0.y / imageHeight, 0), 1)) }
    }

    /// The symbol's four corners (frame pixels; top-left, top-right, bottom-right, bottom-left): the top edge
    /// through both halves' top bar ends, the bottom likewise, and the code's two ends (`a`, `b`: the centre
    /// line's ends) along the bars of their half. Nil when two of those lines are parallel.
    private static func outline(
        a: Point, b: Point, left: (top: Point, bottom: Point), right: (top: Point, bottom: Point)
    ) -> [Point]? {
        func direction(_ from: Point, _ to: Point) -> Point { (to.x - from.x, to.y - from.y) }
        let topEdge = direction(left.top, right.top)
        let bottomEdge = direction(left.bottom, right.bottom)
        let leftBars = direction(left.top, left.bottom)
        let rightBars = direction(right.top, right.bottom)
        guard let tl = meet(a, leftBars, left.top, topEdge), let bl = meet(a, leftBars, left.bottom, bottomEdge),
            let tr = meet(b, rightBars, left.top, topEdge), let br = meet(b, rightBars, left.bottom, bottomEdge)
        else { return nil }
        return [tl, tr, br, bl]
    }

    /// Where the line through `p` along `d` meets the line through `q` along `e` (nil when parallel).
    private static func meet(_ p: Point, _ d: Point, _ q: Point, _ e: Point) -> Point? {
        let det = d.x * e.y - d.y * e.x
        guard abs(det) > 1e-9 else { return nil }
        let t = ((q.x - p.x) * e.y - (q.y - p.y) * e.x) / det
        return (p.x + d.x * t, p.y + d.y * t)
    }

    /// One read's bars on `luma`, followed across its centre line (frame pixels): `u` is the reading direction
    /// (unit), `v` across the bars (unit), `length` the centre line's, `step` the fine step across, and
    /// `readDown`/`readUp` the read box's own extent across the centre line (the least a follow reports).
    private struct Bars {
        let luma: LumaPlane
        let u: Point
        let v: Point
        let length: Double
        let step: Double
        let readDown: Double
        let readUp: Double

        /// A stretch of the centre line's direction: `samples` greys `spacing` pixels apart from `start`.
        struct Stretch {
            let span: Double
            let samples: Int
            let spacing: Double
        }

        /// The grey profile along the stretch from `o`, or nil when the stretch leaves the frame.
        func profile(_ o: Point, _ stretch: Stretch) -> [Double]? {
            let imageWidth = Double(luma.width)
            let imageHeight = Double(luma.height)
            // A straight stretch lies inside the frame when both its ends do.
            let ex = o.x + u.x * stretch.span
            let ey = o.y + u.y * stretch.span
            guard min(o.x, ex) >= 0, min(o.y, ey) >= 0, max(o.x, ex) <= imageWidth - 1,
                max(o.y, ey) <= imageHeight - 1
            else { return nil }
            return luma.bytes.withUnsafeBufferPointer { pixels in
                (0..<stretch.samples).map { i in
                    bilinear(
                        pixels, width: luma.width, height: luma.height,
                        o.x + u.x * stretch.spacing * Double(i), o.y + u.y * stretch.spacing * Double(i))
                }
            }
        }

        /// The ends of the bars crossed by the centre line's stretch from `start`, `span` pixels long: the points
        /// on the stretch's middle bar where the bars stop, above and below (frame pixels), or nil.
        func ends(from start: Point, span: Double) -> (top: Point, bottom: Point)? {
            let samples = min(256, max(24, Int(span)))
            let stretch = Stretch(span: span, samples: samples, spacing: span / Double(samples - 1))
            guard let centre = profile(start, stretch) else { return nil }
            let centreContrast = deviation(centre)
            guard centreContrast > 2 else { return nil }
            var down = follow(1, from: start, stretch, centre: centre, centreContrast: centreContrast)
            var up = follow(-1, from: start, stretch, centre: centre, centreContrast: centreContrast)
            if down.across < readDown { down = (readDown, 0) }
            if up.across < readUp { up = (readUp, 0) }
            let mid = (x: start.x + u.x * span / 2, y: start.y + u.y * span / 2)
            return (
                (mid.x - v.x * up.across + u.x * up.along, mid.y - v.y * up.across + u.y * up.along),
                (mid.x + v.x * down.across + u.x * down.along, mid.y + v.y * down.across + u.y * down.along)
            )
        }

        /// Follows the bars from the stretch at `start` in direction `sign` (+1 along v, −1 against): how far
        /// across, and how far the bars slid along u on the way (pixels). Coarse steps first (a thirtieth of the
        /// code's length, the profile sliding up to four samples), then fine ones (``step``, two samples) from
        /// the last profile kept, to the bars' ends.
        func follow(
            _ sign: Double, from start: Point, _ stretch: Stretch, centre: [Double], centreContrast: Double
        ) -> (across: Double, along: Double) {
            var last = centre
            var kept = (across: 0.0, along: 0.0)
            var drift = 0.0
            for (stride, slides) in [(max(step, length / 30), 4), (step, 2)] {
                var d = kept.across + stride
                while d <= 2 * length {
                    var best = (corr: -1.0, shift: 0, profile: [Double]())
                    for shift in -slides...slides {
                        let slide = drift + Double(shift) * stretch.spacing
                        let o = (
                            x: start.x + sign * v.x * d + u.x * slide, y: start.y + sign * v.y * d + u.y * slide
                        )
                        guard let q = profile(o, stretch) else { continue }
                        let c = correlation(last, q)
                        if c > best.corr { best = (c, shift, q) }
                    }
                    guard best.corr >= minimumCorrelation,
                        deviation(best.profile) >= minimumContrast * centreContrast
                    else { break }
                    drift += Double(best.shift) * stretch.spacing
                    last = best.profile
                    kept = (d, drift)
                    d += stride
                }
            }
            return kept
        }
    }

    /// The grey at (`x`, `y`) of a plane `width` × `height` (pixels, inside it), interpolated between pixels.
    private static func bilinear(_ b: UnsafeBufferPointer<UInt8>, width: Int, height: Int, _ x: Double, _ y: Double)
        -> Double
    {
        let x0 = min(Int(x), width - 1)
        let y0 = min(Int(y), height - 1)
        let x1 = min(x0 + 1, width - 1)
        let y1 = min(y0 + 1, height - 1)
        let fx = x - Double(x0)
        let fy = y - Double(y0)
        let top = Double(b[y0 * width + x0]) * (1 - fx) + Double(b[y0 * width + x1]) * fx
        let bottom = Double(b[y1 * width + x0]) * (1 - fx) + Double(b[y1 * width + x1]) * fx
        return top * (1 - fy) + bottom * fy
    }

    private static func deviation(_ p: [Double]) -> Double {
        let mean = p.reduce(0, +) / Double(p.count)
        return (p.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(p.count)).squareRoot()
    }

    /// Pearson's correlation of two profiles of the same length (−1 when either is flat).
    private static func correlation(_ p: [Double], _ q: [Double]) -> Double {
        let n = Double(p.count)
        let mp = p.reduce(0, +) / n
        let mq = q.reduce(0, +) / n
        var spq = 0.0
        var spp = 0.0
        var sqq = 0.0
        for i in p.indices {
            let dp = p[i] - mp
            let dq = q[i] - mq
            spq += dp * dq
            spp += dp * dp
            sqq += dq * dq
        }
        guard spp > 0, sqq > 0 else { return -1 }
        return spq / (spp * sqq).squareRoot()
    }
}
