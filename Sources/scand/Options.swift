public import ArgumentParser
import Logging
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit
import ScanOutput

/// Enum options parse through ArgumentParser: a bad value is echoed with the list of valid ones, and the
/// shell completions offer the names.
extension BarcodeEngine: ExpressibleByArgument {}
extension SessionPreset: ExpressibleByArgument {}
extension FaceCascade: ExpressibleByArgument {}
extension FaceDetectorKind: ExpressibleByArgument {}
extension VideoGravity: ExpressibleByArgument {}
extension VideoOrientation: ExpressibleByArgument {}

/// The barcode types and the rect of interest: which objects to report (shared by `scan` and `run`).
struct TypeOptions: ParsableArguments {
    @Option(name: .setting(.types), help: .setting(.types))
    var types: String?

    @Option(name: .setting(.rectOfInterest), help: .setting(.rectOfInterest))
    var rectOfInterest: String?
}

/// Reader tuning shared by every command that reads codes (`scan`, `run`). Every option is optional: one
/// given on the command line overrides the config file, one not given leaves the file's value (or the
/// default) in place.
struct DetectionOptions: ParsableArguments {
    @Flag(name: .setting(.inverted), inversion: .prefixedNo, help: .setting(.inverted))
    var inverted: Bool?

    @Option(name: .setting(.scanDensity), help: .setting(.scanDensity))
    var scanDensity: Int?

    @Option(name: .setting(.engine), help: .setting(.engine))
    var engine: BarcodeEngine?

    @Option(name: .setting(.passes), help: .setting(.passes))
    var passes: String?

    @Flag(name: .setting(.extraPasses), inversion: .prefixedNo, help: .setting(.extraPasses))
    var extraPasses: Bool?

    @Option(name: .setting(.codabarMinLength), help: .setting(.codabarMinLength))
    var codabarMinLength: Int?

    @Option(name: .setting(.i25MinLength), help: .setting(.i25MinLength))
    var i25MinLength: Int?

    @Flag(name: .setting(.i25Checksum), inversion: .prefixedNo, help: .setting(.i25Checksum))
    var i25Checksum: Bool?

    @Option(name: .setting(.minLinearQuality), help: .setting(.minLinearQuality))
    var minLinearQuality: Int?

    @Option(name: .setting(.zbarUncertainty), help: .setting(.zbarUncertainty))
    var zbarUncertainty: Int?

    @Flag(name: .setting(.confirm1D), inversion: .prefixedNo, help: .setting(.confirm1D))
    var confirm1D: Bool?

    @Option(name: .setting(.models), help: .setting(.models))
    var models: String?

    @Option(name: .setting(.streamSteps), help: .setting(.streamSteps))
    var streamSteps: Int?

    @Flag(name: .setting(.allPassesOnStreams), inversion: .prefixedNo, help: .setting(.allPassesOnStreams))
    var allPassesOnStreams: Bool?

    @Option(name: .setting(.streamScanDensity), help: .setting(.streamScanDensity))
    var streamScanDensity: Int?

    @Option(name: .setting(.streamQRLines), help: .setting(.streamQRLines))
    var streamQRLines: Int?

    @Flag(name: .setting(.parallelDetectors), inversion: .prefixedNo, help: .setting(.parallelDetectors))
    var parallelDetectors: Bool?

    @Flag(name: .setting(.code39FullASCII), inversion: .prefixedNo, help: .setting(.code39FullASCII))
    var code39FullASCII: Bool?

    @Flag(name: .setting(.code32), inversion: .prefixedNo, help: .setting(.code32))
    var code32: Bool?

    @Flag(name: .setting(.confirmTransformed), inversion: .prefixedNo, help: .setting(.confirmTransformed))
    var confirmTransformed: Bool?

    @Flag(name: .setting(.checkSmallRetail), inversion: .prefixedNo, help: .setting(.checkSmallRetail))
    var checkSmallRetail: Bool?

    @Flag(name: .setting(.extendLinearBounds), inversion: .prefixedNo, help: .setting(.extendLinearBounds))
    var extendLinearBounds: Bool?

    @Flag(name: .setting(.resolveConflicts), inversion: .prefixedNo, help: .setting(.resolveConflicts))
    var resolveConflicts: Bool?

    @Flag(name: .setting(.upceQuietZone), inversion: .prefixedNo, help: .setting(.upceQuietZone))
    var upceQuietZone: Bool?

    @Flag(name: .setting(.loadShedding), inversion: .prefixedNo, help: .setting(.loadShedding))
    var loadShedding: Bool?

