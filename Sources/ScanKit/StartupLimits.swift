import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Makes sure scand starts with enough free file descriptors, and opens libdispatch's event loop while
/// they are free, so that running out of descriptors later is an error scand reports (`cannot read: Too
/// many open files`, naming the input) and never a trap inside a library.
///
/// Two libraries stop the process when a descriptor they need at start-up is refused (EMFILE):
/// - libdispatch opens its event loop (an epoll descriptor and an eventfd) the first time a queue needs
///   its manager thread, on whichever worker thread gets there first, and crashes (SIGILL) if either
///   fails. Without this, a run at a very low limit trapped or not depending on whether an input file
///   was opened first.
/// - SwiftNIO's `MultiThreadedEventLoopGroup` (the socket, HTTP and MQTT services of `scand run`) needs
///   three descriptors per event-loop thread and traps when one is refused.
///
/// So, before anything else runs (call it from `main` before the first `await`):
/// 1. when the soft `RLIMIT_NOFILE` leaves fewer than `minimumFree` descriptors free, the soft limit is
///    raised towards the hard one (never above it, never lowered);
/// 2. if that is not enough, `prepare` returns a message saying so, and scand exits with status 2 before
///    opening anything;
/// 3. otherwise a monotonic and a wall-clock dispatch timer are fired once and waited for. That makes
///    libdispatch open its epoll descriptor, its eventfd and both timer descriptors now, while they are
///    free, instead of in the middle of a run.
public enum StartupDescriptors {
    /// Descriptors that must be free below the soft limit at start-up (besides those already open, such as
    /// stdin, stdout and stderr): libdispatch's 4, the daemon's event loops (3 per thread on 2 threads), the
    /// listening socket, an input or camera, and a model file or the codecs plugin being opened. A limit
    /// just above this still runs; each input or client that then finds none free gets its own error.
    public static let minimumFree = 32

    /// Raises the soft open-file limit if needed and opens libdispatch's event loop. Returns nil when scand
    /// can go on, or the message to print (scand then exits with status 2).
    public static func prepare(minimumFree: Int = minimumFree) -> String? {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_, &limit) == 0 else { return nil } // nothing to check against
        let open = openDescriptors(below: limit.rlim_cur)
        var free = Int(clamping: limit.rlim_cur) - open
        if free < minimumFree {
            let wanted = rlim_t(open + minimumFree)
            var raised = rlimit(rlim_cur: min(wanted, limit.rlim_max), rlim_max: limit.rlim_max)
            if raised.rlim_cur > limit.rlim_cur, setrlimit(RLIMIT_NOFILE_, &raised) == 0 {
                limit = raised
                free = Int(clamping: limit.rlim_cur) - open
            }
        }
        guard free >= minimumFree else {
            return "the open-file limit is too low: \(limit.rlim_cur) (hard limit \(limit.rlim_max)) with \(open) "
                + "already open leaves \(max(free, 0)) free; scand needs at least \(minimumFree) free at start-up. "
                + "Raise it (ulimit -n \(open + minimumFree), or LimitNOFILE= in a systemd unit)"
        }
        openDispatchEventLoop()
        return nil
    }

    /// How many descriptors numbered below `limit` are open (listed in /proc/self/fd; the descriptor used
    /// to list them is not counted). Falls back to probing with fcntl when /proc is not mounted.
    static func openDescriptors(below limit: rlim_t) -> Int {
        let cap = Int32(clamping: min(limit, 65_536))
        guard let dir = opendir("/proc/self/fd") else {
            return (0..<cap).reduce(0) { $0 + (fcntl($1, F_GETFD) >= 0 ? 1 : 0) }
        }
        defer { closedir(dir) }
        let own = dirfd(dir)
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let fd = Int32(name), fd != own, rlim_t(fd) < limit { count += 1 }
        }
        return count
    }

    /// Fires one timer on each of libdispatch's clocks and waits for both (at most 2 s; they are due in
    /// 1 ms). Creating the first timer makes the manager queue open the epoll descriptor and eventfd;
    /// arming each clock opens its timerfd.
    static func openDispatchEventLoop() {
        let fired = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "scand.startup-descriptors")
        let timers = [DispatchSource.makeTimerSource(queue: queue), DispatchSource.makeTimerSource(queue: queue)]
        // 1 ms ahead: a timer already due fires without programming its clock's timerfd.
        timers[0].schedule(deadline: .now() + .milliseconds(1))
        timers[1].schedule(wallDeadline: .now() + .milliseconds(1))
        for timer in timers {
            timer.setEventHandler { fired.signal() }
            timer.activate()
        }
        for _ in timers { _ = fired.wait(timeout: .now() + 2) }
        for timer in timers { timer.cancel() }
    }
}

/// OpenBLAS (loaded with OpenCV through LAPACK) starts its worker threads while the libraries load, before
/// `main`, and each worker's first act is to allocate a 128 MiB buffer. Under an address-space limit
/// (`ulimit -v`, systemd's `LimitAS=`) of 250–400 MiB that allocation fails and the worker retries forever:
/// it holds a core at 100 % for the whole run and then `exit` waits for it for ever (measured with
/// `prlimit --as`; at 600 MiB it succeeds). scand does not use OpenBLAS's threads (OpenCV's DNN and image
/// functions have their own). So when an address-space limit is set and `OPENBLAS_NUM_THREADS` is not,
/// scand executes itself again with `OPENBLAS_NUM_THREADS=1` (no worker threads), before anything else
/// happens; without a limit nothing is done and nothing is paid.
public enum StartupEnvironment {
    /// Re-executes `/proc/self/exe` with the same arguments and `OPENBLAS_NUM_THREADS=1` when `RLIMIT_AS` is
    /// finite and the variable is unset. Returns only when nothing needed doing, or when the exec failed.
    public static func limitOpenBLASThreadsUnderAddressSpaceLimit() {
        var limit = rlimit()
        guard getrlimit(RLIMIT_AS_, &limit) == 0, limit.rlim_cur != rlim_t.max, // RLIM_INFINITY is all ones
              getenv("OPENBLAS_NUM_THREADS") == nil else { return }
        setenv("OPENBLAS_NUM_THREADS", "1", 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // The exec failed (no /proc): go on as before, with the variable set for any child.
    }
}

#if canImport(Glibc)
/// Glibc imports `RLIMIT_AS` as an enum case of `__rlimit_resource`; getrlimit wants its raw value.
private let RLIMIT_AS_ = __rlimit_resource_t(RLIMIT_AS.rawValue)
/// Glibc imports `RLIMIT_NOFILE` as an enum case of `__rlimit_resource`; getrlimit wants its raw value.
private let RLIMIT_NOFILE_ = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif
