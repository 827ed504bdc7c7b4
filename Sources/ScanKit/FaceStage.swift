import Logging
public import ScanCore
import ScanDetection

/// The face stage: the face detector driven by the tracker (``FaceTracker``: stable faceIDs, roll and yaw,
/// presence).
public final class FaceStage: DetectorStage {
    static let logger = Logger(label: "scand.faces")

    /// The stage's name in ``MetadataOutput/StageTimings``.
    public static let stageName = "faces"
    public var name: String { Self.stageName }
    private let detector: FaceDetector
    /// The tracker; carried over to the stage that replaces this one on a reload.
    let tracker: FaceTracker
    /// Whether the previous frame skipped its face search (a search is never skipped twice in a row).
    private var skippedSearch = false
    /// Frames on which the tracker skipped its slice of the search for new faces because the pipeline was late
    /// (`OutputConfiguration.shedLoadWhenLate`).
    public private(set) var skippedSearches = 0
    /// Why the neural face detector was asked for but the cascades work instead (missing model); nil otherwise.
    public var fallbackReason: String? { detector.fallbackReason }

    /// - Parameter previous: the stage this one replaces (a configuration reload): its tracker, with its tracks,
    ///   faceIDs and presence, carries over (with the new settings), so IDs never restart or repeat.
    /// - Throws: ``ScanError`` when the settings are invalid or the model cannot be loaded.
    /// - Parameters:
    ///   - identifiers: faceIDs shared with other cameras' stages (nil: the tracker's own).
    ///   - searchOffset: the shift of this camera's search cycle (``FaceTracker/init(configuration:identifiers:searchOffset:)``).
    public init(
        configuration: FaceConfiguration, models: ModelConfiguration, continuing previous: FaceStage? = nil,
        identifiers: IdentifierSequence? = nil, searchOffset: Double = 0
    ) throws {
        if let problem = configuration.validationError { throw ScanError.invalidArgument(problem) }
        let directory = try ModelLocator.directory(models)
        detector = try FaceDetector(configuration: configuration, modelDirectory: directory)
        if let note = detector.fallbackReason { Self.logger.warning("\(note)") }
        try detector.prepareWindowSearch()
        if let kept = previous?.tracker {
            kept.configuration = configuration
            tracker = kept
        } else {
            tracker = FaceTracker(configuration: configuration, identifiers: identifiers, searchOffset: searchOffset)
        }
    }

    public var presenceTypes: Set<MetadataObjectType> { [.face] }

    public func detect(_ frame: Frame, context: StageContext) throws -> StageResult {
        let skip = context.late && !skippedSearch
        skippedSearch = skip
        if skip { skippedSearches += 1 }
        let result = try tracker.process(
            frame, source: context.source.name, detector: detector, rectOfInterest: context.rectOfInterest,
            stream: context.source.isStream, skipSearch: skip)
        return StageResult(
            objects: result.objects,
            presence: result.transitions.map { Self.presenceEvent($0, source: context.source.name) })
    }

    public func finish(sourceName: String, frame: Int, time: Double) -> [PresenceEvent] {
        tracker.finish(frame: frame, time: time).map { Self.presenceEvent($0, source: sourceName) }
    }

    static func presenceEvent(_ t: FacePresenceTransition, source: String) -> PresenceEvent {
        PresenceEvent(
            transition: t.transition, type: .face, faceID: t.faceID, source: source,
            frame: t.frame, time: t.time, bounds: t.bounds)
    }
}
