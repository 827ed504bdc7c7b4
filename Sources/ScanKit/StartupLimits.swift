import Dispatch
import ScanCore

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
        guard getrlimit(openFilesResource, &limit) == 0 else { return nil }  // nothing to check against
        let open = openDescriptors(below: limit.rlim_cur)
        var free = Int(clamping: limit.rlim_cur) - open
        if free < minimumFree {
            let wanted = rlim_t(open + minimumFree)
            var raised = rlimit(rlim_cur: min(wanted, limit.rlim_max), rlim_max: limit.rlim_max)
            if raised.rlim_cur > limit.rlim_cur, setrlimit(openFilesResource, &raised) == 0 {
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

/// What scand changes about its own process when it runs under an address-space limit (`ulimit -v`,
/// systemd's `LimitAS=`, `prlimit --as`). Measured with `prlimit --as` (docs/daemon.md, "Address-space limits"):
/// - OpenBLAS (loaded with OpenCV through LAPACK) starts its worker threads while the libraries load,
///   before `main`, and each worker's first act is to allocate a 128 MiB buffer. Under a limit of 250–400 MiB
///   that allocation fails and the worker retries for ever: it holds a core at 100 % for the whole run and
///   then `exit` waits for it for ever. scand does not use OpenBLAS's threads (OpenCV's DNN and image
///   functions have their own), so it runs with `OPENBLAS_NUM_THREADS=1` (no worker thread).
/// - glibc's malloc gives each thread that allocates its own arena, and reserves 64 MiB of address space
///   for each (128 MiB while it aligns it). `scand run` on the demo clip reserved 686 MB this way against
///   228 MB with one arena. Under a limit the arenas took the room that later thread stacks needed, so
///   whether SwiftNIO or libdispatch could start a thread depended on how many arenas had been made first:
///   `scand run` trapped in NIO's thread start at 340 MiB but not at 240 MiB. So scand runs with
///   `MALLOC_ARENA_MAX=1` (every thread allocates from the main heap; mallopt(3)).
/// Both are environment variables read while the process loads, so scand executes itself again with them
/// set, before anything else happens (``StartupEnvironment/prepare(daemon:)``, with `scand run`'s crash-report
/// setting in the same exec). A variable the user set is left as it is. Without a limit nothing is
/// done and nothing is paid.
public enum StartupEnvironment {
    /// The variables set under an address-space limit, and their values.
    public static let underAddressSpaceLimit = [("OPENBLAS_NUM_THREADS", "1"), ("MALLOC_ARENA_MAX", "1")]

    /// Sets the variables the runtime and the libraries read while the process loads, and executes scand again,
    /// once, when one was missing: those of ``underAddressSpaceLimit`` that are unset when `RLIMIT_AS` is finite,
    /// and for the daemon (`daemon`: `scand run`) ``crashReportSetting()``. Returns only when nothing needed
    /// doing, or when the exec (or setting a variable) failed; then scand goes on as before.
    public static func prepare(daemon: Bool) {
        var wanted: [(String, String)] = []
        var limit = rlimit()
        if getrlimit(addressSpaceResource, &limit) == 0, limit.rlim_cur != rlim_t.max {  // RLIM_INFINITY is all ones
            wanted += underAddressSpaceLimit.filter { getenv($0.0) == nil }
        }
        if daemon, let backtrace = crashReportSetting() { wanted.append(("SWIFT_BACKTRACE", backtrace)) }
        guard !wanted.isEmpty else { return }
        // A variable that cannot be set would make the next process exec again, for ever: then go on as we are.
        for (name, value) in wanted where setenv(name, value, 1) != 0 { return }
        executeSelfAgain()
        // The exec failed (no /proc): go on as before, with the variables set for any child.
    }

    /// `scand run`: the Swift runtime's crash report goes to stderr, never into the JSON lines on stdout. The
    /// backtracer writes to stdout unless `SWIFT_BACKTRACE` says `output-to=…`, and the runtime reads that
    /// variable while the process loads: so when it has no `output-to`, this is the value to set (the user's
    /// settings with `output-to=stderr` added), for ``prepare(daemon:)`` to execute scand again with (about
    /// 50 ms, once per daemon start). A crash at the descriptor limit once put `swift-backtrace: unable to fetch
    /// crash info.` among the events (bench/soak/README.md). nil: nothing to change.
    static func crashReportSetting() -> String? {
        let current = getenv("SWIFT_BACKTRACE").map { String(cString: $0) }
        if let current, current.contains("output-to") { return nil }
        return current.map { $0.isEmpty ? "output-to=stderr" : $0 + ",output-to=stderr" } ?? "output-to=stderr"
    }

    /// Executes this binary again with the same arguments, by its real path: executed as `/proc/self/exe`, the
    /// process would be named `exe` (`ps`, `pgrep -x scand`, the journal's identifier). Falls back to
    /// `/proc/self/exe` when the path cannot be read or executed (a binary replaced while running). Returns only
    /// when both execs fail.
    static func executeSelfAgain() {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &path, path.count - 1)
        if n > 0 {
            path[n] = 0
            execv(path, CommandLine.unsafeArgv)
        }
        execv("/proc/self/exe", CommandLine.unsafeArgv)
    }

    /// Address space (bytes) that must be free below the soft `RLIMIT_AS` when `main` starts, after the
    /// libraries are mapped (about 165 MiB for a release build): thread stacks (8 MiB reserved each:
    /// libdispatch's workers and manager, the detectors' threads, SwiftNIO's event loops in `scand run`), the
    /// heap, and the buffers of a first frame. Measured with `prlimit --as` and one malloc arena
    /// (docs/daemon.md, "Address-space limits"): `scand run` with a socket, `--http` and `--mqtt` needs about
    /// 105 MiB free and `scand scan` of a small image about 35 MiB. With too little, libdispatch cannot start
    /// a thread and retries for ever (`_dispatch_temporary_resource_shortage`), the Swift runtime crashes
    /// reporting a refused allocation, or SwiftNIO traps in its thread start. This leaves room above the
    /// heaviest configuration.
    public static let minimumFreeAddressSpace = 128 << 20

    /// Nil when `RLIMIT_AS` is unlimited or leaves at least `minimumFree` bytes free above the address space
    /// already mapped (`VmSize` in /proc/self/status); otherwise the message to print (scand then exits with
    /// status 2 before starting a thread). Call it from `main` before anything else starts threads.
    public static func addressSpaceProblem(minimumFree: Int = minimumFreeAddressSpace) -> String? {
        var limit = rlimit()
        guard getrlimit(addressSpaceResource, &limit) == 0, limit.rlim_cur != rlim_t.max,
            let mapped = ProcessStatus.bytes("VmSize")
        else { return nil }
        let free = Int(clamping: limit.rlim_cur) - mapped
        guard free < minimumFree else { return nil }
        let mib = { (bytes: Int) in (bytes + (1 << 20) - 1) >> 20 }
        return "the address-space limit is too low: \(mib(Int(clamping: limit.rlim_cur))) MiB with \(mib(mapped)) MiB "
            + "already mapped by the program and its libraries leaves \(mib(max(free, 0))) MiB; scand needs at least "
            + "\(mib(minimumFree)) MiB free at start-up. Raise it (ulimit -v \((mapped + minimumFree) >> 10), or "
            + "LimitAS= in a systemd unit)"
    }
}

#if canImport(Glibc)
    /// Glibc imports `RLIMIT_AS` as an enum case of `__rlimit_resource`; getrlimit wants its raw value.
    private let addressSpaceResource = __rlimit_resource_t(RLIMIT_AS.rawValue)
    /// Glibc imports `RLIMIT_NOFILE` as an enum case of `__rlimit_resource`; getrlimit wants its raw value.
    private let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif
