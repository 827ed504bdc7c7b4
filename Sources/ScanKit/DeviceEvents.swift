public import ScanCore

/// Reports capture device state changes (`AVCaptureSession` notifications: connected, disconnected,
/// interrupted, interruption ended, runtime error) to the daemon, which publishes each as a `device`
/// event in the same `seq` order as everything else.
///
/// The capture layer (V4L2 `CaptureSession`) implements this; file sources have none.
public protocol DeviceEventSource: AnyObject, Sendable {
    /// Starts reporting. `handler` may be called on any thread, once per change, in order.
    func startReporting(_ handler: @escaping @Sendable (DeviceEvent) -> Void)
    /// Stops reporting; no calls to the handler start after this returns.
    func stopReporting()
}

/// What the daemon reads frames from: how to open it (again, for `--loop` or after a reconnect) and,
/// for devices, where its state changes come from.
public struct DaemonSource: Sendable {
    /// A name for logs (path, `-`, or device path).
    public var name: String
    /// Opens the source. Called once, and again for each `--loop` pass.
    public var open: @Sendable () throws -> any FrameSource
    /// Device state changes, nil for files.
    public var deviceEvents: (any DeviceEventSource)?
    /// Whether re-opening makes sense (`--loop`): false for stdin and devices.
    public var canReopen: Bool

    public init(name: String, canReopen: Bool, deviceEvents: (any DeviceEventSource)? = nil,
                open: @escaping @Sendable () throws -> any FrameSource) {
        self.name = name; self.open = open; self.deviceEvents = deviceEvents; self.canReopen = canReopen
    }
}
