import ArgumentParser
import Logging
import ScanCore
import ScanKit
import ScanOutput

/// Options shared by every command that runs detectors (`scan`, and later `run`).
struct DetectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Comma-separated metadata object types to report (metadataObjectTypes), or 'all'/'codes'. See 'scand types'.", valueName: "types"))
    var types: String?

    @Option(name: .long, help: ArgumentHelp("Scan only this part of the frame: x,y,w,h in normalized device coordinates (0..1, origin top-left). Results stay relative to the whole frame.", valueName: "x,y,w,h"))
    var rectOfInterest: String?

    @Flag(name: .long, help: "Do not retry frames with no code as inverted (light-on-dark) luma.")
    var noInverted = false

    @Option(name: .long, help: ArgumentHelp("zbar scan density: pixels between scan lines (1 = every line).", valueName: "n"))
    var scanDensity: Int = 1

    @Option(name: .long, help: ArgumentHelp("Barcode engine: zbar, zxing, or both (zbar first; zxing-cpp where zbar reads nothing and for Data Matrix, Aztec, PDF417, Micro QR).", valueName: "engine"))
    var engine: String = "both"

    @Option(name: .long, help: ArgumentHelp("Reader passes in order, tried only while nothing has decoded: plain,inverted,downscaled,upscaled,thresholded,upscaled-thresholded (default all).", valueName: "passes"))
    var passes: String?

    @Flag(name: .long, help: "Only the plain and inverted passes (no downscaled, upscaled, thresholded or upscaled-thresholded retries).")
    var noExtraPasses = false

    @Option(name: .long, help: ArgumentHelp("Minimum Codabar length, start/stop characters included.", valueName: "n"))
    var codabarMinLength: Int = 6

    @Option(name: .long, help: ArgumentHelp("Minimum Interleaved 2 of 5 length.", valueName: "n"))
    var i25MinLength: Int = 6

    @Flag(name: .long, help: "Require a valid mod-10 check digit on Interleaved 2 of 5.")
    var i25Checksum = false

    @Option(name: .long, help: ArgumentHelp("Drop 1-D codes read on fewer scan lines than this (0 keeps all).", valueName: "n"))
    var minLinearQuality: Int = 2

    @Option(name: .long, help: ArgumentHelp("zbar uncertainty for 1-D codes (extra agreeing decodes required); default: zbar's own.", valueName: "n"))
    var zbarUncertainty: Int?

    @Flag(name: .customLong("confirm-1d"), help: "On video and streams, report a 1-D code only after it was read in two frames (within 3 frames).")
    var confirm1D = false

    @Option(name: .long, help: ArgumentHelp("Directory holding the model (cascade) files.", valueName: "dir"))
    var models: String?

    @Option(name: .long, help: ArgumentHelp("On video, Y4M and cameras: further reading steps (one pass with one engine) per frame after the plain zbar pass finds nothing; they rotate across frames.", valueName: "n"))
    var streamSteps: Int = 1

    @Flag(name: .long, help: "On video, Y4M and cameras, try every pass and engine on every frame (as for still images; slow on frames with no code).")
    var allPassesOnStreams = false

    @Option(name: .long, help: ArgumentHelp("zbar scan density on video, Y4M and cameras (pixels between scan lines; --scan-density is for still images).", valueName: "n"))
    var streamScanDensity: Int = 2

    @Flag(name: .long, help: "Read codes and faces one after the other instead of at the same time on two threads.")
    var noParallelDetectors = false

    @Flag(name: .customLong("code39-full-ascii"), help: "Decode Code 39 as Full ASCII (+A → a, %J → ?, /A → !); default: plain Code 39 (see docs/reader.md).")
    var code39FullASCII = false

    @Flag(name: .customLong("code32"), help: "Decode Code 39 symbols that are Code 32 (Italian Pharmacode) as \"A\" + 9 digits; default: off (see docs/reader.md).")
    var code32 = false

    @Flag(name: .long, help: "Report 1-D reads from transformed passes (inverted, scaled, thresholded) without confirming them (more misreads on blurred EAN/UPC; see docs/reader.md).")
    var noConfirmTransformed = false

    @Flag(name: .long, help: "Cameras: never shed optional work when late (code steps past the frame's deadline, the face-search slice after a late frame).")
    var noLoadShedding = false

    func outputConfiguration() throws -> OutputConfiguration {
        var config = OutputConfiguration()
        if let types {
            // Every type this build has; MetadataOutput names the engine a type needs.
            config.metadataObjectTypes = try MetadataObjectType.parseList(types, available: MetadataOutput.availableMetadataObjectTypes)
        }
        if let rectOfInterest { config.rectOfInterest = try parseRect(rectOfInterest, name: "--rect-of-interest") }
        config.barcode.tryInverted = !noInverted
        guard scanDensity >= 1 && scanDensity <= 16 else { throw ValidationError("--scan-density must be 1...16") }
        config.barcode.scanDensity = scanDensity
        guard let engine = BarcodeEngine(rawValue: engine.lowercased()) else {
            throw ValidationError("--engine must be zbar, zxing or both, got '\(self.engine)'")
        }
        config.barcode.engine = engine
        if let passes {
            var list: [ReaderPass] = []
            for raw in passes.split(separator: ",") {
                let name = raw.filter { $0 != " " }
                guard let p = ReaderPass(rawValue: String(name)) else {
                    throw ValidationError("unknown pass '\(name)' in --passes; passes: \(ReaderPass.allCases.map(\.rawValue).joined(separator: ","))")
                }
                list.append(p)
            }
            config.barcode.passes = list
        }
        config.barcode.extraPasses = !noExtraPasses
        guard codabarMinLength >= 3, i25MinLength >= 2, minLinearQuality >= 0 else {
            throw ValidationError("--codabar-min-length must be ≥ 3, --i25-min-length ≥ 2, --min-linear-quality ≥ 0")
        }
        config.barcode.minimumCodabarLength = codabarMinLength
        config.barcode.minimumI25Length = i25MinLength
        config.barcode.requireI25Checksum = i25Checksum
        config.barcode.minimumLinearQuality = minLinearQuality
        if let zbarUncertainty, zbarUncertainty < 0 { throw ValidationError("--zbar-uncertainty must be ≥ 0") }
        config.barcode.zbarUncertainty = zbarUncertainty
        config.barcode.confirmLinearCodes = confirm1D
        guard streamSteps >= 0 else { throw ValidationError("--stream-steps must be ≥ 0") }
        config.barcode.streamStepsPerFrame = allPassesOnStreams ? nil : streamSteps
        config.models = ModelConfiguration(directory: models)
        config.parallelDetectors = !noParallelDetectors
        config.shedLoadWhenLate = !noLoadShedding
        config.barcode.code39FullASCII = code39FullASCII
        config.barcode.confirmTransformedLinearReads = !noConfirmTransformed
        config.barcode.code32 = code32
        guard streamScanDensity >= 1 && streamScanDensity <= 16 else { throw ValidationError("--stream-scan-density must be 1...16") }
        config.barcode.streamScanDensity = streamScanDensity
        return config
    }
}

/// Logging options shared by every command.
struct LoggingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Log level on stderr: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "warning"

    func makeLogger(label: String = "scand") throws -> Logger {
        guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown --log-level '\(logLevel)'") }
        var logger = Logger(label: label) { StderrLogHandler(label: $0) }
        logger.logLevel = level
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
    @Option(name: .long, help: ArgumentHelp("Refuse an image, Y4M frame or video frame larger than this many pixels (width × height), before decoding it (default \(DecoderLimits.defaultMaxPixels)).", valueName: "n"))
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
