public import ScanCore
public import ScanOutput
public import Logging
import ScanCapture

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
    public init() {}
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

    public init(output: MetadataOutput, logger: Logger, frameLimit: Int? = nil, limits: DecoderLimits = DecoderLimits()) {
        self.output = output; self.logger = logger; self.frameLimit = frameLimit; self.limits = limits
    }

    /// Scans `inputs` in order (raw file names; `-` is stdin) and writes one line per frame to `sink`.
    /// Stops early only when the output fails (see ``ScanSummary/outputClosed`` and ``ScanSummary/outputError``).
    public func scan(inputs: [InputPath], sink: FileDescriptorSink) -> ScanSummary {
        var summary = ScanSummary()
        for input in inputs {
            if sink.hasFailed { break }
            summary.inputs += 1
            do {
                let source = try openFileSource(path: input, limits: limits)
                defer { source.close() }
                try scan(source: source, sink: sink, summary: &summary)
            } catch {
                summary.failedInputs.append(input.displayName)
                logger.error("\(error)")
            }
        }
        switch sink.failure {
        case .readerGone?: summary.outputClosed = true
        case .writeFailed?: summary.outputError = sink.failure?.description
        case nil: break
        }
        return summary
    }

    /// Scans one source to its end (or the frame limit), delivering each event to `sink`.
    public func scan(source: any FrameSource, sink: any EventSink, summary: inout ScanSummary) throws {
        var count = 0
        while let frame = try source.nextFrame() {
            let event = try output.process(frame, source: source.info)
            sink.deliver(encoder.encode(.metadata(event)))
            summary.frames += 1
            summary.objects += event.objects.count
            count += 1
            if let frameLimit, count >= frameLimit { break }
            if let fd = sink as? FileDescriptorSink, fd.hasFailed { break }
        }
    }
}
