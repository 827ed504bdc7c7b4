public import Logging
import ScanCapture
public import ScanCore
public import ScanOutput

/// The outcome of scanning a list of inputs.
public struct ScanSummary: Sendable {
    public var inputs = 0
    public var failedInputs: [String] = []
    public var frames = 0
    public var objects = 0
    /// True when the output's reader went away (EPIPE) and scanning stopped early: a normal end.
    public var outputClosed = false
    /// Set when writing the output failed for another reason (a full disk, an I/O error): scanning stopped
    /// and the run must end with an error.
    public var outputError: String?
    /// Inputs that were read to their end (or the frame limit) without any object: `scand scan` exits 4.
    public var inputsWithoutObjects: [String] = []
    /// Codes not printed in `--raw` mode because their payload is not text (and `--raw-bytes` was not given).
    public var skippedBinary = 0
    /// `--oneshot`: the first object was delivered and scanning stopped.
    public var completed = false
    /// Values written in `--raw` mode (lines, or payloads with `--raw-bytes`): none makes `scand scan` exit 4.
    public var printedValues = 0
    /// `--annotate`: the files that could not be written (each logged as an error); the scan's lines were
    /// still written.
    public var annotationFailures: [String] = []
    public init() {}
}

/// A file `--annotate` could not write: the error line and the file it names.
public struct FrameObserverError: Error, Sendable {
    public var file: String
    public var message: String
    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }
}

/// How `scand scan` writes what it finds.
public enum ScanOutputMode: Sendable, Equatable {
    /// One JSON line per image or frame (the contract).
    case json
    /// `--raw`: each code's value alone on a line; with `bytes`, the exact payload bytes (see ``RawValue``).
    case raw(bytes: Bool)
}

/// The data-only output of `--raw` (as `zbarimg --raw`): a code's value, then `\n`, nothing else.
///
/// A value is printed as is, even when it holds a newline (it is data; `zbarimg --raw` does the same).
/// Faces have no value and are never printed. A code whose payload is not text (`bytes` but no `value`) is
/// skipped, unless `rawBytes` (`--raw-bytes`) asks for the exact payload bytes, which it then prints for
/// every code that has them (text codes too).
public enum RawValue {
    /// The bytes to write for one object, `\n` included; nil when the object is not printed. `binary` is
    /// set when the object was skipped because its payload is not text.
    public static func line(type: MetadataObjectType, value: String?, payload: [UInt8]?, rawBytes: Bool)
        -> (line: [UInt8]?, binary: Bool)
    {
        if type == .face { return (nil, false) }
        if rawBytes, let payload { return (payload + [0x0A], false) }
        if let value { return (Array(value.utf8) + [0x0A], false) }
        return (nil, payload != nil)
    }

    /// The note logged (once per input) when binary payloads were skipped.
    public static func skippedNote(input: String) -> String {
        "\(input): a code's payload is binary (not text); not printed in --raw mode (use --raw-bytes, or the JSON output's 'bytes')"
    }
}

/// `scand scan`: scans each input in turn and delivers one metadata event per frame. A failing input is
/// logged (one line naming it) and skipped; the others are still scanned.
public struct FileScanner {
    public var output: MetadataOutput
    public var encoder = JSONLinesEncoder()
    public var logger: Logger
    /// Stop each source after this many frames (nil: all).
    public var frameLimit: Int?
    /// What a decoder may allocate for one input (`--max-pixels`).
    public var limits: DecoderLimits
    /// JSON lines (default) or values only.
    public var mode: ScanOutputMode = .json
    /// Stop after the first object (`--oneshot`): in JSON mode the line of the frame it is on, in raw mode
    /// its value alone (faces and skipped binary payloads do not count there).
    public var oneshot = false
    /// Do not log the notes that are not errors (`-q`: skipped binary payloads).
    public var quiet = false
    /// Sees each frame with what was found on it, before its line is delivered (`scan --annotate`), and
    /// returns the file it wrote for it (nil: none), which the JSON line names as `"annotated"`. An error it
    /// throws (a ``FrameObserverError``) is logged and listed in ``ScanSummary/annotationFailures``: the
    /// frame's line is still written, and the input's other frames are not observed.
    public var frameObserver: ((Frame, MetadataEvent, SourceInfo) throws(FrameObserverError) -> String?)?
    /// Called after each frame with the input's name, the frames scanned from it so far and the frame's time
    /// in seconds of the input (for a progress line; nil: no calls).
    public var onFrame: (@Sendable (_ input: String, _ frames: Int, _ time: Double) -> Void)?

    public init(output: MetadataOutput, logger: Logger, frameLimit: Int? = nil, limits: DecoderLimits = DecoderLimits())
    {
        self.output = output
        self.logger = logger
        self.frameLimit = frameLimit
        self.limits = limits
    }

    /// Scans `inputs` in order (raw file names; `-` is stdin) and writes one line per frame to `sink`.
    /// Stops early only when the output fails (see ``ScanSummary/outputClosed`` and ``ScanSummary/outputError``).
    public func scan(inputs: [InputPath], sink: FileDescriptorSink) -> ScanSummary {
        var summary = ScanSummary()
        for input in inputs {
            if sink.hasFailed { break }
            scan(input: input, sink: sink, summary: &summary)
            if summary.completed { break }
        }
        switch sink.failure {
        case .readerGone?: summary.outputClosed = true
        case .writeFailed?: summary.outputError = sink.failure?.description
        case nil: break
        }
        return summary
    }

