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
        let step = max(1.0, length / 100)
        // Never less than the box read: its own extent across the centre line.
        let offsets = p.map { ($0.x - a.x) * v.x + ($0.y - a.y) * v.y }
        let readDown = max(0, offsets.max() ?? 0)
        let readUp = max(0, -(offsets.min() ?? 0))

        /// The ends of the bars crossed by the centre line's stretch from `start`, `span` pixels long: the points
        /// on the stretch's middle bar where the bars stop, above and below (frame pixels), or nil.
        func barEnds(from start: (x: Double, y: Double), span: Double) -> (
            top: (x: Double, y: Double), bottom: (x: Double, y: Double)
        )? {
            let samples = min(256, max(24, Int(span)))
            let spacing = span / Double(samples - 1)
            func profile(_ o: (x: Double, y: Double)) -> [Double]? {
                // A straight stretch lies inside the frame when both its ends do.
                let ex = o.x + u.x * span
                let ey = o.y + u.y * span
                guard min(o.x, ex) >= 0, min(o.y, ey) >= 0, max(o.x, ex) <= imageWidth - 1,
                    max(o.y, ey) <= imageHeight - 1
                else { return nil }
                return luma.bytes.withUnsafeBufferPointer { pixels in
                    (0..<samples).map { i in
                        bilinear(
                            pixels, width: luma.width, height: luma.height,
                            o.x + u.x * spacing * Double(i), o.y + u.y * spacing * Double(i))
                    }
                }
            }
            guard let centre = profile(start) else { return nil }
            let centreContrast = deviation(centre)
            guard centreContrast > 2 else { return nil }
            // Follows the bars in direction `sign` (+1 along v, −1 against): how far across, and how far the
            // bars slid along u on the way (pixels).
            // Coarse steps first (a thirtieth of the code's length, the profile sliding up to four samples),
            // then fine ones (a hundredth, two samples) from the last profile kept, to the bars' ends.
            func follow(_ sign: Double) -> (across: Double, along: Double) {
                var last = centre
                var kept = (across: 0.0, along: 0.0)
                var drift = 0.0
                for (stride, slides) in [(max(step, length / 30), 4), (step, 2)] {
                    var d = kept.across + stride
                    while d <= 2 * length {
                        var best = (corr: -1.0, shift: 0, profile: [Double]())
                        for shift in -slides...slides {
                            let slide = drift + Double(shift) * spacing
                            let o = (
                                x: start.x + sign * v.x * d + u.x * slide, y: start.y + sign * v.y * d + u.y * slide
                            )
                            guard let q = profile(o) else { continue }
                            let c = correlation(last, q)
                            if c > best.corr { best = (c, shift, q) }
                        }
                        guard best.corr >= minimumCorrelation,
                            deviation(best.profile) >= minimumContrast * centreContrast
                        else { break }
                        drift += Double(best.shift) * spacing
                        last = best.profile
                        kept = (d, drift)
                        d += stride
                    }
                }
                return kept
            }
            var down = follow(1)
            var up = follow(-1)
            if down.across < readDown { down = (readDown, 0) }
            if up.across < readUp { up = (readUp, 0) }
            let mid = (x: start.x + u.x * span / 2, y: start.y + u.y * span / 2)
            return (
                (mid.x - v.x * up.across + u.x * up.along, mid.y - v.y * up.across + u.y * up.along),
                (mid.x + v.x * down.across + u.x * down.along, mid.y + v.y * down.across + u.y * down.along)
            )
        }
        // The bars' ends over each half of the code: on a photo in perspective the symbol's top and bottom
        // edges are not square to its bars, and the bars lean differently at each end.
        guard let left = barEnds(from: a, span: length / 2),
            let right = barEnds(from: (x: a.x + u.x * length / 2, y: a.y + u.y * length / 2), span: length / 2)
        else { return corners }
        /// Where the line through `p` along `d` meets the line through `q` along `e` (nil when parallel).
        func meet(
            _ p: (x: Double, y: Double), _ d: (x: Double, y: Double), _ q: (x: Double, y: Double),
            _ e: (x: Double, y: Double)
        ) -> (x: Double, y: Double)? {
            let det = d.x * e.y - d.y * e.x
            guard abs(det) > 1e-9 else { return nil }
            let t = ((q.x - p.x) * e.y - (q.y - p.y) * e.x) / det
            return (p.x + d.x * t, p.y + d.y * t)
        }
        func direction(_ from: (x: Double, y: Double), _ to: (x: Double, y: Double)) -> (x: Double, y: Double) {
            (to.x - from.x, to.y - from.y)
        }
        // Edges: the top through both halves' top ends, the bottom likewise, and the code's two ends (a, b)
        // along the bars of their half.
        let topEdge = direction(left.top, right.top)
        let bottomEdge = direction(left.bottom, right.bottom)
        let leftBars = direction(left.top, left.bottom)
        let rightBars = direction(right.top, right.bottom)
        guard let tl = meet(a, leftBars, left.top, topEdge), let bl = meet(a, leftBars, left.bottom, bottomEdge),
            let tr = meet(b, rightBars, left.top, topEdge), let br = meet(b, rightBars, left.bottom, bottomEdge)
        else { return corners }
        let quad = [tl, tr, br, bl]
        // A quad that folds over itself, or lies far outside the read, is a profile followed astray: keep the read.
        guard quad.allSatisfy({ abs(($0.x - a.x) * u.x + ($0.y - a.y) * u.y) <= 2 * length }) else { return corners }
        return quad.map { NormalizedPoint(x: min(max($0.x / imageWidth, 0), 1), y: min(max($0.y / imageHeight, 0), 1)) }
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
