public import ScanCapture
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
    /// A pipe (a FIFO, or stdin from another program): seconds without a frame before it is reported stalled
    /// (`wasInterrupted`); nil for a file or a camera (a camera's session watches its own frames).
    public var stallTimeout: Double?

    public init(
        name: String, canReopen: Bool, deviceEvents: (any DeviceEventSource)? = nil,
        open: @escaping @Sendable () throws -> any FrameSource
    ) {
        self.name = name
        self.open = open
        self.deviceEvents = deviceEvents
        self.canReopen = canReopen
    }
}

/// `--device PATH`: a V4L2 `CaptureSession` is the frame source and, through ``SessionEvents``, the source
/// of the daemon's `device` events (connected, disconnected, interrupted, resumed, runtime errors).
public func openDeviceSource(_ configuration: CaptureConfiguration) -> DaemonSource {
    let session = CaptureSession(configuration: configuration)
    return DaemonSource(name: configuration.device, canReopen: false, deviceEvents: SessionEvents(session)) {
        try session.startRunning()
        return session
    }
}

/// A network camera reports its own `device` events (issue 49).
extension NetworkCamera: DeviceEventSource {}

/// Adapts a `CaptureSession`'s event handlers to the daemon's ``DeviceEventSource``.
public final class SessionEvents: DeviceEventSource, Sendable {
    private let session: CaptureSession
    /// The handler to call, and whether the session already calls this object.
    private let handler = Locked<(call: (@Sendable (DeviceEvent) -> Void)?, registered: Bool)>((nil, false))

    public init(_ session: CaptureSession) { self.session = session }

    public func startReporting(_ handler: @escaping @Sendable (DeviceEvent) -> Void) {
        let register = self.handler.withLock { state -> Bool in
            state.call = handler
            defer { state.registered = true }
            return !state.registered
        }
        if register {
            session.addEventHandler { [weak self] event in
                guard let self, let h = self.handler.withLock({ $0.call }) else { return }
                h(event)
            }
        }
    }

    public func stopReporting() { handler.withLock { $0.call = nil } }
}
