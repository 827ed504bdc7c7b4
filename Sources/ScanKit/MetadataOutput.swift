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

    public init(metadataObjectTypes: Set<MetadataObjectType> = MetadataOutput.defaultTypes,
                rectOfInterest: NormalizedRect = .unit,
                barcode: BarcodeConfiguration = BarcodeConfiguration(),
                models: ModelConfiguration = ModelConfiguration()) {
        self.metadataObjectTypes = metadataObjectTypes
        self.rectOfInterest = rectOfInterest
        self.barcode = barcode
        self.models = models
    }
}

/// Runs the detectors on frames and produces one ``MetadataEvent`` per frame
/// (`AVCaptureMetadataOutput`). Owns its detectors; use from one thread at a time.
public final class MetadataOutput {
    /// Every type this build can report (`availableMetadataObjectTypes`), with every engine.
    public static var availableMetadataObjectTypes: Set<MetadataObjectType> { BarcodeDetector.availableTypes(engine: .both) }

    /// The types this build can report with `engine`.
    public static func availableMetadataObjectTypes(engine: BarcodeEngine) -> Set<MetadataObjectType> {
        BarcodeDetector.availableTypes(engine: engine)
    }

    /// Types enabled when none are chosen: every code type (narrowed to what the chosen engine reads).
    public static var defaultTypes: Set<MetadataObjectType> { BarcodeDetector.availableTypes(engine: .both) }

    public let configuration: OutputConfiguration
    private let barcodes: BarcodeDetector?
    private var confirmation: LinearCodeConfirmation?
    private var confirmationSource: String?

    /// - Throws: ``ScanError`` when a type is unavailable or a model cannot be loaded.
    public init(configuration: OutputConfiguration) throws {
        var configuration = configuration
        let engineTypes = Self.availableMetadataObjectTypes(engine: configuration.barcode.engine)
        if configuration.metadataObjectTypes == Self.defaultTypes {
            configuration.metadataObjectTypes.formIntersection(engineTypes)
        }
        let unavailable = configuration.metadataObjectTypes.subtracting(Self.availableMetadataObjectTypes)
        if !unavailable.isEmpty {
            throw ScanError.invalidArgument("not available in this build: \(unavailable.sorted().map(\.rawValue).joined(separator: ","))")
        }
        let needsZXing = configuration.metadataObjectTypes.filter(\.isMachineReadableCode).subtracting(engineTypes)
        if !needsZXing.isEmpty {
            throw ScanError.invalidArgument(
                "\(needsZXing.sorted().map(\.rawValue).joined(separator: ",")) cannot be read with --engine \(configuration.barcode.engine.rawValue): use --engine both")
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
        self.configuration = configuration
        if configuration.barcode.confirmLinearCodes {
            confirmation = LinearCodeConfirmation(window: configuration.barcode.confirmationWindow)
        }
    }

    /// Detects everything enabled on `frame` from `source`.
    public func process(_ frame: Frame, source: SourceInfo) throws -> MetadataEvent {
        var objects: [MetadataObject] = []
        if let barcodes {
            var codes = try barcodes.detect(in: frame, rectOfInterest: configuration.rectOfInterest)
            // Streams only (video, Y4M, cameras): a still image has no second frame to confirm with.
            if let confirmation, source.frameRate != nil || source.isLive {
                if confirmationSource != source.name { confirmation.reset(); confirmationSource = source.name }
                codes = confirmation.filter(codes, frame: frame.index)
            }
            objects += codes
        }
        return MetadataEvent(source: source.name, frame: frame.index, time: frame.time,
                             width: frame.width, height: frame.height, objects: objects,
                             captureClock: frame.captureClock)
    }
}
