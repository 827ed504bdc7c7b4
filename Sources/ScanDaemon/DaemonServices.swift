public import Logging
public import ScanCore
import ScanKit
public import ScanOutput
public import ServiceLifecycle
import UnixSignals

/// What the daemon's control loop reacts to. SIGTERM/SIGINT are not commands: they trigger the service
/// group's graceful shutdown, which ends the loop.
public enum DaemonCommand: Sendable, Equatable {
    /// SIGHUP: reload the configuration file, keep clients.
    case reload
    /// The pipeline stopped on its own, or an output ended or failed.
    case ended(DaemonEnd)
    /// `run --oneshot --timeout SECONDS`: the time ran out.
    case timedOut(seconds: Double)
}

/// Where commands for the daemon's control loop are posted, from any thread (the pipeline's end, a sink's
/// failure callback, the SIGHUP listener). Unbounded: commands are few and small.
public struct DaemonMailbox: Sendable {
    let commands: AsyncStream<DaemonCommand>
    private let continuation: AsyncStream<DaemonCommand>.Continuation

    public init() { (commands, continuation) = AsyncStream.makeStream(of: DaemonCommand.self) }

    /// Posts a command (from any thread).
    public func post(_ command: DaemonCommand) { continuation.yield(command) }
}

/// What the control loop does after a command.
public enum DaemonDecision: Sendable { case keepRunning, stop }

/// SIGHUP trapped: from ``install()`` on, a SIGHUP is queued here (never the default action, which ends the
/// process) until ``PipelineService`` reads it as a reload. `scand run` installs it first thing, so a reload
/// sent while it starts (models loading, a camera opening, a slow broker) is applied once it runs instead of
/// killing it.
public struct HangupTrap: Sendable {
    fileprivate enum Source: Sendable {
        case signals(UnixSignalsSequence)
        case memory(AsyncStream<Void>)
    }
    fileprivate let source: Source

    /// Traps SIGHUP (libdispatch's signal source) and returns once the trap is registered.
    public static func install() async -> HangupTrap {
        HangupTrap(source: .signals(await UnixSignalsSequence(trapping: .sighup)))
    }

    /// A trap no signal reaches: each call of `send` stands for one SIGHUP (the assembly test drives a daemon
    /// built in its own process this way, where a real SIGHUP would reach every test).
    public static func inMemory() -> (trap: HangupTrap, send: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        return (HangupTrap(source: .memory(stream)), { continuation.yield() })
    }

    /// Calls `body` for each hangup until the task is cancelled.
    fileprivate func onEachHangup(_ body: () -> Void) async {
        switch source {
        case .signals(let signals): for await _ in signals { body() }
        case .memory(let stream): for await _ in stream { body() }
        }
    }
}

/// The pipeline as a `Service`: runs the started cameras (``CameraSet``) until its control loop decides to stop (the
/// input ended, stdout went away, `--oneshot` got its object) or the group shuts down gracefully
/// (SIGTERM/SIGINT); SIGHUP reaches the loop as ``DaemonCommand/reload``. On the way out it stops the
/// daemon (the current frame may take up to ``DaemonConfiguration/stopTimeout``, on a thread of its own)
/// and finishes `ownedSinks` (stdout).
///
/// Put it LAST in the group's service list: the group shuts services down in reverse order, so the
/// pipeline stops (and publishes its last `lost` and `device stopped` events) before the socket server,
/// an HTTP or an MQTT service close. Give it `successTerminationBehavior: .gracefullyShutdownGroup` so
/// the group ends when the pipeline does.
public final class PipelineService: Service, Sendable {
    private let cameras: CameraSet
    private let mailbox: DaemonMailbox
    private let ownedSinks: [any EventSink]
    private let logger: Logger
    private let onReady: @Sendable () -> Void
    private let onStopping: @Sendable () -> Void
    private let handle: @Sendable (DaemonCommand) async -> DaemonDecision
    private let hangups: HangupTrap

    /// - Parameters:
    ///   - onReady: called once the service runs and SIGHUP is trapped (log "ready", sd_notify READY=1).
    ///   - onStopping: called before the daemon is stopped (sd_notify STOPPING=1).
    ///   - handle: decides what each command means for this run (exit status, reload).
    ///   - hangups: the SIGHUP trap, installed before the daemon was built (SIGHUPs since then become reloads).
    public init(
        cameras: CameraSet, mailbox: DaemonMailbox, ownedSinks: [any EventSink], logger: Logger,
        onReady: @escaping @Sendable () -> Void = {}, onStopping: @escaping @Sendable () -> Void = {},
        hangups: HangupTrap,
        handle: @escaping @Sendable (DaemonCommand) async -> DaemonDecision
    ) {
        self.cameras = cameras
        self.mailbox = mailbox
        self.ownedSinks = ownedSinks
        self.logger = logger
        self.onReady = onReady
        self.onStopping = onStopping
        self.handle = handle
        self.hangups = hangups
    }

    public func run() async throws {
        let hangups = self.hangups
        onReady()
        let mailbox = self.mailbox
        var decided = false
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await hangups.onEachHangup { mailbox.post(.reload) }
            }
            for await command in mailbox.commands.cancelOnGracefulShutdown() {
                if await handle(command) == .stop {
                    decided = true
                    break
                }
            }
            group.cancelAll()
        }
        if !decided { logger.notice("stopping on signal (graceful shutdown)") }
        onStopping()
        let cameras = self.cameras
        let sinks = ownedSinks
        await onDedicatedThread {
            cameras.stop()
            for sink in sinks { sink.finish() }
        }
    }
}

/// The Unix socket server as a `Service`: it serves from the moment its sockets listen (before the group
/// runs) until the group shuts down gracefully; then it closes every client and removes the socket file
/// it bound (only if the path still names that socket).
public final class SocketServerService: Service, Sendable {
    private let server: SocketServer
    private let ownedSocket: BoundSocket?
    private let logger: Logger

    public init(server: SocketServer, ownedSocket: BoundSocket?, logger: Logger) {
        self.server = server
        self.ownedSocket = ownedSocket
        self.logger = logger
    }

    public func run() async throws {
        try? await gracefulShutdown()
        let server = self.server
        let ownedSocket = self.ownedSocket
        let logger = self.logger
        await onDedicatedThread {
            server.finish()
            if let ownedSocket, ownedSocket.removeIfStillOurs() == .notOurs {
                logger.notice(
                    "socket path now names another file; left in place", metadata: ["path": "\(ownedSocket.path)"])
            }
        }
    }
}

extension ServiceGroupConfiguration {
    /// The daemon's group: SIGTERM and SIGINT shut down gracefully (pipeline first, then the other
    /// services in reverse order), bounded by `stopTimeout` plus 10 s for the other services; after that
    /// the services' tasks are cancelled.
    /// - Parameter signals: false: no signal is trapped (the assembly test stops the group itself, with
    ///   `triggerGracefulShutdown()`, the path SIGTERM takes).
    public static func daemon(
        pipeline: PipelineService, otherServices: [any Service], stopTimeout: Double,
        signals: Bool = true, logger: Logger
    ) -> ServiceGroupConfiguration {
        var services = otherServices.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        services.append(
            .init(
                service: pipeline, successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        var configuration = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: signals ? [.sigterm, .sigint] : [],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(Int64((stopTimeout + 10) * 1000))
        return configuration
    }
}
