import ArgumentParser
import Logging
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit
import ScanOutput
import ScanRun

#if canImport(Glibc)
    import Glibc
#endif

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan images, videos and Y4M streams; print one JSON line per image or frame.",
        discussion: """
            Inputs: PNG, JPEG, GIF, HEIC/AVIF, PGM/PPM/PBM and anything OpenCV's imgcodecs reads; Y4M files; \
            '-' (stdin: a Y4M stream, streamed frame by frame, or one image, told apart by their first bytes); \
            video files (mp4, mkv, avi, …); or a V4L2 camera with --device (see docs/capture.md). A failing input \
            gets one error line on stderr and the others are still scanned. --files-from takes one name per line \
            (a line that begins with '#' is a comment: write ./#NAME for such a file) or, with -0/--null, \
            NUL-separated names taken exactly (no comments; as find -print0 writes them). A name that begins \
            with '-' is read as an option: put '--' before the inputs or write ./-NAME. --raw prints each code's \
            value alone on a line (faces are not printed; a binary payload is skipped with one note per input, or \
            printed as its exact bytes with --raw-bytes; a value holding a newline is printed as is). At the end \
            a summary line goes to stderr (inputs, frames, objects, time; -q drops it); on a terminal, inputs \
            longer than a few seconds get a progress line.

            EXIT STATUS (when several apply: \(ExitStatus.scanPrecedence)):
            \(ExitStatus.scanHelp)

            EXAMPLES:
              scand scan photo.jpg                        # one JSON line per image
              scand scan --raw --types qrcode *.png       # values only (zbar's type names work)
              scand scan --types all clip.mp4 | jq -c '.objects[]'
              scand scan --device /dev/video0 --types qr --oneshot --raw
              scand scan --files-from list.txt -q || echo "exit $? (4: no code found)"
              scand scan --jobs 2 photos/*.jpg > codes.jsonl   # two photos at a time, lines in order
              find photos -name '*.png' -print0 | scand scan --files-from - -0 --jobs 0
              curl -s https://example.com/qr.png | scand scan --raw -   # an image on stdin
            """)

    @Argument(help: ArgumentHelp("Files to scan; '-' reads stdin (a Y4M stream or an image).", valueName: "input"))
    var inputs: [String] = []

    @OptionGroup(title: "Sources") var sources: ScanSourceOptions
    @OptionGroup(title: "Outputs") var script: ScriptOutputOptions
    @OptionGroup(title: "Outputs") var notes: QuietOption
    @OptionGroup(title: "Outputs") var logging: LoggingOptions
    @OptionGroup(title: "Types") var types: TypeOptions
    @OptionGroup(title: "Preview (view coordinates)") var preview: PreviewOptions
    @OptionGroup(title: "Camera tuning (--device)") var capture: CaptureOptions
    @OptionGroup(title: "Camera controls (with --device)") var cameraControls: ControlOptions
    @OptionGroup(title: "Reader tuning") var detection: DetectionOptions
    @OptionGroup(title: "Face tuning (--types face)") var face: FaceOptions
    @OptionGroup(title: "Annotated images") var annotation: AnnotateOptions

    func validate() throws {
        let hasFiles = !inputs.isEmpty || sources.filesFrom != nil
        if sources.device != nil && hasFiles { throw ValidationError("give --device or input files, not both") }
        if sources.device == nil && !cameraControls.isEmpty {
            throw ValidationError("camera controls (--control, --*-mode, --exposure-*) need --device")
        }
        if sources.device == nil && !hasFiles {
            throw ValidationError("no inputs: give image, video or Y4M files, '-' for stdin, or --device")
        }
        if sources.device == nil && (capture.anyGiven || sources.duration != nil) {
            throw ValidationError("--preset, --size, --fps, --stall-timeout and --duration need --device")
        }
        if !(0...64).contains(sources.jobs) {
            throw ValidationError("--jobs must be 0 (all cores) or 1...64, got \(sources.jobs)")
        }
        if sources.null && sources.filesFrom == nil {
            throw ValidationError("-0/--null reads the --files-from list as NUL-separated names: give --files-from")
        }
        if annotation.overwrite && annotation.annotate == nil {
            throw ValidationError("--overwrite is for --annotate DIR")
        }
        if sources.jobs != 1 {
            if sources.device != nil {
                throw ValidationError("--jobs scans several input files at once; not with --device")
            }
            if script.oneshot {
                throw ValidationError("--oneshot stops at the first object in input order; not with --jobs")
            }
            if annotation.annotate != nil { throw ValidationError("--annotate is not available with --jobs") }
        }
        _ = try outputConfiguration()
    }

    /// The detection and preview options as one configuration; option errors become usage errors (exit 64).
    func outputConfiguration() throws -> OutputConfiguration {
        do {
            return try makeOutputConfiguration(types: types, detection: detection, preview: preview, face: face)
        } catch ScanError.invalidArgument(let message) {
            throw ValidationError(message)
        }
    }

    func run() async throws {
        let decoderLimits = try sources.limits.decoderLimits()
        // Before any thread exists: OpenCV's own size cap is an environment variable it reads once.
        ImageDecoder.prepareCodecsPlugin(limits: decoderLimits)
        let logger = logging.makeLogger()
        // What libzbar (or another C library) prints on stderr becomes log lines, not raw text (LibraryStderr).
        LibraryStderr.route(to: logger)
        defer { LibraryStderr.stopRouting() }
        let configuration = try outputConfiguration()
        let output: MetadataOutput
        do {
            output = try MetadataOutput(configuration: configuration)
        } catch let error as ScanError {
            if case .invalidArgument(let m) = error { throw ValidationError(m) }
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        if let device = sources.device {
            if annotation.annotate != nil {
                throw ValidationError(
                    "--annotate writes files' frames; with --device use 'scand run --http' and /snapshot.jpg?annotate=1"
                )
            }
            var live = try capture.captureConfiguration(device: device)
            live.controls = try cameraControls.configuration(rectOfInterest: configuration.rectOfInterest)
            switch try await LiveScan.run(
                configuration: live, frames: sources.frames, duration: sources.duration, output: output,
                logger: logger, mode: script.mode, oneshot: script.oneshot, quiet: notes.quiet)
            {
            case .finished: return
            case .invalidArgument(let message): throw ValidationError(message)
            case .failed(let message):
                logger.critical("\(message)")
                throw ExitCode(ExitStatus.failure)
            }
        }
        var all = inputs.map(RawArguments.path)
        if let filesFrom = sources.filesFrom {
            do { all += try readPathList(RawArguments.path(filesFrom), nulSeparated: sources.null) } catch {
                logger.critical("\(error)")
                throw ExitCode(ExitStatus.failure)
            }
        }
        var scanner = FileScanner(output: output, logger: logger, frameLimit: sources.frames, limits: decoderLimits)
        scanner.mode = script.mode
        scanner.oneshot = script.oneshot
        scanner.quiet = notes.quiet
        if let directory = annotation.annotate {
            let writer: AnnotationWriter
            do {
                writer = try AnnotationWriter(
                    directory: directory, frames: annotation.annotateFrames, overwrite: annotation.overwrite)
            } catch {
                logger.critical("\(error)")
                throw ExitCode(ExitStatus.failure)
            }
            scanner.frameObserver = { frame, event, source throws(FrameObserverError) in
                try writer.write(frame, event, source)
            }
        }
        let progress = ProgressLine()
        let jobs = sources.jobs == 0 ? ScanSourceOptions.onlineCores() : sources.jobs
        if !notes.quiet && ProgressLine.stderrIsTerminal && jobs == 1 {
            scanner.onFrame = { progress.frame(input: $0, frames: $1, time: $2) }
        }
        let started = MonotonicInstant.now
        let summary: ScanSummary
        do {
            summary = try scanner.scan(inputs: all, sink: FileDescriptorSink(), jobs: jobs) {
                try MetadataOutput(configuration: configuration)
            }
        } catch {
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }
        progress.finishInput()
        if !notes.quiet && !summary.outputClosed && summary.outputError == nil && !summary.completed {
            writeStderr(summaryLine(summary, seconds: started.elapsed.inSeconds) + "\n")
        }
        if let outputError = summary.outputError {
            // A full disk or an I/O error on stdout: what was scanned is not all written. Never exit 0.
            logger.critical("\(outputError)")
            throw ExitCode(ExitStatus.failure)
        }
        if summary.outputClosed || summary.completed { return }
        let status = exitStatus(summary)
        if status != ExitStatus.success { throw ExitCode(status) }
    }

    /// The exit status of a scan that ran to its end (``ExitStatus/scanTable``): failed inputs (2 all, 1
    /// some), then annotated images not written (1), then nothing found or, with --raw, nothing printed (4),
    /// else 0. An input with no object among others that had some is not an error. Logs the note for 4.
    func exitStatus(_ summary: ScanSummary) -> Int32 {
        if !summary.failedInputs.isEmpty {
            return summary.failedInputs.count == summary.inputs ? ExitStatus.failure : ExitStatus.inputFailed
        }
        if !summary.annotationFailures.isEmpty { return ExitStatus.inputFailed }
        let logger = logging.makeLogger()
        if summary.inputs == 0 {
            logger.warning("no inputs: the --files-from list names no file")
            return ExitStatus.nothingFound
        }
        if summary.inputsWithoutObjects.count == summary.inputs {
            if !notes.quiet {
                let names = summary.inputsWithoutObjects
                let list = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", …" : "")
                logger.warning("no object found in any input: \(list)")
            }
            return ExitStatus.nothingFound
        }
        if script.mode != .json && summary.printedValues == 0 {
            if !notes.quiet {
                logger.warning(
                    "--raw printed no value (\(summary.skippedBinary) binary payloads skipped; --raw-bytes prints them)"
                )
            }
            return ExitStatus.nothingFound
        }
        return ExitStatus.success
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
    @Flag(name: .setting(.raw), help: .setting(.raw))
    var raw = false

    @Flag(name: .setting(.rawBytes), help: .setting(.rawBytes))
    var rawBytes = false

    @Flag(name: .setting(.oneshot), help: .setting(.oneshot))
    var oneshot = false

    var mode: ScanOutputMode { (raw || rawBytes) ? .raw(bytes: rawBytes) : .json }
}