    /// Scans one input to its end into `sink`, adding to `summary`: an input that cannot be opened or fails
    /// on a frame is logged (one line naming it) and listed in ``ScanSummary/failedInputs``, not thrown.
    func scan(input: InputPath, sink: any EventSink, summary: inout ScanSummary) {
        summary.inputs += 1
        do {
            let source = try openFileSource(path: input, limits: limits)  // the pipeline closes it
            if let note = source.info.note { logger.warning("\(note)") }
            let before = summary.objects
            try scan(source: source, sink: sink, summary: &summary)
            if summary.objects == before { summary.inputsWithoutObjects.append(input.displayName) }
        } catch {
            summary.failedInputs.append(input.displayName)
            logger.error("\(Self.failureMessage(error, input: input.displayName))")
        }
    }

    /// The error line for an input that failed: the error as it is when it already names the input (it
    /// could not be opened, read or decoded), else prefixed with the input's name (a detector that failed
    /// on one of its frames, e.g. zxing-cpp's `std::bad_alloc` under an address-space limit), so every
    /// failure says which input it was.
    static func failureMessage(_ error: any Error, input: String) -> String {
        switch error as? ScanError {
        case .unreadableInput?, .undecodableInput?, .device?: return "\(error)"
        default: return "\(input): \(error)"
        }
    }

    /// Scans one source to its end (or the frame limit, or the first object with ``oneshot``), delivering
    /// each event to `sink`: a ``FramePipeline`` with ``PipelineSettings/scan(frameLimit:)`` (lossless, read on
    /// this thread) and a ``ScanLines`` consumer. The source is closed at the end.
    ///
    /// In raw mode, a code is printed when it is on a frame and was not on the previous one (same type and
    /// value): an image prints each code it holds; a video prints a code once each time it comes into view,
    /// not on every frame (as zbarcam does).
    /// - Throws: the source's error, or the detectors' on one of its frames.
    public func scan(source: any FrameSource, sink: any EventSink, summary: inout ScanSummary) throws {
        var pipeline = FramePipeline(settings: .scan(frameLimit: frameLimit), processor: output)
        var lines = ScanLines(scanner: self, sink: sink, summary: summary)
        defer { summary = lines.summary }
        if case .sourceFailed(_, let error) = try pipeline.run(source: source, consumer: &lines) { throw error }
    }

    /// A metadata line with `"annotated":PATH` added as its first key (keys stay sorted: it sorts before
    /// every other key of a metadata line).
    static func line(_ line: [UInt8], naming path: String) -> [UInt8] {
        guard line.first == UInt8(ascii: "{") else { return line }
        var value = JSONLinesEncoder().encodeLine(path)
        value.removeLast()  // its newline
        return [UInt8(ascii: "{")] + Array(#""annotated":"#.utf8) + value + [UInt8(ascii: ",")] + line.dropFirst()
    }
}

/// `scand scan`'s consumer: each frame's JSON line (or `--raw` values) to the sink, `--annotate`,
/// `--oneshot` and the progress line.
struct ScanLines: FrameConsumer {
    typealias Processor = MetadataOutput
    let scanner: FileScanner
    let sink: any EventSink
    var summary: ScanSummary
    private var count = 0
    private var previous = Set<RawKey>()
    private var notedBinary = false
    private var observe: ((Frame, MetadataEvent, SourceInfo) throws(FrameObserverError) -> String?)?

    init(scanner: FileScanner, sink: any EventSink, summary: ScanSummary) {
        self.scanner = scanner
        self.sink = sink
        self.summary = summary
        observe = scanner.frameObserver
    }

    private struct RawKey: Hashable {
        var type: MetadataObjectType, value: String?, payload: [UInt8]?
    }

    func processingFailed(_ item: PipelineFrame, error: any Error) throws { throw error }

    mutating func consume(_ item: PipelineFrame, _ result: MetadataOutput.FrameResult) -> Bool {
        let event = result.event
        summary.frames += 1
        var annotated: String?
        do { annotated = try observe?(item.frame, event, item.info) } catch {
            scanner.logger.error("\(error.message)")
            summary.annotationFailures.append(error.file)
            observe = nil
        }
        summary.objects += event.objects.count
        scanner.onFrame?(item.info.name, count + 1, item.frame.time)
        switch scanner.mode {
        case .json:
            var encoded = scanner.encoder.encode(.metadata(event))
            if let annotated { encoded.line = FileScanner.line(encoded.line, naming: annotated) }
            sink.deliver(encoded)
            if scanner.oneshot && !event.objects.isEmpty {
                summary.completed = true
                return false
            }
        case .raw(let rawBytes):
            if !writeRaw(event, rawBytes: rawBytes, source: item.info.name) { return false }
        }
        count += 1
        if let fd = sink as? FileDescriptorSink, fd.hasFailed { return false }
        if let slot = sink as? ParallelScan.SlotSink, slot.isStopped { return false }
        return true
    }

    /// Writes the values of the codes that came into view; false when ``FileScanner/oneshot`` is done.
    private mutating func writeRaw(_ event: MetadataEvent, rawBytes: Bool, source: String) -> Bool {
        var current = Set<RawKey>()
        defer { previous = current }
        for object in event.objects {
            let key = RawKey(type: object.type, value: object.stringValue, payload: object.payload)
            current.insert(key)
            if previous.contains(key) { continue }
            let (line, binary) = RawValue.line(
                type: object.type, value: object.stringValue, payload: object.payload, rawBytes: rawBytes)
            if binary {
                summary.skippedBinary += 1
                if !notedBinary && !scanner.quiet { scanner.logger.warning("\(RawValue.skippedNote(input: source))") }
                notedBinary = true
            }
            guard let line else { continue }
            sink.deliver(EncodedEvent(name: "raw", objectTypes: [object.type], line: line, seq: nil))
            summary.printedValues += 1
            if scanner.oneshot {
                summary.completed = true
                return false
            }
        }
        return true
    }
}
