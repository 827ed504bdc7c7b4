public import ScanCore

// MARK: Preview geometry per frame size

struct FrameSizeSettings {
    var geometry: PreviewGeometry?
    var rectOfInterest: NormalizedRect
}

extension MetadataOutput {
    /// The preview geometry for frames of `frameSize`, or nil when no preview is configured.
    public func previewGeometry(forFrameSize frameSize: PixelSize) -> PreviewGeometry? {
        configuration.preview?.geometry(frameSize: frameSize)
    }

    /// The rect of interest (normalized device coordinates) used on frames of `frameSize`: ``OutputConfiguration/rectOfInterest``,
    /// or ``OutputConfiguration/rectOfInterestView`` converted for that frame size and intersected with the frame.
    /// - Throws: ``ScanError/invalidArgument(_:)`` when the view rectangle shows no part of such a frame
    ///   (it lies entirely in letterbox bars).
    public func rectOfInterest(forFrameSize frameSize: PixelSize) throws -> NormalizedRect {
        try frameSizeSettings(for: frameSize, source: nil).rectOfInterest
    }

    func frameSizeSettings(for size: PixelSize, source: SourceInfo?) throws -> FrameSizeSettings {
        if let cached = perFrameSize[size] { return cached }
        let geometry = previewGeometry(forFrameSize: size)
        var roi = configuration.rectOfInterest
        if let viewRect = configuration.rectOfInterestView, let geometry {
            roi = geometry.deviceRect(fromViewRect: viewRect).intersection(.unit)
            if roi.isEmpty {
                let prefix = source.map { "\($0.name): " } ?? ""
                throw ScanError.invalidArgument(
                    "\(prefix)rect of interest view \(Self.text(viewRect)) (view points) shows no part of a \(size.width)x\(size.height) frame: it lies outside the picture, in letterbox bars"
                )
            }
        }
        let settings = FrameSizeSettings(geometry: geometry, rectOfInterest: roi)
        if perFrameSize.count >= 16 { perFrameSize.removeAll() }
        perFrameSize[size] = settings
        return settings
    }

    static func text(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    static func text(_ r: ViewRect) -> String {
        [r.x, r.y, r.width, r.height].map { text($0) }.joined(separator: ",")
    }

    static func validatePreview(_ configuration: OutputConfiguration) throws {
        if let preview = configuration.preview {
            let s = preview.viewSize
            guard s.width.isFinite, s.height.isFinite, s.width > 0, s.height > 0 else {
                throw ScanError.invalidArgument("view size must be positive, got \(text(s.width))x\(text(s.height))")
            }
        }
        guard let r = configuration.rectOfInterestView else { return }
        guard let preview = configuration.preview else {
            throw ScanError.invalidArgument("a rect of interest in view coordinates needs a view size")
        }
        guard configuration.rectOfInterest == .unit else {
            throw ScanError.invalidArgument(
                "set either a rect of interest (device) or a rect of interest view, not both")
        }
        let s = preview.viewSize
        let eps = 1e-9
        guard [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite), r.width > 0, r.height > 0,
            r.minX >= -eps, r.minY >= -eps, r.maxX <= s.width + eps, r.maxY <= s.height + eps
        else {
            throw ScanError.invalidArgument(
                "rect of interest view must be a non-empty rectangle inside the \(text(s.width))x\(text(s.height)) view, got \(text(r))"
            )
        }
    }
}
