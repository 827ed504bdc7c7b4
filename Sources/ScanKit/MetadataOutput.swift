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
    /// Face detection and tracking (used when `.face` is enabled).
    public var face: FaceConfiguration

    public init(metadataObjectTypes: Set<MetadataObjectType> = MetadataOutput.defaultTypes,
                rectOfInterest: NormalizedRect = .unit,
                barcode: BarcodeConfiguration = BarcodeConfiguration(),
                models: ModelConfiguration = ModelConfiguration(),
                face: FaceConfiguration = FaceConfiguration()) {
        self.metadataObjectTypes = metadataObjectTypes
        self.rectOfInterest = rectOfInterest
        self.barcode = barcode
        self.models = models
        self.face = face
    }
}

/// Runs the detectors on frames and produces one ``MetadataEvent`` per frame
/// (`AVCaptureMetadataOutput`). Owns its detectors; use from one thread at a time.
public final class MetadataOutput {
    /// Every type this build can report (`availableMetadataObjectTypes`).
    public static var availableMetadataObjectTypes: Set<MetadataObjectType> { BarcodeDetector.zbarTypes.union([.face]) }

    /// Types enabled when none are chosen: every code type.
    public static var defaultTypes: Set<MetadataObjectType> { BarcodeDetector.zbarTypes }

    public let configuration: OutputConfiguration
    private let barcodes: BarcodeDetector?
    private let faces: FaceDetector?
    private let faceTracker: FaceTracker?
    /// Face presence changes decided by the last ``process(_:source:)`` call (`appeared` / `lost`, per
    /// faceID, `lost` after ``FaceConfiguration/presenceGrace``); empty when faces are off.
    public private(set) var lastPresenceEvents: [PresenceEvent] = []

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
        let codeTypes = configuration.metadataObjectTypes.filter(\.isMachineReadableCode)
        if codeTypes.isEmpty {
            barcodes = nil
        } else {
            var barcode = configuration.barcode
            barcode.types = codeTypes
            barcodes = BarcodeDetector(configuration: barcode)
        }
        if configuration.metadataObjectTypes.contains(.face) {
            if let problem = configuration.face.validationError { throw ScanError.invalidArgument(problem) }
            let directory = try ModelLocator.directory(configuration.models)
            faces = try FaceDetector(configuration: configuration.face, modelDirectory: directory)
            faceTracker = FaceTracker(configuration: configuration.face)
        } else {
            faces = nil
            faceTracker = nil
        }
    }

    /// Ends every tracked face of `source` (end of input or shutdown) and returns their `lost` events.
    public func finishPresence(source: SourceInfo, frame: Int, time: Double) -> [PresenceEvent] {
        (faceTracker?.finish(frame: frame, time: time) ?? []).map { Self.presenceEvent($0, source: source.name) }
    }

    static func presenceEvent(_ t: FacePresenceTransition, source: String) -> PresenceEvent {
        PresenceEvent(transition: t.transition, type: .face, faceID: t.faceID, source: source,
                      frame: t.frame, time: t.time, bounds: t.bounds)
    }

    /// Detects everything enabled on `frame` from `source`.
    public func process(_ frame: Frame, source: SourceInfo) throws -> MetadataEvent {
        var objects: [MetadataObject] = []
        if let barcodes {
            objects += try barcodes.detect(in: frame, rectOfInterest: configuration.rectOfInterest)
        }
        lastPresenceEvents = []
        if let faces, let faceTracker {
            let result = try faceTracker.process(frame, source: source.name, detector: faces,
                                                 rectOfInterest: configuration.rectOfInterest)
            objects += result.objects
            lastPresenceEvents = result.transitions.map { Self.presenceEvent($0, source: source.name) }
        }
        return MetadataEvent(source: source.name, frame: frame.index, time: frame.time,
                             width: frame.width, height: frame.height, objects: objects,
                             captureClock: frame.captureClock)
    }
}
