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

    /// The cameras' pipelines, in the order they were started.
    public var daemons: [Daemon] { state.withLock { $0.cameras.map(\.daemon) } }
    /// The bus every camera publishes on.
    public let bus: EventFanOut
    private let logger: Logger
    private let onEnd: @Sendable (DaemonEnd) -> Void
    private let identifiers = TrackIdentifiers()
    private let frameObserver: (@Sendable (String) -> Daemon.FrameObserver)?

    private struct State {
        var cameras: [(name: String, daemon: Daemon)] = []
        /// How each running camera's pipeline ended, by name.
        var ends: [String: DaemonEnd] = [:]
        /// The set's end was passed on.
        var reported = false
    }
    private let state = Locked(State())

    /// - Parameters:
    ///   - frameObserver: makes each camera's observer of its processed frames, by camera name (the HTTP
    ///     server's metrics).
    ///   - onEnd: called once: when a camera's output went away (stdout closed: every camera stops), or when
    ///     the last camera's pipeline ended (the worst of their ends: a failure, else an end of input).
    public init(
        members: [Member], bus: EventFanOut, frameObserver: (@Sendable (String) -> Daemon.FrameObserver)? = nil,
        logger: Logger,
        onEnd: @escaping @Sendable (DaemonEnd) -> Void
    ) {
        precondition(!members.isEmpty, "a run has at least one camera")
        self.bus = bus
        self.logger = logger
        self.onEnd = onEnd
        self.frameObserver = frameObserver
        let made = members.enumerated().map { index, member in
            (member.name, makeDaemon(member, offset: Double(index) / Double(members.count)))
        }
        state.withLock { $0.cameras = made }
    }

    /// - Parameter offset: where the camera's face search cycle sits among the cameras (camera k of n: k / n),
    ///   so that two cameras started together do not run their face network on the same frames.
    private func makeDaemon(_ member: Member, offset: Double) -> Daemon {
        var cameraLogger = logger
        cameraLogger[metadataKey: "camera"] = "\(member.name)"
        let name = member.name
        return Daemon(
            configuration: member.configuration, source: member.source, bus: bus,
            frameObserver: frameObserver?(name), camera: name, identifiers: identifiers,
            faceSearchOffset: offset, closesBus: false, logger: cameraLogger,
            onEnd: { [weak self] end in self?.record(end, of: name) })
    }

    /// Records camera `name`'s end and passes the set's end on once (see
    /// ``init(members:bus:frameObserver:logger:onEnd:)``); the end of a camera a reload removed is its own.
    private func record(_ end: DaemonEnd, of name: String) {
        let (decided, running) = state.withLock { state -> (DaemonEnd?, Int?) in
            guard state.cameras.contains(where: { $0.name == name }) else { return (nil, nil) }
            state.ends[name] = end
            let running = state.cameras.count - state.ends.count
            guard !state.reported else { return (nil, running) }
            if end == .outputClosed || running == 0 {
                state.reported = true
                return (end == .outputClosed ? end : Self.worst(Array(state.ends.values)), running)
            }
            return (nil, running)
        }
        if let decided {
            onEnd(decided)
        } else if let running, end != .stopped {
            logger.notice(
                "camera's pipeline ended; \(running) camera(s) still running",
                metadata: ["camera": "\(name)", "end": "\(end)"])
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
    public var names: [String] { state.withLock { $0.cameras.map(\.name) } }

    /// The camera named `name`.
    public func daemon(named name: String) -> Daemon? { daemons.first { $0.camera == name } }

    /// Starts every camera (each opens its source); when one cannot start, the ones started are stopped and
    /// its error is thrown.
    public func start() throws {
        let all = daemons
        for (i, daemon) in all.enumerated() {
            do {
                try daemon.start()
            } catch {
                for started in all[..<i] { started.stop() }
                bus.close()
                throw error
            }
        }
    }

    /// Adds a camera while the others run (a reload): its pipeline starts at once, drawing its identifiers
    /// from the run's sequences. A camera of that name is replaced: it stops first (`lost` for what it saw,
    /// `device stopped`), as ``remove(_:)`` does.
    /// - Throws: when the new camera cannot start (its source cannot be opened); a camera it was to replace
    ///   is stopped all the same.
    public func add(_ member: Member) throws {
        remove(member.name)
        let running = state.withLock { $0.cameras.count }
        let daemon = makeDaemon(member, offset: Double(running) / Double(running + 1))
        try daemon.start()
        state.withLock { $0.cameras.append((member.name, daemon)) }
        logger.notice("camera started", metadata: ["camera": "\(member.name)", "source": "\(member.source.name)"])
        for observer in observers.withLock({ $0 }) { observer(member.name, daemon) }
    }

    /// What follows the cameras a reload adds and removes (the HTTP previews): called with the name and the
    /// new camera's pipeline after ``add(_:)``, with nil after ``remove(_:)``, on the reloading thread.
    public typealias MemberObserver = @Sendable (_ name: String, _ daemon: Daemon?) -> Void
    private let observers = Locked<[MemberObserver]>([])

    /// Calls `observer` after every later ``add(_:)`` and ``remove(_:)``.
    public func observeMembers(_ observer: @escaping MemberObserver) {
        observers.withLock { $0.append(observer) }
    }

    /// Stops and removes the camera named `name` (a reload): it reports `lost` for what it still sees and
    /// `device stopped`; the other cameras go on. Nothing happens for a name not running.
    public func remove(_ name: String) {
        let removed = state.withLock { state -> Daemon? in
            guard let i = state.cameras.firstIndex(where: { $0.name == name }) else { return nil }
            state.ends[name] = nil
            return state.cameras.remove(at: i).daemon
        }
        guard let removed else { return }
        removed.stop()
        logger.notice("camera stopped", metadata: ["camera": "\(name)"])
        for observer in observers.withLock({ $0 }) { observer(name, nil) }
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
