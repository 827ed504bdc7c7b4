import Foundation
public import ScanCore

/// Drawing on an annotated picture.
extension RGBImage {
    /// Sets one pixel (frame pixels); points outside the picture are ignored.
    mutating func plot(_ x: Int, _ y: Int, _ c: (UInt8, UInt8, UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = c.0
        pixels[i + 1] = c.1
        pixels[i + 2] = c.2
    }

    /// Draws a line from `a` to `b` (frame pixels, fractional allowed) `thickness` pixels wide.
    mutating func line(from a: (Double, Double), to b: (Double, Double), thickness: Int, color: (UInt8, UInt8, UInt8)) {
        let dx = b.0 - a.0
        let dy = b.1 - a.1
        let steps = max(1, Int(max(abs(dx), abs(dy)).rounded(.up)))
        let r = thickness / 2
        for i in 0...steps {
            let t = Double(i) / Double(steps)
            let x = Int((a.0 + dx * t).rounded())
            let y = Int((a.1 + dy * t).rounded())
            for oy in -r...r { for ox in -r...r { plot(x + ox, y + oy, color) } }
        }
    }
}

/// Draws detections onto pictures: code outlines through their `corners`, face boxes turned by their
/// `rollAngle`. The picture is the frame as captured, so device coordinates are used (normalized 0…1 of the
/// frame, scaled to its pixels); no preview geometry applies.
public enum Annotator {
    /// Outline colour of machine-readable codes (green) and faces (orange).
    static let codeColor: (UInt8, UInt8, UInt8) = (0, 230, 64)
    static let faceColor: (UInt8, UInt8, UInt8) = (255, 140, 0)

    /// The four corners (frame pixels) of the box to draw for `object`: a code's own `corners` (its
    /// bounds when it has fewer than 3), or a face's bounds turned by its roll about the box centre
    /// (degrees, positive clockwise as displayed).
    public static func outline(of object: MetadataObject, frameSize: PixelSize) -> [(Double, Double)] {
        let w = Double(frameSize.width)
        let h = Double(frameSize.height)
        if object.type != .face, object.corners.count >= 3 {
            return object.corners.map { ($0.x * w, $0.y * h) }
        }
        let b = object.bounds
        let box = [(b.x, b.y), (b.x + b.width, b.y), (b.x + b.width, b.y + b.height), (b.x, b.y + b.height)]
            .map { ($0.0 * w, $0.1 * h) }
        guard let roll = object.rollAngle, roll != 0 else { return box }
        let cx = (b.x + b.width / 2) * w
        let cy = (b.y + b.height / 2) * h
        let a = roll * Double.pi / 180
        let c = cos(a)
        let s = sin(a)
        return box.map { p in
            let x = p.0 - cx
            let y = p.1 - cy
            return (cx + x * c - y * s, cy + x * s + y * c)
        }
    }

    /// `luma` with `objects` drawn (lines about 0.4 % of the picture's larger side, at least 2 pixels).
    public static func annotate(_ luma: LumaPlane, objects: [MetadataObject]) -> RGBImage {
        var image = RGBImage(luma: luma)
        let thickness = max(2, max(luma.width, luma.height) / 250)
        for object in objects {
            let pts = outline(of: object, frameSize: luma.size)
            guard pts.count >= 2 else { continue }
            let color = object.type == .face ? faceColor : codeColor
            for i in 0..<pts.count {
                image.line(from: pts[i], to: pts[(i + 1) % pts.count], thickness: thickness, color: color)
            }
        }
        return image
    }
}
