public import ScanCore
public import ScanKit

/// What `scand run` does with frames: detection, presence, and how a file source is replayed.
public struct DaemonConfiguration: Sendable {
    /// Detectors and their settings (`AVCaptureMetadataOutput`).
    public var output: OutputConfiguration
    /// `appeared` / `lost` rules.
    public var presence: PresenceConfiguration
    /// Publish one `metadata` event per frame; off for consumers that only want presence and device events.
    public var emitMetadata: Bool
    /// Replay files at their own frame rate (as a camera would deliver them); off: as fast as detection goes,
    /// without dropping frames.
    public var pacing: Bool
    /// Start a file again when it ends.
    public var loop: Bool
    /// At shutdown, how long the pipeline may take to finish the frame it is on, in seconds, before the
    /// daemon stops without it (`device stopped` is published either way).
    public var stopTimeout: Double = 30

    public init(
        output: OutputConfiguration = OutputConfiguration(), presence: PresenceConfiguration = PresenceConfiguration(),
        emitMetadata: Bool = true, pacing: Bool = true, loop: Bool = false
    ) {
        self.output = output
        self.presence = presence
        self.emitMetadata = emitMetadata
        self.pacing = pacing
        self.loop = loop
    }
}

/// Why the pipeline stopped on its own.
public enum DaemonEnd: Sendable, Equatable {
    /// The file source ended (and is not looping).
    case sourceEnded
    /// The source failed; the message names it.
    case sourceFailed(String)
    /// A sink's reader went away (stdout EPIPE): a normal end.
    case outputClosed
    /// A sink failed to write (a full disk, an I/O error); the message names the output and the error.
    case outputFailed(String)
    /// ``Daemon/stop()`` was called.
    case stopped
    /// The run got what it was asked for (`--oneshot`: the first object) and can stop: a normal end.
    case completed
}

/// Counters for logs.
public struct DaemonStatistics: Sendable {
    public var framesRead = 0
    public var framesDropped = 0
    public var framesProcessed = 0
    public var events: UInt64 = 0
}
