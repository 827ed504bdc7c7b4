#if canImport(Glibc)
import Glibc
#endif

/// What the daemon's control loop reacts to.
public enum DaemonCommand: Sendable, Equatable {
    /// SIGTERM or SIGINT: drain, close clients, remove the socket, exit 0.
    case terminate(signal: Int32)
    /// SIGHUP: reload the configuration file, keep clients.
    case reload
    /// The pipeline stopped on its own.
    case ended(DaemonEnd)
}

/// Turns SIGTERM, SIGINT and SIGHUP into ``DaemonCommand`` values for one control loop.
///
/// Create it before any other thread starts (NIO, pipeline): it blocks those signals in the calling
/// thread, so every later thread inherits the mask, and a dedicated thread receives them with `sigwait`.
/// No work happens in a signal handler.
public final class DaemonControl: Sendable {
    private let queue = BlockingQueue<DaemonCommand>()

    public init() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let queue = self.queue
        _ = WorkerThread {
            var set = sigset_t()
            sigemptyset(&set)
            for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, s) }
            while true {
                var sig: Int32 = 0
                guard sigwait(&set, &sig) == 0 else { continue }
                queue.put(sig == SIGHUP ? .reload : .terminate(signal: sig))
            }
        }
    }

    /// Posts a command (from any thread).
    public func post(_ command: DaemonCommand) { queue.put(command) }

    /// Waits for the next command.
    public func next() -> DaemonCommand { queue.take() ?? .terminate(signal: SIGTERM) }
}
