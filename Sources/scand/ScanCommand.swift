import ArgumentParser
import Logging
import ScanCapture
import ScanCore
import ScanKit
import ScanOutput
#if canImport(Glibc)
import Glibc
#endif

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan images, videos and Y4M streams; print one JSON line per image or frame.",
        discussion: """
        Inputs: PNG, JPEG, PGM/PPM/PBM and anything OpenCV's imgcodecs reads; Y4M files or '-' (stdin); \
        video files (mp4, mkv, avi, …); or a V4L2 camera with --device (see docs/capture.md). A failing input gets one error line on stderr and the others are \
        still scanned. Exit status: 0 every input scanned and each held an object, 1 some input failed, \
        2 nothing could be scanned, 4 every input was scanned but some held no object (as zbarimg; failures \
        take precedence: 1 or 2), 64 usage error. --raw prints each code's value alone on a line (faces are \
        not printed; a binary payload is skipped with one note per input, or printed as its exact bytes with \
        --raw-bytes; a value holding a newline is printed as is).
        """)

    @OptionGroup var detection: DetectionOptions
    @OptionGroup(title: "Preview (view coordinates)") var preview: PreviewOptions
    @OptionGroup(title: "Face options") var face: FaceOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup(title: "Live capture") var capture: CaptureOptions
    @OptionGroup(title: "Camera controls (with --device)") var cameraControls: ControlOptions

    @Option(name: .long, help: ArgumentHelp("Read input paths from FILE, one per line (for very many inputs).", valueName: "file"))
    var filesFrom: String?

    @Argument(help: ArgumentHelp("Files to scan; '-' reads a Y4M stream from stdin.", valueName: "input"))
    var inputs: [String] = []

    @OptionGroup var limits: DecoderLimitOptions

    @OptionGroup(title: "Script output") var script: ScriptOutputOptions

    @Flag(name: .shortAndLong, help: "Quiet, as zbarimg -q: no notes on stderr that are not errors (skipped binary payloads, inputs with no object). Errors naming failed inputs are still printed.")
    var quiet = false

    func validate() throws {
        let hasFiles = !inputs.isEmpty || filesFrom != nil
        if capture.device != nil && hasFiles { throw ValidationError("give --device or input files, not both") }
        if capture.device == nil && !cameraControls.isEmpty { throw ValidationError("camera controls (--control, --*-mode, --exposure-*) need --device") }
        if capture.device == nil && !hasFiles {
            throw ValidationError("no inputs: give image, video or Y4M files, '-' for Y4M on stdin, or --device")
        }
        _ = try outputConfiguration()
    }

    /// The detection and preview options as one configuration; option errors become usage errors (exit 64).
    func outputConfiguration() throws -> OutputConfiguration {
        do {
            var configuration = try detection.outputConfiguration()
            try preview.apply(to: &configuration, detection: detection)
            configuration.face = try face.configuration()
            return configuration
        } catch ScanError.invalidArgument(let message) {
            throw ValidationError(message)
        }
    }

    func run() async throws {
        let decoderLimits = try limits.decoderLimits()
        // Before any thread exists: OpenCV's own size cap is an environment variable it reads once.
        ImageDecoder.prepareCodecsPlugin(limits: decoderLimits)
        let logger = try logging.makeLogger()
        let configuration = try outputConfiguration()
        let output: MetadataOutput
        do {
            output = try MetadataOutput(configuration: configuration)
        } catch let error as ScanError {
            if case .invalidArgument(let m) = error { throw ValidationError(m) }
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        if var live = capture.captureConfiguration() {
            live.controls = try cameraControls.configuration(rectOfInterest: configuration.rectOfInterest)
            switch try await LiveScan.run(configuration: live, frames: capture.frames, duration: capture.duration, output: output,
                                          logger: logger, mode: script.mode, oneshot: script.oneshot, quiet: quiet) {
            case .finished: return
            case .invalidArgument(let message): throw ValidationError(message)
            case .failed(let message):
                logger.critical("\(message)")
                throw ExitCode(ExitStatus.failure)
            }
        }
        var all = inputs.map(RawArguments.path)
        if let filesFrom {
            do { all += try readPathList(RawArguments.path(filesFrom)) } catch {
                logger.critical("\(error)")
                throw ExitCode(ExitStatus.failure)
            }
        }
        var scanner = FileScanner(output: output, logger: logger, frameLimit: capture.frames, limits: decoderLimits)
        scanner.mode = script.mode
        scanner.oneshot = script.oneshot
        scanner.quiet = quiet
        let summary = scanner.scan(inputs: all, sink: FileDescriptorSink())
        if let outputError = summary.outputError {
            // A full disk or an I/O error on stdout: what was scanned is not all written. Never exit 0.
            logger.critical("\(outputError)")
            throw ExitCode(ExitStatus.failure)
        }
        if summary.outputClosed || summary.completed { return }
        // Precedence: an output error (2, above), then failed inputs (2 all, 1 some), then "nothing found in
        // any input" (4), then success. An input with no object among others that had some is not an error.
        if !summary.failedInputs.isEmpty {
            throw ExitCode(summary.failedInputs.count == summary.inputs ? ExitStatus.failure : ExitStatus.inputFailed)
        }
        if summary.inputs > 0 && summary.inputsWithoutObjects.count == summary.inputs {
            if !quiet {
                let names = summary.inputsWithoutObjects
                let list = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", …" : "")
                logger.warning("no object found in any input: \(list)")
            }
            throw ExitCode(ExitStatus.nothingFound)
        }
    }
}

struct TypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "types",
        abstract: "List the metadata object types this build can report (availableMetadataObjectTypes), one per line.")

    func run() throws {
        let sink = FileDescriptorSink()
        for t in MetadataOutput.availableMetadataObjectTypes.sorted() { sink.write(Array((t.rawValue + "\n").utf8)) }
        try exitOnWriteError(sink, logger: Logger(label: "scand") { StderrLogHandler(label: $0) })
    }
}

/// Ends the command with status 2 (and one line on stderr) when writing `sink` failed for another reason
/// than its reader going away (which is a normal end).
func exitOnWriteError(_ sink: FileDescriptorSink, logger: Logger) throws {
    if case .writeFailed? = sink.failure {
        logger.critical("\(sink.failure!)")
        throw ExitCode(ExitStatus.failure)
    }
}

/// `--raw`, `--raw-bytes` and `--oneshot`, shared by `scan` and `run`.
struct ScriptOutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print values only, one per line, no JSON (as zbarimg --raw). Faces are not printed; a binary payload is skipped with a note on stderr.")
    var raw = false

    @Flag(name: .long, help: "With --raw (implied): print each code's exact payload bytes, then a newline, binary payloads included.")
    var rawBytes = false

    @Flag(name: .long, help: "Exit 0 after the first object of --types (with --raw: the first value printed).")
    var oneshot = false

    var mode: ScanOutputMode { (raw || rawBytes) ? .raw(bytes: rawBytes) : .json }
}
