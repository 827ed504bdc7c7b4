import Dispatch
import Logging
import ScanCapture
public import ScanCore
import ScanDetection

/// What the pipeline does with each frame (`AVCaptureMetadataOutput`'s settings).
public struct OutputConfiguration: Sendable {
    /// Enabled types (`metadataObjectTypes`).
    public var metadataObjectTypes: Set<MetadataObjectType>
    /// Only this part of the frame is scanned (`rectOfInterest`, normalized device coordinates).
    public var rectOfInterest: NormalizedRect
    public var barcode: BarcodeConfiguration
    public var models: ModelConfiguration
    /// The consumer's preview (`AVCaptureVideoPreviewLayer`): when set, every object gets its `view`
    /// geometry, computed with ``PreviewGeometry`` for the size of the frame it was found on.
    public var preview: PreviewConfiguration?
    /// Scan only the part of the picture shown in this rectangle of the preview (view points).
    /// Needs ``preview``; replaces ``rectOfInterest`` (set one or the other). Converted per frame size with
    /// ``PreviewGeometry/deviceRect(fromViewRect:)`` and intersected with the frame.
    public var rectOfInterestView: ViewRect?
    /// Face detection and tracking (used when `.face` is enabled).
    public var face: FaceConfiguration
    /// With codes and faces both enabled, read them at the same time on two threads (two cores).
    public var parallelDetectors: Bool = true
    /// On live sources (cameras), shed optional work on a frame when the previous frame took longer than
    /// 90 % of the frame interval, so the pipeline catches up instead of falling behind: the code reader
    /// skips its extra steps, and the face tracker skips that frame's slice of the search for new faces
    /// (never on two frames in a row, so the search always goes on). The plain code pass and the tracking
    /// of known faces still run on every frame.
    public var shedLoadWhenLate: Bool = true

    public init(
        metadataObjectTypes: Set<MetadataObjectType> = MetadataOutput.defaultTypes,
        rectOfInterest: NormalizedRect = .unit,
        barcode: BarcodeConfiguration = BarcodeConfiguration(),
        models: ModelConfiguration = ModelConfiguration(),
        preview: PreviewConfiguration? = nil,
        rectOfInterestView: ViewRect? = nil,
        face: FaceConfiguration = FaceConfiguration()
    ) {
        self.metadataObjectTypes = metadataObjectTypes
        self.rectOfInterest = rectOfInterest
        self.barcode = barcode
        self.models = models
        self.preview = preview
        self.rectOfInterestView = rectOfInterestView
        self.face = face
    }
}

/// Runs the detector stages on frames and produces one ``MetadataEvent`` per frame
/// (`AVCaptureMetadataOutput`). Owns its stages (``DetectorStage``: codes, faces); use from one thread at a time.
public final class MetadataOutput {
    /// Every type this build can report (`availableMetadataObjectTypes`), with every engine, faces included.
    public static var availableMetadataObjectTypes: Set<MetadataObjectType> {
        BarcodeDetector.availableTypes(engine: .both).union([.face])
    }

    /// The types this build can report with `engine` (faces included).
    public static func availableMetadataObjectTypes(engine: BarcodeEngine) -> Set<MetadataObjectType> {
        BarcodeDetector.availableTypes(engine: engine).union([.face])
    }

    /// Types enabled when none are chosen: every code type (narrowed to what the chosen engine reads).
    public static var defaultTypes: Set<MetadataObjectType> { BarcodeDetector.availableTypes(engine: .both) }

    public let configuration: OutputConfiguration
    /// The detector stages, in the order their objects are reported (``makeStages(_:continuing:)``).
    let stages: [any DetectorStage]
    /// Preview geometry and rect of interest per frame size (sources rarely change size, so this stays tiny).
    var perFrameSize: [PixelSize: FrameSizeSettings] = [:]

    /// Why the neural face detector was asked for but the cascades work instead (missing model); nil otherwise.
    public var faceDetectorFallback: String? { stage(FaceStage.self)?.fallbackReason }

    /// This output's stage of type `T`, if it has one.
    func stage<T: DetectorStage>(_: T.Type) -> T? { stages.lazy.compactMap { $0 as? T }.first }

