public import Logging
public import ScanCore
public import ScanKit
public import ScanOutput

/// The cameras of one `scand run`, as `AVCaptureMultiCamSession` holds several inputs: one ``Daemon`` per
/// camera (its own source thread, hand-off, detectors, trackers and presence), all publishing on one event
/// bus under their camera's name, so `seq` is one counter for the process. faceIDs and code trackIDs come
/// from sequences the cameras share: no identifier is shared between cameras or reused within the run.
///
/// The run's services see the set, never a single camera: the socket's snapshots and `devices` cover every
/// camera, the watchdog watches the busiest, and the run's end is the last camera's end.
public final class CameraSet: Sendable {
    /// One camera to run: its name (on every event), its pipeline settings and its source.
    public struct Member: Sendable {
        public var name: String
        public var configuration: DaemonConfiguration
        public var source: DaemonSource
        public init(name: String, configuration: DaemonConfiguration, source: DaemonSource) {
            self.name = name
            self.configuration = configuration
            self.source = source
        }
    }

    /// The cameras' pipelines, in the order given.
    public let daemons: [Daemon]
    /// The bus every camera publishes on.
    public let bus: EventFanOut
    private let logger: Logger
    private let onEnd: @Sendable (DaemonEnd) -> Void
    /// How each camera's pipeline ended, by index; `reported`: the set's end was passed on.
    private let ends: Locked<(byCamera: [Int: DaemonEnd], reported: Bool)>

    /// - Parameters:
    ///   - frameObserver: sees the first camera's processed frames (the HTTP server's metrics and preview).
    ///   - onEnd: called once: when a camera's output went away (stdout closed: every camera stops), or when
    ///     the last camera's pipeline ended (the worst of their ends: a failure, else an end of input).
    public init(
        members: [Member], bus: EventFanOut, frameObserver: Daemon.FrameObserver? = nil, logger: Logger,
        onEnd: @escaping @Sendable (DaemonEnd) -> Void
    ) {
        precondition(!members.isEmpty, "a run has at least one camera")
        let ends = Locked<(byCamera: [Int: DaemonEnd], reported: Bool)>(([:], false))
        let identifiers = TrackIdentifiers()
        let count = members.count
        let names = members.map(\.name)
        daemons = members.enumerated().map { index, member in
            var cameraLogger = logger
            cameraLogger[metadataKey: "camera"] = "\(member.name)"
            return Daemon(
                configuration: member.configuration, source: member.source, bus: bus,
                frameObserver: index == 0 ? frameObserver : nil, camera: member.name, identifiers: identifiers,
                closesBus: false, logger: cameraLogger,
                onEnd: { end in
                    CameraSet.record(end, of: index, names: names, count: count, in: ends, logger: logger, onEnd: onEnd)
                })
        }
        self.bus = bus
        self.logger = logger
        self.onEnd = onEnd
        self.ends = ends
    }

    /// Records camera `index`'s end and passes the set's end on once (see ``init(members:bus:frameObserver:logger:onEnd:)``).
    private static func record(
        _ end: DaemonEnd, of index: Int, names: [String], count: Int,
        in ends: Locked<(byCamera: [Int: DaemonEnd], reported: Bool)>, logger: Logger,
        onEnd: @Sendable (DaemonEnd) -> Void
    ) {
        let decided = ends.withLock { state -> DaemonEnd? in
            state.byCamera[index] = end
            guard !state.reported else { return nil }
            if end == .outputClosed || state.byCamera.count == count {
                state.reported = true
                return end == .outputClosed ? end : worst(Array(state.byCamera.values))
            }
            return nil
        }
        if let decided {
            onEnd(decided)
        } else if count > 1, end != .stopped {
            let running = ends.withLock { count - $0.byCamera.count }
            logger.notice(
                "camera's pipeline ended; \(running) camera(s) still running",
                metadata: ["camera": "\(names[index])", "end": "\(end)"])
        }
    }

    /// The set's end from its cameras' ends: a failure (every failed camera named), else an end of input,
    /// else stopped.
    static func worst(_ ends: [DaemonEnd]) -> DaemonEnd {
        let failures = ends.compactMap { end -> String? in
            if case .sourceFailed(let m) = end { return m }
            return nil
        }
        if !failures.isEmpty { return .sourceFailed(failures.joined(separator: "; ")) }
        if ends.contains(.sourceEnded) { return .sourceEnded }
        return ends.first ?? .stopped
    }

    /// The cameras' names, in order.
    public var names: [String] { daemons.compactMap(\.camera) }

    /// The camera named `name`.
    public func daemon(named name: String) -> Daemon? { daemons.first { $0.camera == name } }

    /// Starts every camera (each opens its source); when one cannot start, the ones started are stopped and
    /// its error is thrown.
    public func start() throws {
        for (i, daemon) in daemons.enumerated() {
            do {
                try daemon.start()
            } catch {
                for started in daemons[..<i] { started.stop() }
                bus.close()
                throw error
            }
        }
    }

    /// Stops every camera (each reports `lost` for what it still sees and `device stopped`), then closes the
    /// bus. Safe to call more than once.
    public func stop() {
        for daemon in daemons { daemon.stop() }
        bus.close()
    }

    /// Counters summed over the cameras (`events`: the bus's).
    public var statistics: DaemonStatistics {
        var total = DaemonStatistics()
        for d in daemons {
            let s = d.statistics
            total.framesRead += s.framesRead
            total.framesDropped += s.framesDropped
            total.framesProcessed += s.framesProcessed
        }
        total.events = bus.count
        return total
    }

    /// The longest any camera's pipeline thread has been inside its current frame (nil: every one waits).
    public var busyWithFrameFor: Duration? { daemons.compactMap(\.busyWithFrameFor).max() }

    /// The first camera's processed frames (the HTTP preview).
    public var frameOutput: VideoDataOutput { daemons[0].frameOutput }

    /// Applies each camera's new configuration (by name; a camera not named keeps its own), after checking
    /// them all: when one is invalid, none is applied.
    public func reload(_ configurations: [String: DaemonConfiguration]) throws {
        for (_, c) in configurations { try Daemon.validate(c) }
        for daemon in daemons {
            if let name = daemon.camera, let c = configurations[name] { try daemon.reload(c) }
        }
    }

    /// Sets the rect of interest of `camera` (nil: the first camera).
    public func setRectOfInterest(_ rect: NormalizedRect, origin: String, camera: String? = nil) throws {
        guard let daemon = camera.map({ daemon(named: $0) }) ?? daemons.first else {
            throw ScanError.invalidArgument("no camera named '\(camera ?? "")'")
        }
        try daemon.setRectOfInterest(rect, origin: origin)
    }

    /// A reader went away (stdout EPIPE): every camera stops after its current frame.
    public func outputClosed() {
        for daemon in daemons { daemon.outputClosed() }
    }

    /// Tells the other sinks that `output` failed (one `device` event naming no camera).
    public func outputFailed(output: String, reason: String) {
        bus.emit([.device(DeviceEvent(kind: .runtimeError, device: output, reason: reason))])
    }
}

/// Socket and WebSocket snapshots: what every camera has in view, and each camera's source.
extension CameraSet: ServerStateProvider {
    public func presenceSnapshot() -> PresenceSnapshot { bus.snapshot() }
    public func sourceStates() -> [SourceState] { daemons.flatMap { $0.sourceStates() } }
}
