/// A point in normalized device coordinates: 0...1 across the frame as captured,
/// origin at the top-left, x to the right, y down. Values outside 0...1 are legal
/// (they describe places outside the captured picture) and are never clamped.
public struct NormalizedPoint: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle in normalized device coordinates (see ``NormalizedPoint``).
/// `x`/`y` is the top-left corner; `width`/`height` are fractions of the frame size.
public struct NormalizedRect: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole frame, `(0, 0, 1, 1)`: the default `rectOfInterest`.
    public static let unit = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var isEmpty: Bool { !(width > 0 && height > 0) }
    public var area: Double { isEmpty ? 0 : width * height }

    /// The four corners, clockwise as displayed from the top-left:
    /// top-left, top-right, bottom-right, bottom-left.
    public var corners: [NormalizedPoint] {
        [
            NormalizedPoint(x: minX, y: minY), NormalizedPoint(x: maxX, y: minY),
            NormalizedPoint(x: maxX, y: maxY), NormalizedPoint(x: minX, y: maxY),
        ]
    }

    /// The smallest rectangle containing every point (empty at the origin when there are none).
    public init(boundingPoints points: [NormalizedPoint]) {
        guard let first = points.first else {
            self.init(x: 0, y: 0, width: 0, height: 0)
            return
        }
        var lo = first
        var hi = first
        for p in points.dropFirst() {
            lo.x = Swift.min(lo.x, p.x)
            lo.y = Swift.min(lo.y, p.y)
            hi.x = Swift.max(hi.x, p.x)
            hi.y = Swift.max(hi.y, p.y)
        }
        self.init(x: lo.x, y: lo.y, width: hi.x - lo.x, height: hi.y - lo.y)
    }

    /// The overlap with `other`, or an empty rectangle when they do not overlap.
    public func intersection(_ other: NormalizedRect) -> NormalizedRect {
        let x0 = Swift.max(minX, other.minX)
        let y0 = Swift.max(minY, other.minY)
        let x1 = Swift.min(maxX, other.maxX)
        let y1 = Swift.min(maxY, other.maxY)
        guard x1 > x0, y1 > y0 else { return NormalizedRect(x: x0, y: y0, width: 0, height: 0) }
        return NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle containing both.
    public func union(_ other: NormalizedRect) -> NormalizedRect {
        let x0 = Swift.min(minX, other.minX)
        let y0 = Swift.min(minY, other.minY)
        let x1 = Swift.max(maxX, other.maxX)
        let y1 = Swift.max(maxY, other.maxY)
        return NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Grown on every side by `fraction` of its longer side (normalized units), so the margin follows the
    /// symbol's size, not the frame's.
    public func widened(by fraction: Double) -> NormalizedRect {
        let m = Swift.max(width, height) * fraction
        return NormalizedRect(x: x - m, y: y - m, width: width + 2 * m, height: height + 2 * m)
    }

    /// Intersection over union, 0...1.
    public func iou(_ other: NormalizedRect) -> Double {
        let inter = intersection(other).area
        let union = area + other.area - inter
        return union > 0 ? inter / union : 0
    }

    /// Whether the rectangle lies within the unit square and is not empty.
    public var isValidRectOfInterest: Bool {
        !isEmpty && minX >= 0 && minY >= 0 && maxX <= 1 + 1e-12 && maxY <= 1 + 1e-12
    }
}

/// A size in frame pixels.
public struct PixelSize: Hashable, Sendable, Codable {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A rectangle in frame pixels: integer pixel indices, origin top-left of the frame as captured.
public struct PixelRect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The pixel rectangle covering `rect` in a frame of `size`, rounded outward and clipped to the frame.
    public init(covering rect: NormalizedRect, in size: PixelSize) {
        let x0 = Swift.max(0, Int((rect.minX * Double(size.width)).rounded(.down)))
        let y0 = Swift.max(0, Int((rect.minY * Double(size.height)).rounded(.down)))
        let x1 = Swift.min(size.width, Int((rect.maxX * Double(size.width)).rounded(.up)))
        let y1 = Swift.min(size.height, Int((rect.maxY * Double(size.height)).rounded(.up)))
        self.init(x: x0, y: y0, width: Swift.max(0, x1 - x0), height: Swift.max(0, y1 - y0))
    }

    /// The same rectangle in normalized device coordinates of a frame of `size`.
    public func normalized(in size: PixelSize) -> NormalizedRect {
        NormalizedRect(
            x: Double(x) / Double(size.width), y: Double(y) / Double(size.height),
            width: Double(width) / Double(size.width), height: Double(height) / Double(size.height))
    }
}

/// A point in view coordinates: points (pixels of the consumer's preview), origin top-left of the view.
public struct ViewPoint: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A size in view points.
public struct ViewSize: Hashable, Sendable, Codable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A rectangle in view coordinates (points, origin top-left of the view).
public struct ViewRect: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }

    /// Corners clockwise from the top-left, as ``NormalizedRect/corners``.
    public var corners: [ViewPoint] {
        [
            ViewPoint(x: minX, y: minY), ViewPoint(x: maxX, y: minY),
            ViewPoint(x: maxX, y: maxY), ViewPoint(x: minX, y: maxY),
        ]
    }

    /// The smallest rectangle containing every point.
    public init(boundingPoints points: [ViewPoint]) {
        guard let first = points.first else {
            self.init(x: 0, y: 0, width: 0, height: 0)
            return
        }
        var lo = first
        var hi = first
        for p in points.dropFirst() {
            lo.x = Swift.min(lo.x, p.x)
            lo.y = Swift.min(lo.y, p.y)
            hi.x = Swift.max(hi.x, p.x)
            hi.y = Swift.max(hi.y, p.y)
        }
        self.init(x: lo.x, y: lo.y, width: hi.x - lo.x, height: hi.y - lo.y)
    }
}