/// `scand scan`'s sources besides the input files: a list of paths, a camera, and their limits.
struct ScanSourceOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Read input paths from FILE ('-': stdin), one per line (LF or CRLF; empty lines and lines that begin with '#' are skipped: write ./#NAME for such a file), or NUL-separated with -0.",
            valueName: "file"))
    var filesFrom: String?

    @Flag(
        name: [.customShort("0"), .customLong("null")],
        help: "The --files-from list is NUL-separated (find -print0, xargs -0): names taken exactly, no comments.")
    var null = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Capture from this V4L2 device instead of files: a node (/dev/video0) or a /dev/v4l/by-id name. See 'scand devices'.",
            valueName: "path-or-id"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("Stop after N frames (for files: per input).", valueName: "N"))
    var frames: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Scan up to N input files at once, each with its own detectors (default 1; 0: one per online CPU core). Lines still come out in input order; memory grows with N. Not with --oneshot, --annotate or --device.",
            valueName: "N"))
    var jobs: Int = 1

    /// The online CPU cores (`--jobs 0`), 1...64.
    static func onlineCores() -> Int { min(64, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    @Option(name: .long, help: ArgumentHelp("Stop live capture after S seconds.", valueName: "S"))
    var duration: Double?

    @OptionGroup var limits: DecoderLimitOptions

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive, got \(duration)") }
    }
}

/// `-q`, as zbarimg has it.
struct QuietOption: ParsableArguments {
    @Flag(
        name: .shortAndLong,
        help:
            "Quiet, as zbarimg -q: no notes on stderr that are not errors (skipped binary payloads, inputs with no object, the summary). Errors naming failed inputs are still printed."
    )
    var quiet = false
}