    /// - Parameter previous: the output this one replaces (a configuration reload): its face tracker, with its
    ///   tracks, faceIDs and presence, carries over (with the new face settings), and its code tracker with its
    ///   `trackID`s, so IDs never restart or repeat.
    /// - Parameters:
    ///   - identifiers: the run's shared faceID and trackID sequences (several cameras); nil: the trackers'
    ///     own. Unused with `previous`, whose trackers carry over with theirs.
    ///   - faceSearchOffset: camera k of n in one run: k / n, so the cameras spread their face searches.
    /// - Throws: ``ScanError`` when a type is unavailable or a model cannot be loaded.
    public init(
        configuration: OutputConfiguration, continuing previous: MetadataOutput? = nil,
        identifiers: TrackIdentifiers? = nil, faceSearchOffset: Double = 0
    ) throws {
        var configuration = configuration
        let engineTypes = Self.availableMetadataObjectTypes(engine: configuration.barcode.engine)
        if configuration.metadataObjectTypes == Self.defaultTypes {
            configuration.metadataObjectTypes.formIntersection(engineTypes)
        }
        let unavailable = configuration.metadataObjectTypes.subtracting(Self.availableMetadataObjectTypes)
        if !unavailable.isEmpty {
            throw ScanError.invalidArgument(
                "not available in this build: \(unavailable.sorted().map(\.rawValue).joined(separator: ","))")
        }
        let needsZXing = configuration.metadataObjectTypes.filter(\.isMachineReadableCode).subtracting(engineTypes)
        if !needsZXing.isEmpty {
            throw ScanError.invalidArgument(
                "\(needsZXing.sorted().map(\.rawValue).joined(separator: ",")) cannot be read with --engine \(configuration.barcode.engine.rawValue): use --engine both"
            )
        }
        guard configuration.rectOfInterest.isValidRectOfInterest else {
            throw ScanError.invalidArgument("rect of interest must be a non-empty rectangle inside 0...1")
        }
        try Self.validatePreview(configuration)
        stages = try Self.makeStages(
            configuration, continuing: previous, identifiers: identifiers, faceSearchOffset: faceSearchOffset)
        self.configuration = configuration
    }

    /// An output that runs `stages` as they are, in that order (tests: stages the library does not register).
    init(configuration: OutputConfiguration, stages: [any DetectorStage]) {
        self.configuration = configuration
        self.stages = stages
    }

    /// The stages `configuration` enables, one line each: a new detector is registered here.
    static func makeStages(
        _ configuration: OutputConfiguration, continuing previous: MetadataOutput?,
        identifiers: TrackIdentifiers? = nil, faceSearchOffset: Double = 0
    ) throws -> [any DetectorStage] {
        var stages: [any DetectorStage] = []
        var codes = configuration.barcode
        codes.types = configuration.metadataObjectTypes.filter(\.isMachineReadableCode)
        if !codes.types.isEmpty {
            stages.append(
                CodeStage(
                    configuration: codes, continuing: previous?.stage(CodeStage.self),
                    identifiers: identifiers?.codes))
        }
        if configuration.metadataObjectTypes.contains(.face) {
            stages.append(
                try FaceStage(
                    configuration: configuration.face, models: configuration.models,
                    continuing: previous?.stage(FaceStage.self), identifiers: identifiers?.faces,
                    searchOffset: faceSearchOffset))
        }
        return stages
    }

    /// Ends every tracked face of `source` (end of input or shutdown) and returns their `lost` events.
    public func finishPresence(source: SourceInfo, frame: Int, time: Double) -> [PresenceEvent] {
        finishPresence(sourceName: source.name, frame: frame, time: time)
    }

    /// ``finishPresence(source:frame:time:)`` by source name.
    public func finishPresence(sourceName: String, frame: Int, time: Double) -> [PresenceEvent] {
        stages.flatMap { $0.finish(sourceName: sourceName, frame: frame, time: time) }
    }

    /// Seconds spent in each stage of one ``processFrame(_:source:)`` call (for benchmarks).
    public struct StageTimings: Sendable {
        /// Each detector stage's seconds, by the stage's name (``DetectorStage/name``).
        public var seconds: [String: Double] = [:]
        /// Code detection (all passes, all engines).
        public var barcode: Double { seconds[CodeStage.stageName] ?? 0 }
        /// Face detection and tracking together (the tracker drives the detector).
        public var face: Double { seconds[FaceStage.stageName] ?? 0 }
        /// Presence bookkeeping and view geometry.
        public var tracking = 0.0
    }

