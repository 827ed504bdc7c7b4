public import ScanCore
import ScanDetection

/// The code stage: the reader (``BarcodeDetector``; every pass on a still image, the stream budget on a stream)
/// and, on streams, the 1-D confirmation filter (``LinearCodeConfirmation``).
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
    /// Frames on which the reader's extra steps were skipped because the pipeline was late.
    public private(set) var shedFrames = 0

    /// A stage reading `configuration.types` (the code types only: the caller leaves out the rest).
    public init(configuration: BarcodeConfiguration) {
        self.configuration = configuration
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
        return StageResult(objects: codes)
    }
}
