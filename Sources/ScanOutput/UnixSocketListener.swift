import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Creates the daemon's listening Unix socket: from a path (with stale-file handling and permissions),
/// or from systemd socket activation. Returns plain descriptors that ``SocketServer`` hands to SwiftNIO.
public enum UnixSocketListener {
    /// What happened to a socket file found at the path before binding.
    public enum Preparation: Sendable, Equatable {
        /// Nothing was there.
        case fresh
        /// A socket file nobody listens on (connect gave ECONNREFUSED) was removed.
        case replacedStale
    }

    /// Binds and listens on `path`, creating the socket file with `mode` (default 0660) under a umask
    /// that never lets it be wider, owned by `group` when given (name or number).
    ///
    /// An existing socket file is replaced only when connecting to it fails with `ECONNREFUSED` (stale);
    /// when the connect succeeds another process is serving it and this throws. A path that exists and is
    /// not a socket is never removed.
    /// - Returns: the listening descriptor (close-on-exec) and what was found at the path.
    /// - Throws: ``ScanError/output(_:)`` naming the path and the reason.
    public static func bind(path: String, group: String? = nil, mode: UInt32 = 0o660,
                            backlog: Int32 = 1024) throws -> (fd: Int32, preparation: Preparation) {
        guard !path.isEmpty else { throw ScanError.output("--socket: empty path") }
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw ScanError.output("\(path): socket path too long (at most \(MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1) bytes)")
        }
        var gid: gid_t?
        if let group { gid = try lookupGroup(group) }
        let preparation = try prepare(path: path)

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ScanError.output("\(path): socket(): \(errnoText())") }
        var addr = address(path)
        // 0177: the file is created 0600 at most, then widened to `mode` once its group is right.
        let oldMask = umask(0o177)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindErrno = errno
        umask(oldMask)
        guard rc == 0 else {
            close(fd)
            throw ScanError.output("\(path): cannot bind: \(String(cString: strerror(bindErrno)))" +
                                   (bindErrno == ENOENT ? " (does the directory exist?)" : ""))
        }
        do {
            if let gid, chown(path, uid_t.max, gid) != 0 {
                throw ScanError.output("\(path): cannot set group \(group!): \(errnoText())")
            }
            if chmod(path, mode_t(mode)) != 0 { throw ScanError.output("\(path): chmod: \(errnoText())") }
            if listen(fd, backlog) != 0 { throw ScanError.output("\(path): listen: \(errnoText())") }
        } catch {
            close(fd); unlink(path)
            throw error
        }
        return (fd, preparation)
    }

    /// Checks `path` before binding: absent → fine; a socket that refuses connections → removed; a live
    /// socket or anything else → throws with a message saying what to do.
    public static func prepare(path: String) throws -> Preparation {
        var st = stat()
        if lstat(path, &st) != 0 {
            if errno == ENOENT { return .fresh }
            throw ScanError.output("\(path): \(errnoText())")
        }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw ScanError.output("\(path): exists and is not a socket; refusing to replace it")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ScanError.output("\(path): socket(): \(errnoText())") }
        defer { close(fd) }
        var addr = address(path)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc == 0 {
            throw ScanError.output("\(path): another scand (or another program) is already serving this socket; stop it first or choose another --socket")
        }
        let e = errno
        guard e == ECONNREFUSED else {
            throw ScanError.output("\(path): cannot check the existing socket file: \(String(cString: strerror(e)))")
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw ScanError.output("\(path): cannot remove stale socket file: \(errnoText())")
        }
        return .replacedStale
    }

    /// Listening sockets passed by systemd socket activation (`LISTEN_PID` = this process, `LISTEN_FDS`
    /// descriptors from 3). Clears the variables so children do not inherit them. Empty when not activated.
    /// - Throws: when a passed descriptor is not a listening Unix stream socket.
    public static func activatedSockets() throws -> [Int32] {
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }),
              let countText = getenv("LISTEN_FDS").map({ String(cString: $0) }) else { return [] }
        unsetenv("LISTEN_PID"); unsetenv("LISTEN_FDS"); unsetenv("LISTEN_FDNAMES")
        guard let pid = Int32(pidText), pid == getpid() else { return [] }
        guard let count = Int32(countText), count >= 1, count <= 64 else {
            throw ScanError.output("socket activation: bad LISTEN_FDS '\(countText)'")
        }
        var fds: [Int32] = []
        for fd in 3..<(3 + count) {
            var type: Int32 = 0, listening: Int32 = 0, family = sockaddr_storage()
            var len = socklen_t(MemoryLayout<Int32>.size)
            var flen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 else {
                throw ScanError.output("socket activation: descriptor \(fd) is not a socket")
            }
            len = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len)
            _ = withUnsafeMutablePointer(to: &family) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &flen) }
            }
            guard type == Int32(SOCK_STREAM.rawValue), listening != 0, Int32(family.ss_family) == AF_UNIX else {
                throw ScanError.output("socket activation: descriptor \(fd) is not a listening Unix stream socket (use ListenStream=/path in scand.socket)")
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            fds.append(fd)
        }
        return fds
    }

    /// The filesystem path a listening Unix socket is bound to, if any.
    public static func boundPath(of fd: Int32) -> String? {
        var addr = sockaddr_un()
        var len = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard rc == 0 else { return nil }
        let path = withUnsafeBytes(of: &addr.sun_path) { raw -> String in
            let bytes = raw.prefix(while: { $0 != 0 })
            return String(decoding: bytes, as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }

    static func lookupGroup(_ name: String) throws -> gid_t {
        if let n = UInt32(name) { return gid_t(n) }
        guard let g = getgrnam(name) else { throw ScanError.output("--socket-group: no group named '\(name)'") }
        return g.pointee.gr_gid
    }

    static func address(_ path: String) -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        return addr
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}
