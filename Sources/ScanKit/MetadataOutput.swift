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

/// Runs the detectors on frames and produces one ``MetadataEvent`` per frame
/// (`AVCaptureMetadataOutput`). Owns its detectors; use from one thread at a time.
public final class MetadataOutput {
    static let logger = Logger(label: "scand.faces")

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
    private let barcodes: BarcodeDetector?
    /// Preview geometry and rect of interest per frame size (sources rarely change size, so this stays tiny).
    var perFrameSize: [PixelSize: FrameSizeSettings] = [:]
    private let faces: FaceDetector?
    private let faceTracker: FaceTracker?
    private var confirmation: LinearCodeConfirmation?
    /// The stream source whose frames the code reader's stream state (``BarcodeDetector/startStream()``) and the
    /// 1-D confirmation are about.
    private var streamSource: String?

    /// Why the neural face detector was asked for but the cascades work instead (missing model); nil otherwise.
    public var faceDetectorFallback: String? { faces?.fallbackReason }

    /// - Parameter previous: the output this one replaces (a configuration reload): its face tracker, with its
    ///   tracks, faceIDs and presence, carries over (with the new face settings), so IDs never restart or repeat.
    /// - Throws: ``ScanError`` when a type is unavailable or a model cannot be loaded.
    public init(configuration: OutputConfiguration, continuing previous: MetadataOutput? = nil) throws {
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
        let codeTypes = configuration.metadataObjectTypes.filter(\.isMachineReadableCode)
        if codeTypes.isEmpty {
            barcodes = nil
        } else {
            var barcode = configuration.barcode
            barcode.types = codeTypes
            barcodes = BarcodeDetector(configuration: barcode)
        }
        if configuration.metadataObjectTypes.contains(.face) {
            if let problem = configuration.face.validationError { throw ScanError.invalidArgument(problem) }
            let directory = try ModelLocator.directory(configuration.models)
            let detector = try FaceDetector(configuration: configuration.face, modelDirectory: directory)
            if let note = detector.fallbackReason { Self.logger.warning("\(note)") }
            faces = detector
            if let kept = previous?.faceTracker {
                kept.configuration = configuration.face
                faceTracker = kept
            } else {
                faceTracker = FaceTracker(configuration: configuration.face)
            }
        } else {
            faces = nil
            faceTracker = nil
        }
        self.configuration = configuration
        if configuration.barcode.confirmLinearCodes {
            confirmation = LinearCodeConfirmation(window: configuration.barcode.confirmationWindow)
        }
    }

    /// Codes on `frame` (all passes or the stream budget, then the 1-D confirmation filter on streams).
    func readCodes(_ frame: Frame, source: SourceInfo, rectOfInterest: NormalizedRect) throws -> [MetadataObject] {
        guard let barcodes else { return [] }
        let isStream = source.isStream
        // Each stream input starts fresh: nothing read on another input's frames carries over to this one's.
        if isStream, streamSource != source.name {
            barcodes.startStream()
            confirmation?.reset()
            streamSource = source.name
        }
        var codes: [MetadataObject]
        if isStream, var steps = configuration.barcode.streamStepsPerFrame {
            if isLate(source) {
                steps = 0
                shedFrames += 1
            }
            codes = try barcodes.detectStream(
                in: frame, rectOfInterest: rectOfInterest, steps: steps,
                deadline: stepDeadline(source))
        } else {
            codes = try barcodes.detect(in: frame, rectOfInterest: rectOfInterest)
        }
        // Streams only (video, Y4M, cameras): a still image has no second frame to confirm with.
        if let confirmation, isStream {
            codes = confirmation.filter(codes, frame: frame.index)
        }
        return codes
    }

    /// Faces on `frame` (detector driven by the tracker) and the tracker's presence transitions.
    func readFaces(_ frame: Frame, source: SourceInfo, rectOfInterest: NormalizedRect) throws
        -> (objects: [MetadataObject], transitions: [FacePresenceTransition])
    {
        guard let faces, let faceTracker else { return ([], []) }
        let skip = isLate(source) && !skippedFaceSearch
        skippedFaceSearch = skip
        if skip { skippedFaceSearches += 1 }
        let result = try faceTracker.process(
            frame, source: source.name, detector: faces, rectOfInterest: rectOfInterest,
            stream: source.isStream, skipSearch: skip)
        return (result.objects, result.transitions)
    }

    /// Ends every tracked face of `source` (end of input or shutdown) and returns their `lost` events.
    public func finishPresence(source: SourceInfo, frame: Int, time: Double) -> [PresenceEvent] {
        finishPresence(sourceName: source.name, frame: frame, time: time)
    }

    /// ``finishPresence(source:frame:time:)`` by source name.
    public func finishPresence(sourceName: String, frame: Int, time: Double) -> [PresenceEvent] {
        (faceTracker?.finish(frame: frame, time: time) ?? []).map { Self.presenceEvent($0, source: sourceName) }
    }

    static func presenceEvent(_ t: FacePresenceTransition, source: String) -> PresenceEvent {
        PresenceEvent(
            transition: t.transition, type: .face, faceID: t.faceID, source: source,
            frame: t.frame, time: t.time, bounds: t.bounds)
    }

    /// Seconds spent in each stage of one ``processFrame(_:source:)`` call (for benchmarks).
    public struct StageTimings: Sendable {
        /// Code detection (all passes, all engines).
        public var barcode = 0.0
        /// Face detection and tracking together (the tracker drives the detector).
        public var face = 0.0
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
    private var previousFrameSeconds = 0.0
    /// Frames on which the code reader's extra steps were skipped because the pipeline was late.
    public private(set) var shedFrames = 0
    /// Frames on which the face tracker skipped its slice of the search for new faces because the pipeline
    /// was late (``OutputConfiguration/shedLoadWhenLate``).
    public private(set) var skippedFaceSearches = 0
    /// Whether the previous frame skipped its face search (a search is never skipped twice in a row).
    private var skippedFaceSearch = false

