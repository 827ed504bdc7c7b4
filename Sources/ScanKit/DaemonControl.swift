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

/// The write end of the self-pipe the signal handler writes the signal number to.
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// Turns SIGTERM, SIGINT and SIGHUP into ``DaemonCommand`` values for one control loop.
///
/// The signal handler only writes the signal number into a pipe (async-signal-safe, works whichever
/// thread the kernel picks); a dedicated thread reads the pipe and posts the commands. Create one per
/// process.
public final class DaemonControl: Sendable {
    private let queue = BlockingQueue<DaemonCommand>()
    private let state = RunningFlag()

    final class RunningFlag: @unchecked Sendable {
        private let lock = Monitor()
        private var running = false
        var isRunning: Bool { lock.withLock { running } }
        func set() { lock.withLock { running = true } }
    }

    public init() {
        var fds: [Int32] = [-1, -1]
        precondition(pipe(&fds) == 0, "pipe failed")
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let readEnd = fds[0]
        signalPipeWriteEnd = fds[1]
        for s in [SIGTERM, SIGINT, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in
                var byte = UInt8(truncatingIfNeeded: sig)
                let saved = errno
                _ = write(signalPipeWriteEnd, &byte, 1)
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(s, &action, nil)
        }
        // A parent may have started us with these signals blocked (the mask is inherited across exec);
        // unblock them here, before the pipeline and NIO threads exist, so those inherit the open mask.
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        let queue = self.queue
        let state = self.state
        _ = WorkerThread {
            while true {
                var byte: UInt8 = 0
                let n = read(readEnd, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                guard n == 1 else { return }
                let sig = Int32(byte)
                if sig != SIGHUP && !state.isRunning {
                    // Still starting (e.g. blocked opening the source): nothing to drain, die as the
                    // default action would. A socket file left behind is replaced on the next start.
                    signal(sig, SIG_DFL)
                    raise(sig)
                }
                queue.put(sig == SIGHUP ? .reload : .terminate(signal: sig))
            }
        }
    }

    /// Call once start-up is complete: from then on SIGTERM/SIGINT become ``DaemonCommand/terminate(signal:)``
    /// for a graceful stop; before, they end the process at once.
    public func markRunning() { state.set() }

    /// Posts a command (from any thread).
    public func post(_ command: DaemonCommand) { queue.put(command) }

    /// Waits for the next command.
    public func next() -> DaemonCommand { queue.take() ?? .terminate(signal: SIGTERM) }
}
