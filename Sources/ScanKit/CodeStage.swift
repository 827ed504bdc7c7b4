public import ScanCore
import ScanDetection

/// The code stage: the reader (``BarcodeDetector``; every pass on a still image, the stream budget on a stream)
/// and, on streams, the 1-D confirmation filter (``LinearCodeConfirmation``) and the symbols' tracks
/// (``CodeTracker``: `trackID`); the parts of structured-append sequences joined (``StructuredAppendAssembler``:
/// in one image, or within a window of a stream).
public final class CodeStage: DetectorStage {
    /// The stage's name in ``MetadataOutput/StageTimings``.
    public static let stageName = "codes"
    public var name: String { Self.stageName }
    private let configuration: BarcodeConfiguration
    private let reader: BarcodeDetector
    private let confirmation: LinearCodeConfirmation?
    /// The stream source whose frames the reader's stream state (``BarcodeDetector/startStream()``) and the
    /// 1-D confirmation are about.
    private var streamSource: String?
    /// The symbols' tracks on streams; carried over to the stage that replaces this one on a reload, so a
    /// `trackID` never restarts or repeats within a run.
    let tracker: CodeTracker
    /// The parts of structured-append sequences seen on the stream.
    private let sequences = StructuredAppendAssembler()
    /// Frames on which the reader's extra steps were skipped because the pipeline was late.
    public private(set) var shedFrames = 0

    /// A stage reading `configuration.types` (the code types only: the caller leaves out the rest).
    /// - Parameter previous: the stage this one replaces (a reload): its tracks and track identifiers carry over.
    /// - Parameter identifiers: trackIDs shared with other cameras' stages (nil: the tracker's own).
    public init(
        configuration: BarcodeConfiguration, continuing previous: CodeStage? = nil,
        identifiers: IdentifierSequence? = nil
    ) {
        self.configuration = configuration
        tracker = previous?.tracker ?? CodeTracker(identifiers: identifiers)
        reader = BarcodeDetector(configuration: configuration)
        confirmation =
            configuration.confirmLinearCodes ? LinearCodeConfirmation(window: configuration.confirmationWindow) : nil
    }

    public func detect(_ frame: Frame, context: StageContext) throws -> StageResult {
        let source = context.source
        let isStream = source.isStream
        // Each stream input starts fresh: nothing read on another input's frames carries over to this one's.
        if isStream, streamSource != source.name {
            reader.startStream()
            confirmation?.reset()
            streamSource = source.name
        }
        var codes: [MetadataObject]
        if isStream, var steps = configuration.streamStepsPerFrame {
            if context.late {
                steps = 0
                shedFrames += 1
            }
            codes = try reader.detectStream(
                in: frame, rectOfInterest: context.rectOfInterest, steps: steps, deadline: context.deadline)
        } else {
            codes = try reader.detect(in: frame, rectOfInterest: context.rectOfInterest)
        }
        // Streams only (video, Y4M, cameras): a still image has no second frame to confirm with.
        if let confirmation, isStream {
            codes = confirmation.filter(codes, frame: frame.index)
        }
        if isStream {
            codes = sequences.update(codes, source: source.name, time: frame.time)
            codes = tracker.update(
                codes, source: source.name, time: frame.time, width: frame.width, height: frame.height)
        } else {
            codes = StructuredAppendAssembler.joined(codes)
        }
        return StageResult(objects: codes)
    }
}