    /// The frame interval (seconds) of a live source while ``OutputConfiguration/shedLoadWhenLate`` is on;
    /// nil otherwise (files, or shedding off): the one place both shedding rules below ask.
    private func sheddingInterval(_ source: SourceInfo) -> Double? {
        guard configuration.shedLoadWhenLate, source.isLive, let rate = source.frameRate, rate > 0 else { return nil }
        return 1 / rate
    }

    /// Live sources: when the code reader's extra steps must be done by (``monotonicSeconds()``), 85 % of
    /// the frame interval after the frame started, so a step that would make the frame late waits its next
    /// turn (``BarcodeDetector/detectStream(in:rectOfInterest:steps:deadline:)``). nil for files.
    func stepDeadline(_ source: SourceInfo) -> Double? {
        sheddingInterval(source).map { frameStarted + 0.85 * $0 }
    }
    /// When the current ``process(_:source:)`` call started (``monotonicSeconds()``).
    private var frameStarted = 0.0

    /// Whether `source` is a live source whose previous frame took longer than 90 % of its frame interval
    /// and ``OutputConfiguration/shedLoadWhenLate`` is on.
    func isLate(_ source: SourceInfo) -> Bool {
        sheddingInterval(source).map { previousFrameSeconds > 0.9 * $0 } ?? false
    }

    /// Detects everything enabled on `frame` from `source`. With both codes and faces enabled (and
    /// ``OutputConfiguration/parallelDetectors``), the two detectors run at the same time on two threads:
    /// each detector is still used by one thread at a time.
    public func process(_ frame: Frame, source: SourceInfo) throws -> MetadataEvent {
        try processFrame(frame, source: source).event
    }

    /// Like ``process(_:source:)``, with the face presence changes and stage timings of this frame.
    public func processFrame(_ frame: Frame, source: SourceInfo) throws -> FrameResult {
        frameStarted = monotonicSeconds()
        defer { previousFrameSeconds = monotonicSeconds() - frameStarted }
        let settings = try frameSizeSettings(for: frame.size, source: source)
        var objects: [MetadataObject] = []
        var timings = StageTimings()
        let work = DetectionWork(output: self, frame: frame, source: source, rectOfInterest: settings.rectOfInterest)
        if barcodes != nil && faces != nil && configuration.parallelDetectors {
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if i == 0 { work.runCodes() } else { work.runFaces() }
            }
        } else {
            work.runCodes()
            work.runFaces()
        }
        objects = try work.codes.get() + work.faces.get().objects
        let facePresence = try work.faces.get().transitions.map { Self.presenceEvent($0, source: source.name) }
        timings.barcode = work.codeSeconds
        timings.face = work.faceSeconds
        let t2 = monotonicSeconds()
        if let geometry = settings.geometry {
            objects = objects.map(geometry.transformed)
        }
        timings.tracking = monotonicSeconds() - t2
        let event = MetadataEvent(
            source: source.name, frame: frame.index, time: frame.time,
            width: frame.width, height: frame.height, objects: objects,
            captureClock: frame.captureClock)
        return FrameResult(event: event, facePresence: facePresence, timings: timings)
    }
}

/// One frame's detection work, shared by the two threads of ``MetadataOutput/processFrame(_:source:)``.
private final class DetectionWork: @unchecked Sendable {
    // Invariant for @unchecked Sendable: both threads write, to disjoint state. The code thread
    // (runCodes) writes `codes`, `codeSeconds` and, in `output`, the code reader, `shedFrames`, the
    // 1-D confirmation and `streamSource`; the face thread (runFaces) writes `faces`,
    // `faceSeconds` and, in `output`, the face detector, the tracker, `skippedFaceSearch` and
    // `skippedFaceSearches`. Both only read the rest of `output` (configuration, `frameStarted`,
    // `previousFrameSeconds`, written before the threads start). `concurrentPerform` returns after both,
    // which orders their writes before the caller reads them.
    let output: MetadataOutput
    let frame: Frame
    let source: SourceInfo
    let rectOfInterest: NormalizedRect
    var codes: Result<[MetadataObject], any Error> = .success([])
    var faces: Result<(objects: [MetadataObject], transitions: [FacePresenceTransition]), any Error> = .success(
        ([], []))
    var codeSeconds = 0.0
    var faceSeconds = 0.0

    init(output: MetadataOutput, frame: Frame, source: SourceInfo, rectOfInterest: NormalizedRect) {
        self.output = output
        self.frame = frame
        self.source = source
        self.rectOfInterest = rectOfInterest
    }

    func runCodes() {
        let t = monotonicSeconds()
        codes = Result { try output.readCodes(frame, source: source, rectOfInterest: rectOfInterest) }
        codeSeconds = monotonicSeconds() - t
    }

    func runFaces() {
        let t = monotonicSeconds()
        faces = Result { try output.readFaces(frame, source: source, rectOfInterest: rectOfInterest) }
        faceSeconds = monotonicSeconds() - t
    }
}

/// The face tracker decides face presence (`appeared` when a faceID is confirmed, `lost` after
/// ``FaceConfiguration/presenceGrace``); the daemon publishes these instead of its generic presence stage.
extension MetadataOutput: PresenceSource {
    public var presenceTypes: Set<MetadataObjectType> { faceTracker == nil ? [] : [.face] }
}
