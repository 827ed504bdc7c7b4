/// Describes a source of frames.
public struct SourceInfo: Sendable, Hashable {
    /// What the user named: a path, `-` for stdin, or a device path.
    public var name: String
    /// Nominal frames per second, when the source knows it (video files, Y4M, cameras).
    public var frameRate: Double?
    /// True for cameras: frames arrive in real time and late ones are dropped.
    public var isLive: Bool
    /// Video, Y4M and cameras (frames in sequence), as opposed to still images: these get the per-frame
    /// reading budget, the sliced face search and the 1-D confirmation.
    public var isStream: Bool { frameRate != nil || isLive }
    /// A remark on how the input was read, for the log (one line, naming the input): e.g. a JPEG over the
    /// pixel budget decoded at a reduced size. `nil` when it was read as it is.
    public var note: String?
    public init(name: String, frameRate: Double? = nil, isLive: Bool = false, note: String? = nil) {
        self.name = name
        self.frameRate = frameRate
        self.isLive = isLive
        self.note = note
    }
}

/// Produces frames: a camera, an image file, a Y4M stream or a video file. Downstream code cannot tell
/// which. Implementations are used by one consumer thread at a time.
public protocol FrameSource: AnyObject, Sendable {
    var info: SourceInfo { get }
    /// Blocks until the next frame is available. Returns nil at the end of the source.
    /// - Throws: ``ScanError`` naming the source when it fails.
    func nextFrame() throws -> Frame?
    /// Releases the source's resources. Further `nextFrame()` calls return nil.
    func close()
}

/// What a detector stage is told about the frame it reads, besides its pixels (``DetectorStage``).
public struct StageContext: Sendable {
    /// Where the frame comes from.
    public var source: SourceInfo
    /// The part of the frame to read (normalized device coordinates); results stay relative to the whole frame.
    public var rectOfInterest: NormalizedRect
    /// The previous frame of this live source took longer than 90 % of its frame interval: shed optional work
    /// (`OutputConfiguration.shedLoadWhenLate`). Always false for files.
    public var late: Bool
    /// Live sources: when the stage's optional work must be done by; nil for files.
    public var deadline: MonotonicInstant?

    public init(
        source: SourceInfo, rectOfInterest: NormalizedRect = .unit, late: Bool = false,
        deadline: MonotonicInstant? = nil
    ) {
        self.source = source
        self.rectOfInterest = rectOfInterest
        self.late = late
        self.deadline = deadline
    }
}

/// What a detector stage found on one frame.
public struct StageResult: Sendable {
    /// The objects found; geometry in normalized device coordinates of the whole frame.
    public var objects: [MetadataObject]
    /// Presence changes the stage decided itself (the face tracker's `appeared` and `lost`).
    public var presence: [PresenceEvent]

    public init(objects: [MetadataObject] = [], presence: [PresenceEvent] = []) {
        self.objects = objects
        self.presence = presence
    }
}

/// One detector of the pipeline (codes, faces, and whatever comes next). `MetadataOutput` runs every enabled
/// stage on each frame, the stages at the same time on separate threads: a stage is used by one thread at a
/// time, owns its detector's C handles and keeps its own state between frames (stream memory, tracks).
/// A new detector is one type conforming to this protocol and one line where `MetadataOutput` registers its
/// stages.
public protocol DetectorStage: AnyObject {
    /// The stage's name in stage timings ("codes", "faces").
    var name: String { get }
    /// The types whose presence this stage decides itself; the daemon's generic presence stage leaves them out.
    var presenceTypes: Set<MetadataObjectType> { get }
    /// Finds the stage's objects on `frame`.
    /// - Throws: ``ScanError`` when the detector fails on this frame.
    func detect(_ frame: Frame, context: StageContext) throws -> StageResult
    /// Ends what the stage tracks for the source named `sourceName` (end of input or shutdown): the `lost`
    /// events of its presence, stamped with `frame` and `time` (seconds).
    func finish(sourceName: String, frame: Int, time: Double) -> [PresenceEvent]
}

extension DetectorStage {
    public var presenceTypes: Set<MetadataObjectType> { [] }
    public func finish(sourceName: String, frame: Int, time: Double) -> [PresenceEvent] { [] }
}

/// Receives encoded events. Sinks must not block the pipeline: slow consumers lose events, not frames.
public protocol EventSink: Sendable {
    func deliver(_ event: EncodedEvent)
    /// Flushes and closes; called once at shutdown.
    func finish()
}
