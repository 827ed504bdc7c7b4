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
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Comma-separated metadata object types to report (metadataObjectTypes), or 'all'/'codes'. zbar's names (qrcode, i25, databar, …) are aliases. See 'scand types'.",
            valueName: "types"))
    var types: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Scan only this part of the frame: x,y,w,h in normalized device coordinates (0..1, origin top-left). Results stay relative to the whole frame.",
            valueName: "x,y,w,h"))
    var rectOfInterest: String?
}

/// Reader tuning shared by every command that reads codes (`scan`, `run`). Every option is optional: one
/// given on the command line overrides the config file, one not given leaves the file's value (or the
/// default) in place.
struct DetectionOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Retry frames with no code as inverted (light-on-dark) luma (default on).")
    var inverted: Bool?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "zbar scan density on still images: pixels between scan lines (1 = every line). Default: every line on images of up to 2249 lines, every 2nd on 2250-3749 (12 MP photos), every 3rd on 3750-5249 and so on (docs/reader.md); given, it holds on images of any size.",
            valueName: "n"))
    var scanDensity: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Barcode engine: zbar, zxing, or both (default; zbar first, zxing-cpp where zbar reads nothing and for Data Matrix, Aztec, PDF417, Micro QR).",
            valueName: "engine"))
    var engine: BarcodeEngine?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Reader passes in order, tried only while nothing has decoded: plain,inverted,downscaled,upscaled,thresholded,deskewed,upscaled-thresholded (default all).",
            valueName: "passes"))
    var passes: String?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Extra passes (downscaled, upscaled, thresholded, deskewed, upscaled-thresholded) after plain and inverted (default on)."
    )
    var extraPasses: Bool?

    @Option(
        name: .long,
        help: ArgumentHelp("Minimum Codabar length, start/stop characters included (default 6).", valueName: "n"))
    var codabarMinLength: Int?

    @Option(name: .long, help: ArgumentHelp("Minimum Interleaved 2 of 5 length (default 6).", valueName: "n"))
    var i25MinLength: Int?

    @Flag(inversion: .prefixedNo, help: "Require a valid mod-10 check digit on Interleaved 2 of 5 (default off).")
    var i25Checksum: Bool?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Drop 1-D codes read on fewer scan lines than this (0 keeps all; default 2).", valueName: "n"))
    var minLinearQuality: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "zbar uncertainty for 1-D codes (extra agreeing decodes required); default: zbar's own.", valueName: "n"))
    var zbarUncertainty: Int?

    @Flag(
        name: .customLong("confirm-1d"), inversion: .prefixedNo,
        help:
            "On video and streams, report a 1-D code only after it was read in two frames (within 3 frames; default off)."
    )
    var confirm1D: Bool?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Directory holding the model (cascade) files (default: found next to the binary, or <prefix>/share/scand/Models).",
            valueName: "dir"))
    var models: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "On video, Y4M and cameras: further reading steps (one pass with one engine) per frame after the plain zbar pass finds nothing; they rotate across frames (default 1).",
            valueName: "n"))
    var streamSteps: Int?

    @Flag(
        inversion: .prefixedNo,
        help:
            "On video, Y4M and cameras, try every pass and engine on every frame (as for still images; slow on frames with no code; default off)."
    )
    var allPassesOnStreams: Bool?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "zbar scan density on video, Y4M and cameras (pixels between scan lines; --scan-density is for still images; default 2).",
            valueName: "n"))
    var streamScanDensity: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "On video, Y4M and cameras: every frame gets a QR look (zxing-cpp, QR only) on the frame scaled down to at most this many lines; zbar finds no QR once its scan lines are 5 or more pixels apart, as they are at 1080p (default 720; 0: off).",
            valueName: "n"))
    var streamQRLines: Int?

    @Flag(inversion: .prefixedNo, help: "Read codes and faces at the same time on two threads (default on).")
    var parallelDetectors: Bool?

    @Flag(
        name: .customLong("code39-full-ascii"), inversion: .prefixedNo,
        help: "Decode Code 39 as Full ASCII (+A → a, %J → ?, /A → !); default: plain Code 39 (see docs/reader.md).")
    var code39FullASCII: Bool?

    @Flag(
        name: .customLong("code32"), inversion: .prefixedNo,
        help:
            "Decode Code 39 symbols that are Code 32 (Italian Pharmacode) as \"A\" + 9 digits; default: off (see docs/reader.md)."
    )
    var code32: Bool?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Hold back 1-D reads from transformed passes (inverted, scaled, thresholded) until 3+ scan lines, the other engine or (on streams) a second frame confirms them (default on; see docs/reader.md)."
    )
    var confirmTransformed: Bool?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Small EAN/UPC codes (module under 2.5 px) zbar reads get zxing-cpp's second opinion, which replaces zbar's digits when it differs (default off; see docs/reader.md)."
    )
    var checkSmallRetail: Bool?

    @Flag(
        inversion: .prefixedNo,
        help:
            "On still images, report a 1-D code's corners and bounds out to the ends of its bars, followed across the bars from the scan lines that read it, instead of the scan lines' box (default on; streams keep the box; see docs/geometry.md)."
    )
    var extendLinearBounds: Bool?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Two different payloads of one 1-D type read on one symbol: zxing-cpp decides, and without its read neither is reported. On video, Y4M and cameras, a payload read where another was read on recent frames waits for a second frame, and while the other is read more often; zxing-cpp on the frame decides where it reads either (default on; see docs/reader.md)."
    )
    var resolveConflicts: Bool?

    @Flag(
        name: .customLong("upce-quiet-zone"), inversion: .prefixedNo,
        help:
            "Drop a UPC-E read that is part of a longer code (bars run on past where it ends, or its box overlaps an EAN-13 read in the same image): the left half of an EAN-13/UPC-A that did not decode (default on; see docs/reader.md)."
    )
    var upceQuietZone: Bool?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Cameras: shed optional work when late (code steps past the frame's deadline, the face-search slice after a late frame; default on)."
    )
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
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Log level on stderr: trace, debug, info, notice, warning (default), error, critical.", valueName: "level"))
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
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Refuse an image, Y4M frame or video frame larger than this many pixels (width × height), before decoding it (default \(DecoderLimits.defaultMaxPixels)).",
            valueName: "n"))
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
