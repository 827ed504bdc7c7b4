public import ScanCore

/// What a ``CaptureSession`` captures and how it copes with trouble. Changes take effect at
/// ``CaptureSession/commitConfiguration()`` or ``CaptureSession/startRunning()``.
public struct CaptureConfiguration: Sendable, Hashable {
    /// The device: a node path (`/dev/video0`) or a `/dev/v4l/by-id` name (full path or just the name).
    public var device: String
    /// The size by name; ignored when ``frameSize`` is set.
    public var sessionPreset: SessionPreset
    /// An explicit frame size in pixels (overrides the preset).
    public var frameSize: PixelSize?
    /// Frames per second asked with `S_PARM` (nil: the driver's current rate). The rate the driver chose is
    /// read back and reported in ``CaptureSession/activeFormat``.
    public var frameRate: Double?
    /// Seconds without a frame before the session reports `wasInterrupted` and reopens the device.
    public var stallTimeout: Double
    /// Consecutive `EIO`s from DQBUF (bad MJPEG frames) tolerated before the device is reopened.
    public var eioReopenThreshold: Int
    /// Longest wait, in seconds, between retries while the device is busy or gone.
    public var maxRetryInterval: Double
    /// Buffers asked with `REQBUFS` (drivers may grant fewer).
    public var bufferCount: Int
    /// When the device is absent at ``CaptureSession/startRunning()``: report `waiting` and start when it
    /// appears (true), or throw at once (false, the default: fail fast).
    public var waitForDevice = false
    /// Controls, modes and exposure metering, applied each time the stream opens (so again after a re-plug).
    /// A commit that changes only these applies them to the running stream, together, without a restart.
    public var controls: ControlConfiguration

    public init(
        device: String, sessionPreset: SessionPreset = .high, frameSize: PixelSize? = nil,
        frameRate: Double? = nil, stallTimeout: Double = 2, eioReopenThreshold: Int = 5,
        maxRetryInterval: Double = 2, bufferCount: Int = 4, controls: ControlConfiguration = ControlConfiguration()
    ) {
        self.device = device
        self.sessionPreset = sessionPreset
        self.frameSize = frameSize
        self.frameRate = frameRate
        self.stallTimeout = stallTimeout
        self.eioReopenThreshold = eioReopenThreshold
        self.maxRetryInterval = maxRetryInterval
        self.bufferCount = bufferCount
        self.controls = controls
    }
}

/// The format a running session negotiated.
public struct ActiveFormat: Sendable, Hashable {
    /// The node streamed from (after resolving a by-id name).
    public var path: String
    /// Frame size in pixels.
    public var size: PixelSize
    /// The driver's native format libv4l2 converts from (`YUYV`, `MJPG`, …); frames are YU12.
    public var sourceFourcc: String
    /// Frames per second read back with `G_PARM` (nil when the driver reports none).
    public var frameRate: Double?

    /// `640x480 YUYV at 15 fps`.
    public var summary: String {
        "\(size.width)x\(size.height) \(sourceFourcc)" + (frameRate.map { " at \(formatRate($0)) fps" } ?? "")
    }
}

/// Counters since ``CaptureSession/startRunning()``.
public struct CaptureStatistics: Sendable, Hashable {
    /// Good frames dequeued from the driver.
    public var framesCaptured = 0
    /// Frames handed to the consumer (``CaptureSession/nextFrame()``).
    public var framesDelivered = 0
    /// Frames replaced by a newer one before the consumer took them (`alwaysDiscardsLateVideoFrames`).
    public var framesDroppedLate = 0
    /// Buffers the driver flagged with `V4L2_BUF_FLAG_ERROR` (dropped).
    public var errorBuffers = 0
    /// `EIO` results from DQBUF.
    public var eioErrors = 0
    /// Times streaming was (re)started: the first start, configuration commits, reconnects, reopens.
    public var streamStarts = 0
    public init() {}
}

/// `15`, `29.97`.
func formatRate(_ r: Double) -> String {
    let rounded = (r * 100).rounded() / 100
    return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
}
