import ScanCapture
import ScanCore

/// What every still-image target checks of `ImageSource(name:bytes:limits:)`: a decoded image has a size
/// above zero and within `limits`, a luma plane of exactly W×H bytes and one frame only; `also` adds a
/// target's own check. An error for bad input is the expected outcome.
enum StillImageCheck {
    static func run(_ data: UnsafeBufferPointer<UInt8>, name: String, limits: DecoderLimits,
                    also: (ImageSource, LumaPlane) -> Void = { _, _ in }) {
        do {
            let source = try ImageSource(name: name, bytes: Array(data), limits: limits)
            guard let frame = try source.nextFrame() else { fatalError("a decoded image gave no frame") }
            let plane = frame.luma
            fuzzCheck(plane.width > 0 && plane.height > 0, "decoded size \(plane.width)x\(plane.height)")
            fuzzCheck(plane.width * plane.height <= limits.maxPixels, "decoded \(plane.width)x\(plane.height) over the budget")
            fuzzCheck(plane.bytes.count == plane.width * plane.height, "luma holds \(plane.bytes.count) bytes for \(plane.width)x\(plane.height)")
            also(source, plane)
            fuzzCheck(try source.nextFrame() == nil, "a still image gave a second frame")
        } catch {
            // A clear error for bad input is the expected outcome.
        }
    }
}
