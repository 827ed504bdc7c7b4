import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// How many descriptors the process can still open below its soft `RLIMIT_NOFILE` — checked by the servers
/// before they keep a new connection, so clients never take the last few.
///
/// Why: libdispatch (which runs Swift Concurrency's jobs on Linux) checks its worker threads once a second by
/// opening `/proc/TID/stat`, and traps (SIGILL, "registered worker exited prematurely") when that open fails.
/// A daemon whose clients filled its descriptor table crashed there (issue 52, bench/soak/README.md). So the
/// socket and HTTP servers refuse a connection that leaves fewer than ``reserve`` free, and the table keeps
/// room for libdispatch, the broker's reconnect, the spool's next segment and a SIGHUP's config read.
public enum DescriptorHeadroom {
    /// Descriptors kept free for the process itself.
    public static let reserve = 8

    /// Free descriptor numbers below the soft limit, counted up to `atMost` (a `fcntl(F_GETFD)` per number,
    /// from 0: about as many calls as open descriptors, plus `atMost`). Reads the limit each time, so a limit
    /// lowered while running (`prlimit`) counts at once.
    public static func free(atMost: Int = reserve) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return atMost }
        let soft = limit.rlim_cur == rlim_t.max ? rlim_t(Int32.max) : limit.rlim_cur
        var found = 0
        var fd: Int32 = 0
        while rlim_t(fd) < soft && found < atMost {
            if fcntl(fd, F_GETFD) == -1 && Errno.last == .badFileDescriptor { found += 1 }
            fd += 1
        }
        return found
    }
}
