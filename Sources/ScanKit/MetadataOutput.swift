public import ScanCore
import ScanDetection
import ScanCapture

/// What the pipeline does with each frame (`AVCaptureMetadataOutput`'s settings).
public struct OutputConfiguration: Sendable {
    /// Enabled types (`metadataObjectTypes`).
    public var metadataObjectTypes: Set<MetadataObjectType>
    /// Only this part of the frame is scanned (`rectOfInterest`, normalized device coordinates).
    public var rectOfInterest: NormalizedRect
    public var barcode: BarcodeConfiguration
    public var models: ModelConfiguration
    /// The consumer's preview (`AVCaptureVideoPreviewLayer`): when set, every object gets its `view`
    /// geometry, computed with ``PreviewGeometry`` for the size of the frame it was found on.
    public var preview: PreviewConfiguration?
    /// Scan only the part of the picture shown in this rectangle of the preview (view points).
    /// Needs ``preview``; replaces ``rectOfInterest`` (set one or the other). Converted per frame size with
    /// ``PreviewGeometry/deviceRect(fromViewRect:)`` and intersected with the frame.
    public var rectOfInterestView: ViewRect?

    public init(metadataObjectTypes: Set<MetadataObjectType> = MetadataOutput.defaultTypes,
                rectOfInterest: NormalizedRect = .unit,
                barcode: BarcodeConfiguration = BarcodeConfiguration(),
                models: ModelConfiguration = ModelConfiguration(),
                preview: PreviewConfiguration? = nil,
                rectOfInterestView: ViewRect? = nil) {
        self.metadataObjectTypes = metadataObjectTypes
        self.rectOfInterest = rectOfInterest
        self.barcode = barcode
        self.models = models
        self.preview = preview
        self.rectOfInterestView = rectOfInterestView
    }
}

/// Runs the detectors on frames and produces one ``MetadataEvent`` per frame
/// (`AVCaptureMetadataOutput`). Owns its detectors; use from one thread at a time.
public final class MetadataOutput {
    /// Every type this build can report (`availableMetadataObjectTypes`).
    public static var availableMetadataObjectTypes: Set<MetadataObjectType> { BarcodeDetector.zbarTypes }

    /// Types enabled when none are chosen: every code type.
    public static var defaultTypes: Set<MetadataObjectType> { BarcodeDetector.zbarTypes }

    public let configuration: OutputConfiguration
    private let barcodes: BarcodeDetector?
    /// Preview geometry and rect of interest per frame size (sources rarely change size, so this stays tiny).
    private var perFrameSize: [PixelSize: FrameSizeSettings] = [:]

    /// - Throws: ``ScanError`` when a type is unavailable or a model cannot be loaded.
    public init(configuration: OutputConfiguration) throws {
        self.configuration = configuration
        let unavailable = configuration.metadataObjectTypes.subtracting(Self.availableMetadataObjectTypes)
        if !unavailable.isEmpty {
            throw ScanError.invalidArgument("not available in this build: \(unavailable.sorted().map(\.rawValue).joined(separator: ","))")
        }
        guard configuration.rectOfInterest.isValidRectOfInterest else {
            throw ScanError.invalidArgument("rect of interest must be a non-empty rectangle inside 0...1")
        }
        try Self.validatePreview(configuration)
        let codeTypes = configuration.metadataObjectTypes.filter(\.isMachineReadableCode)
        if codeTypes.isEmpty {
            barcodes = nil
        } else {
            var barcode = configuration.barcode
            barcode.types = codeTypes
            barcodes = BarcodeDetector(configuration: barcode)
        }
    }

    /// Detects everything enabled on `frame` from `source`.
    public func process(_ frame: Frame, source: SourceInfo) throws -> MetadataEvent {
        let settings = try settings(for: frame.size, source: source)
        var objects: [MetadataObject] = []
        if let barcodes {
            objects += try barcodes.detect(in: frame, rectOfInterest: settings.rectOfInterest)
        }
        if let geometry = settings.geometry {
            objects = objects.map(geometry.transformed)
        }
        return MetadataEvent(source: source.name, frame: frame.index, time: frame.time,
                             width: frame.width, height: frame.height, objects: objects,
                             captureClock: frame.captureClock)
    }
}

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
        try settings(for: frameSize, source: nil).rectOfInterest
    }

    fileprivate func settings(for size: PixelSize, source: SourceInfo?) throws -> FrameSizeSettings {
        if let cached = perFrameSize[size] { return cached }
        let geometry = previewGeometry(forFrameSize: size)
        var roi = configuration.rectOfInterest
        if let viewRect = configuration.rectOfInterestView, let geometry {
            roi = geometry.deviceRect(fromViewRect: viewRect).intersection(.unit)
            if roi.isEmpty {
                let prefix = source.map { "\($0.name): " } ?? ""
                throw ScanError.invalidArgument(
                    "\(prefix)rect of interest view \(Self.text(viewRect)) (view points) shows no part of a \(size.width)x\(size.height) frame: it lies outside the picture, in letterbox bars")
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
            throw ScanError.invalidArgument("set either a rect of interest (device) or a rect of interest view, not both")
        }
        let s = preview.viewSize, eps = 1e-9
        guard [r.x, r.y, r.width, r.height].allSatisfy(\.isFinite), r.width > 0, r.height > 0,
              r.minX >= -eps, r.minY >= -eps, r.maxX <= s.width + eps, r.maxY <= s.height + eps else {
            throw ScanError.invalidArgument(
                "rect of interest view must be a non-empty rectangle inside the \(text(s.width))x\(text(s.height)) view, got \(text(r))")
        }
    }
}