    /// Sets what was given on the command line (over the defaults or the config file's values).
    func apply(to config: inout OutputConfiguration) throws {
        if let inverted { config.barcode.tryInverted = inverted }
        if let scanDensity {
            config.barcode.scanDensity = scanDensity
            config.barcode.stillScanLines = nil
        }
        if let engine { config.barcode.engine = engine }
        if let passes { config.barcode.passes = try parsePasses(passes) }
        if let extraPasses { config.barcode.extraPasses = extraPasses }
        if let codabarMinLength { config.barcode.minimumCodabarLength = codabarMinLength }
        if let i25MinLength { config.barcode.minimumI25Length = i25MinLength }
        if let i25Checksum { config.barcode.requireI25Checksum = i25Checksum }
        if let minLinearQuality { config.barcode.minimumLinearQuality = minLinearQuality }
        if let zbarUncertainty { config.barcode.zbarUncertainty = zbarUncertainty }
        if let confirm1D { config.barcode.confirmLinearCodes = confirm1D }
        if let models { config.models = ModelConfiguration(directory: models) }
        if let streamSteps { config.barcode.streamStepsPerFrame = streamSteps }
        if let allPassesOnStreams {
            config.barcode.streamStepsPerFrame =
                allPassesOnStreams ? nil : (streamSteps ?? BarcodeConfiguration().streamStepsPerFrame)
        }
        if let streamScanDensity { config.barcode.streamScanDensity = streamScanDensity }
        if let streamQRLines { config.barcode.streamQRLookLines = streamQRLines == 0 ? nil : streamQRLines }
        if let parallelDetectors { config.parallelDetectors = parallelDetectors }
        if let code39FullASCII { config.barcode.code39FullASCII = code39FullASCII }
        if let loadShedding { config.shedLoadWhenLate = loadShedding }
        if let code32 { config.barcode.code32 = code32 }
        if let confirmTransformed { config.barcode.confirmTransformedLinearReads = confirmTransformed }
        if let checkSmallRetail { config.barcode.checkSmallRetailReads = checkSmallRetail }
        if let extendLinearBounds { config.barcode.extendLinearBounds = extendLinearBounds }
        if let resolveConflicts { config.barcode.resolveConflictingReads = resolveConflicts }
        if let upceQuietZone { config.barcode.checkUPCEQuietZone = upceQuietZone }
    }

    private func parsePasses(_ text: String) throws -> [ReaderPass] {
        var list: [ReaderPass] = []
        for raw in text.split(separator: ",") {
            let name = String(raw.filter { $0 != " " })
            guard let p = ReaderPass(rawValue: name) else {
                let hint =
                    closestName(to: name, among: ReaderPass.allCases.map(\.rawValue)).map { " (did you mean '\($0)'?)" }
                    ?? ""
                throw ValidationError(
                    "unknown pass '\(name)' in --passes '\(text)'\(hint); passes: \(ReaderPass.allCases.map(\.rawValue).joined(separator: ","))"
                )
            }
            list.append(p)
        }
        return list
    }
}

/// Builds the output configuration: defaults, then the config file (`file`), then the flags given. The
/// preview and faces come from their own option groups. Every configuration type then validates itself.
/// - Throws: `ValidationError` naming the flag (or the file's key) and echoing the value.
func makeOutputConfiguration(
    types: TypeOptions, detection: DetectionOptions, preview: PreviewOptions, face: FaceOptions,
    file: DaemonConfigFile = DaemonConfigFile()
) throws -> OutputConfiguration {
    var config = OutputConfiguration()
    do {
        if let list = types.types ?? file.types {
            // Every type this build has; MetadataOutput names the engine a type needs.
            config.metadataObjectTypes = try MetadataObjectType.parseList(
                list, available: MetadataOutput.availableMetadataObjectTypes)
        }
    } catch ScanError.invalidArgument(let message) {
        throw ValidationError(
            types.types != nil ? "--types '\(types.types!)': \(message)" : "config file: 'types': \(message)")
    }
    file.apply(to: &config)
    if let roi = types.rectOfInterest {
        config.rectOfInterest = try parseRect(roi, name: "--rect-of-interest")
    }
    try detection.apply(to: &config)
    try preview.apply(to: &config, rectOfInterestFlag: types.rectOfInterest, file: file)
    face.apply(to: &config.face)
    do {
        try config.barcode.validate()
        try config.face.validate()
        try config.preview?.validate()
    } catch {
        throw ValidationError(error.description)
    }
    return config
}

/// Logging options shared by every command.
struct LoggingOptions: ParsableArguments {
    @Option(name: .setting(.logLevel), help: .setting(.logLevel))
    var logLevelName: LogLevelName?

    /// `--log-level` as swift-log's level; nil when not given.
    var logLevel: Logger.Level? { logLevelName?.level }

    /// A logger at `--log-level`, else `fallback`; on stderr, in journald's form when stderr is the journal.
    func makeLogger(label: String = "scand", fallback: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: label) { StderrLogHandler(label: $0) }
        logger.logLevel = logLevel ?? fallback
        return logger
    }
}

func parseRect(_ text: String, name: String) throws -> NormalizedRect {
    let parts = text.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
    guard parts.count == 4, parts.allSatisfy({ $0 != nil && $0!.isFinite }) else {
        throw ValidationError("\(name) takes x,y,w,h (four numbers), got '\(text)'")
    }
    return NormalizedRect(x: parts[0]!, y: parts[1]!, width: parts[2]!, height: parts[3]!)
}

/// Decoder limits shared by `scan` and `run`.
struct DecoderLimitOptions: ParsableArguments {
    @Option(name: .setting(.maxPixels), help: .setting(.maxPixels))
    var maxPixels: Int?

    /// The limits, from the flag, else `fileValue` (config file), else the default.
    func decoderLimits(fileValue: Int? = nil) throws -> DecoderLimits {
        var limits = DecoderLimits()
        if let value = maxPixels ?? fileValue { limits.maxPixels = value }
        do { try limits.validate() } catch { throw ValidationError(error.description) }
        return limits
    }

    func validate() throws { _ = try decoderLimits() }
}

/// `--log-level`'s values: swift-log's levels, by their own names. A type of scand's own, so that its
/// conformance to `ExpressibleByArgument` is not a retroactive one on swift-log's `Logger.Level`.
enum LogLevelName: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error, critical

    /// The swift-log level of the same name.
    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
