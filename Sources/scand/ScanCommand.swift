import ArgumentParser
import ScanCore
import ScanKit
import ScanOutput

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan images, videos and Y4M streams; print one JSON line per image or frame.",
        discussion: """
        Inputs: PNG, JPEG, PGM/PPM/PBM and anything OpenCV's imgcodecs reads; Y4M files or '-' (stdin); \
        video files (mp4, mkv, avi, …); or a V4L2 camera with --device (see docs/capture.md). A failing input gets one error line on stderr and the others are \
        still scanned. Exit status: 0 all inputs scanned, 1 some input failed, 2 nothing could be scanned, \
        64 usage error.
        """)

    @OptionGroup var detection: DetectionOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup(title: "Live capture") var capture: CaptureOptions

    @Argument(help: ArgumentHelp("Files to scan; '-' reads a Y4M stream from stdin.", valueName: "input"))
    var inputs: [String] = []

    func validate() throws {
        if capture.device != nil && !inputs.isEmpty { throw ValidationError("give --device or input files, not both") }
        if capture.device == nil && inputs.isEmpty { throw ValidationError("no inputs: give image, video or Y4M files, '-' for Y4M on stdin, or --device") }
    }

    func run() throws {
        let logger = try logging.makeLogger()
        let output: MetadataOutput
        do {
            output = try MetadataOutput(configuration: try detection.outputConfiguration())
        } catch let error as ScanError {
            if case .invalidArgument(let m) = error { throw ValidationError(m) }
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        if let live = capture.captureConfiguration() {
            try LiveScan.run(configuration: live, frames: capture.frames, duration: capture.duration, output: output, logger: logger)
            return
        }
        let scanner = FileScanner(output: output, logger: logger, frameLimit: capture.frames)
        let summary = scanner.scan(inputs: inputs, sink: FileDescriptorSink())
        if summary.outputClosed { return }
        if !summary.failedInputs.isEmpty {
            throw ExitCode(summary.failedInputs.count == summary.inputs ? ExitStatus.failure : ExitStatus.inputFailed)
        }
    }
}

struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "List the metadata object types this build can report (availableMetadataObjectTypes), one per line.")

    func run() {
        for t in MetadataOutput.availableMetadataObjectTypes.sorted() { print(t.rawValue) }
    }
}
