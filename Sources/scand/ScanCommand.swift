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
        video files (mp4, mkv, avi, …). A failing input gets one error line on stderr and the others are \
        still scanned. Exit status: 0 all inputs scanned, 1 some input failed, 2 nothing could be scanned, \
        64 usage error.
        """)

    @OptionGroup var detection: DetectionOptions
    @OptionGroup(title: "Face options") var face: FaceOptions
    @OptionGroup var logging: LoggingOptions

    @Option(name: .long, help: ArgumentHelp("Stop each input after N frames.", valueName: "N"))
    var frames: Int?

    @Argument(help: ArgumentHelp("Files to scan; '-' reads a Y4M stream from stdin.", valueName: "input"))
    var inputs: [String] = []

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("no inputs: give image, video or Y4M files, or '-' for Y4M on stdin") }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
    }

    func run() throws {
        let logger = try logging.makeLogger()
        let output: MetadataOutput
        do {
            var configuration = try detection.outputConfiguration()
            configuration.face = try face.configuration()
            output = try MetadataOutput(configuration: configuration)
        } catch let error as ScanError {
            if case .invalidArgument(let m) = error { throw ValidationError(m) }
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        let scanner = FileScanner(output: output, logger: logger, frameLimit: frames)
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
