import ArgumentParser
import Logging
import ScanCore
import ScanKit

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

    @Option(name: .long, help: ArgumentHelp("Directory holding the model (cascade) files.", valueName: "dir"))
    var models: String?

    func outputConfiguration() throws -> OutputConfiguration {
        var config = OutputConfiguration()
        if let types {
            config.metadataObjectTypes = try MetadataObjectType.parseList(types, available: MetadataOutput.availableMetadataObjectTypes)
        }
        if let rectOfInterest { config.rectOfInterest = try parseRect(rectOfInterest, name: "--rect-of-interest") }
        config.barcode.tryInverted = !noInverted
        guard scanDensity >= 1 && scanDensity <= 16 else { throw ValidationError("--scan-density must be 1...16") }
        config.barcode.scanDensity = scanDensity
        config.models = ModelConfiguration(directory: models)
        return config
    }
}

/// Logging options shared by every command.
struct LoggingOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Log level on stderr: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "warning"

    func makeLogger(label: String = "scand") throws -> Logger {
        guard let level = Logger.Level(rawValue: logLevel) else { throw ValidationError("unknown --log-level '\(logLevel)'") }
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
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
