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

/// Finds metadata objects in frames. A detector owns its C handles and is used by one thread at a time.
public protocol MetadataDetector: AnyObject {
    /// The types this detector can report (contributes to `availableMetadataObjectTypes`).
    var availableTypes: Set<MetadataObjectType> { get }
    /// Finds objects of the enabled types within `rectOfInterest` (normalized device coordinates).
    /// Returned geometry is relative to the whole frame.
    func detect(in frame: Frame, rectOfInterest: NormalizedRect) throws -> [MetadataObject]
}

/// Receives encoded events. Sinks must not block the pipeline: slow consumers lose events, not frames.
public protocol EventSink: Sendable {
    func deliver(_ event: EncodedEvent)
    /// Flushes and closes; called once at shutdown.
    func finish()
}