    /// Everything one call decided about one frame: returned, never left behind in a property.
    public struct FrameResult: Sendable {
        /// The frame's `metadata` event (objects in normalized device coordinates, plus view geometry
        /// when a preview is configured).
        public var event: MetadataEvent
        /// Face presence changes the tracker decided on this frame (`appeared` / `lost` per faceID,
        /// `lost` after ``FaceConfiguration/presenceGrace``); empty when faces are off.
        public var facePresence: [PresenceEvent]
        /// Seconds spent in each stage.
        public var timings: StageTimings
    }
    /// Wall seconds the previous ``process(_:source:)`` call took (for ``OutputConfiguration/shedLoadWhenLate``).
    private var previousFrameTook = Duration.zero
    /// Frames on which the code reader's extra steps were skipped because the pipeline was late.
    public var shedFrames: Int { stage(CodeStage.self)?.shedFrames ?? 0 }
    /// Frames on which the face tracker skipped its slice of the search for new faces because the pipeline
    /// was late (``OutputConfiguration/shedLoadWhenLate``).
    public var skippedFaceSearches: Int { stage(FaceStage.self)?.skippedSearches ?? 0 }

    /// The frame interval (seconds) of a live source while ``OutputConfiguration/shedLoadWhenLate`` is on;
    /// nil otherwise (files, or shedding off): the one place both shedding rules below ask.
    private func sheddingInterval(_ source: SourceInfo) -> Double? {
        guard configuration.shedLoadWhenLate, source.isLive, let rate = source.frameRate, rate > 0 else { return nil }
        return 1 / rate
    }

    /// Live sources: when the code reader's extra steps must be done by (a ``MonotonicInstant``), 85 % of
    /// the frame interval after the frame started, so a step that would make the frame late waits its next
    /// turn (``BarcodeDetector/detectStream(in:rectOfInterest:steps:deadline:)``). nil for files.
    func stepDeadline(_ source: SourceInfo) -> MonotonicInstant? {
        sheddingInterval(source).map { frameStarted.advanced(by: .seconds(0.85 * $0)) }
    }
    /// When the current ``process(_:source:)`` call started.
    private var frameStarted = MonotonicInstant.now

    /// Whether `source` is a live source whose previous frame took longer than 90 % of its frame interval
    /// and ``OutputConfiguration/shedLoadWhenLate`` is on.
    func isLate(_ source: SourceInfo) -> Bool {
        sheddingInterval(source).map { previousFrameTook > .seconds(0.9 * $0) } ?? false
    }

    /// Detects everything enabled on `frame` from `source`. With both codes and faces enabled (and
    /// ``OutputConfiguration/parallelDetectors``), the two detectors run at the same time on two threads:
    /// each detector is still used by one thread at a time.
    public func process(_ frame: Frame, source: SourceInfo) throws -> MetadataEvent {
        try processFrame(frame, source: source).event
    }

    /// Like ``process(_:source:)``, with the face presence changes and stage timings of this frame.
    public func processFrame(_ frame: Frame, source: SourceInfo) throws -> FrameResult {
        frameStarted = .now
        defer { previousFrameTook = frameStarted.elapsed }
        let settings = try frameSizeSettings(for: frame.size, source: source)
        let context = StageContext(
            source: source, rectOfInterest: settings.rectOfInterest, late: isLate(source),
            deadline: stepDeadline(source))
        let runs = runStages(stages, on: frame, context: context, parallel: configuration.parallelDetectors)
        var objects: [MetadataObject] = []
        var facePresence: [PresenceEvent] = []
        var timings = StageTimings()
        for (stage, run) in zip(stages, runs) {
            let result = try run.result.get()
            objects += result.objects
            facePresence += result.presence
            timings.seconds[stage.name] = run.seconds
        }
        let mapped = MonotonicInstant.now
        if let geometry = settings.geometry {
            objects = objects.map(geometry.transformed)
        }
        timings.tracking = mapped.elapsed.inSeconds
        let event = MetadataEvent(
            source: source.name, frame: frame.index, time: frame.time,
            width: frame.width, height: frame.height, objects: objects,
            captureClock: frame.captureClock)
        return FrameResult(event: event, facePresence: facePresence, timings: timings)
    }
}

/// The face tracker decides face presence (`appeared` when a faceID is confirmed, `lost` after
/// ``FaceConfiguration/presenceGrace``); the daemon publishes these instead of its generic presence stage.
extension MetadataOutput: PresenceSource {
    public var presenceTypes: Set<MetadataObjectType> { stages.reduce(into: []) { $0.formUnion($1.presenceTypes) } }
}
