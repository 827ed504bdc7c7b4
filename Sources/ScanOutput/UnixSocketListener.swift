import ScanCore
internal import SystemPackage

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

    /// Binds and listens on `path`, creating the socket file with mode 0600 and widening it to `mode`
    /// (default 0660, never world-writable) once its group is `group` (name or number) when given.
    ///
    /// An existing socket file is replaced only when connecting to it fails with `ECONNREFUSED` (stale);
    /// when the connect succeeds another process is serving it and this throws. A path that exists and is
    /// not a socket is never removed.
    ///
    /// Permissions without following links: the file is created under umask 0177 (0600: nobody else can
    /// connect yet), then identified by `lstat` (must be a socket owned by this user), opened with
    /// `O_PATH | O_NOFOLLOW` and checked to be that same inode; the group and mode are set through that
    /// descriptor (`fchownat(AT_EMPTY_PATH)`, `chmod` of `/proc/self/fd/N`), so a symlink or another file
    /// swapped in at `path` after `bind` is never changed. (Binding inside a private directory and renaming
    /// into place would also do, but `ss -lx` would then show the temporary name.)
    /// If anything after `bind` fails, the file is removed only if it is still the one bound here.
    /// - Returns: the listening descriptor (close-on-exec) and the identity of the socket file, for
    ///   ``BoundSocket/removeIfStillOurs()`` at shutdown.
    /// - Throws: ``ScanError/output(_:)`` naming the path and the reason.
    public static func bind(
        path: String, group: String? = nil, mode: UInt32 = 0o660,
        backlog: Int32 = 1024
    ) throws -> BoundSocket {
        guard !path.isEmpty else { throw ScanError.output("--socket: empty path") }
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw ScanError.output(
                "\(path): socket path too long (at most \(MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1) bytes)"
            )
        }
        let mode = mode & 0o770  // never world-accessible, no special bits
        var gid: gid_t?
        if let group { gid = try lookupGroup(group) }
        // Two scands starting at once must not both find the file stale: the second would remove the socket
        // the first has just bound. The check, bind and listen run under an exclusive lock on the directory
        // (flock; no lock file is made), so the second then finds a live socket and says so.
        let directoryLock = lockDirectory(of: path)
        defer { if directoryLock >= 0 { close(directoryLock) } }
        let preparation = try prepare(path: path)

        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ScanError.output("\(path): socket(): \(Errno.last.text)") }
        var addr = address(path)
        // 0177: the file is created 0600 at most, then widened to `mode` once its group is right.
        let oldMask = umask(0o177)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindErrno = Errno.last
        umask(oldMask)
        guard rc == 0 else {
            close(fd)
            throw ScanError.output(
                "\(path): cannot bind: \(bindErrno)"
                    + (bindErrno == .noSuchFileOrDirectory ? " (does the directory exist?)" : ""))
        }
        // Identify the file bind just created. Until this succeeds nothing at `path` is known to be ours,
        // so a failure here closes the descriptor and removes nothing.
        var st = stat()
        guard lstat(path, &st) == 0 else {
            let text = Errno.last.text
            close(fd)
            throw ScanError.output("\(path): cannot check the new socket file: \(text); left in place")
        }
        guard (st.st_mode & S_IFMT) == S_IFSOCK, st.st_uid == geteuid() else {
            close(fd)
            throw ScanError.output("\(path): replaced by something else right after bind; left in place")
        }
        let bound = BoundSocket(
            fd: fd, path: path, device: UInt64(st.st_dev), inode: UInt64(st.st_ino),
            preparation: preparation)
        do {
            try setPermissions(of: bound, group: group, gid: gid, mode: mode)
            if listen(fd, backlog) != 0 { throw ScanError.output("\(path): listen: \(Errno.last.text)") }
        } catch {
            close(fd)
            bound.removeIfStillOursHoldingLock()
            throw error
        }
        return bound
    }

    /// An exclusive `flock` on the directory holding `path`, held until the returned descriptor is closed;
    /// -1 (no lock) when the directory cannot be opened for reading: the bind then goes on unserialized.
    static func lockDirectory(of path: String) -> Int32 {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        while flock(fd, LOCK_EX) != 0 {
            if Errno.last != .interrupted {
                close(fd)
                return -1
            }
        }
        return fd
    }

    /// Sets the group (when `gid` is given) and mode of `bound`'s file through an `O_PATH | O_NOFOLLOW`
    /// descriptor verified to be that inode: never through a symlink, never on a file swapped in at the path.
    static func setPermissions(of bound: BoundSocket, group: String?, gid: gid_t?, mode: UInt32) throws {
        let path = bound.path
        let pfd = open(path, linuxOPath | O_NOFOLLOW | O_CLOEXEC)
        guard pfd >= 0 else { throw ScanError.output("\(path): cannot open the new socket file: \(Errno.last.text)") }
        defer { close(pfd) }
        var st = stat()
        guard fstat(pfd, &st) == 0, (st.st_mode & S_IFMT) == S_IFSOCK,
            UInt64(st.st_dev) == bound.device, UInt64(st.st_ino) == bound.inode
        else {
            throw ScanError.output("\(path): replaced by something else after bind; not changing its permissions")
        }
        if let gid, fchownat(pfd, "", uid_t.max, gid, linuxATEmptyPath) != 0 {
            throw ScanError.output("\(path): cannot set group \(group ?? "\(gid)"): \(Errno.last.text)")
        }
        // fchmod does not work on an O_PATH descriptor; its /proc/self/fd link names exactly that inode.
        if chmod("/proc/self/fd/\(pfd)", mode_t(mode)) != 0 {
            throw ScanError.output("\(path): chmod: \(Errno.last.text)")
        }
    }

    /// Checks `path` before binding: absent → fine; a socket that refuses connections → removed; a live
    /// socket or anything else → throws with a message saying what to do.
    public static func prepare(path: String) throws -> Preparation {
        var st = stat()
        if lstat(path, &st) != 0 {
            let e = Errno.last
            if e == .noSuchFileOrDirectory { return .fresh }
            throw ScanError.output("\(path): \(e.text)")
        }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw ScanError.output("\(path): exists and is not a socket; refusing to replace it")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ScanError.output("\(path): socket(): \(Errno.last.text)") }
        defer { close(fd) }
        var addr = address(path)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if rc == 0 {
            throw ScanError.output(
                "\(path): another scand (or another program) is already serving this socket; stop it first or choose another --socket"
            )
        }
        let e = Errno.last
        guard e == .connectionRefused else {
            throw ScanError.output("\(path): cannot check the existing socket file: \(e)")
        }
        if unlink(path) != 0 {
            let e = Errno.last
            guard e == .noSuchFileOrDirectory else {
                throw ScanError.output("\(path): cannot remove stale socket file: \(e.text)")
            }
        }
        return .replacedStale
    }

    /// Listening sockets passed by systemd socket activation (`LISTEN_PID` = this process, `LISTEN_FDS`
    /// descriptors from 3). Clears the variables so children do not inherit them. Empty when not activated.
    /// - Throws: when a passed descriptor is not a listening Unix stream socket.
    public static func activatedSockets() throws -> [Int32] {
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }),
            let countText = getenv("LISTEN_FDS").map({ String(cString: $0) })
        else { return [] }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        guard let pid = Int32(pidText), pid == getpid() else { return [] }
        guard let count = Int32(countText), count >= 1, count <= 64 else {
            throw ScanError.output("socket activation: bad LISTEN_FDS '\(countText)'")
        }
        var fds: [Int32] = []
        for fd in 3..<(3 + count) {
            var type: Int32 = 0
            var listening: Int32 = 0
            var family = sockaddr_storage()
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
                throw ScanError.output(
                    "socket activation: descriptor \(fd) is not a listening Unix stream socket (use ListenStream=/path in scand.socket)"
                )
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

    /// Linux `O_PATH` and `AT_EMPTY_PATH` (glibc defines them only under `_GNU_SOURCE`, which the Glibc
    /// module does not import).
    static let linuxOPath: Int32 = 0o10000000
    static let linuxATEmptyPath: Int32 = 0x1000

}

/// The socket file ``UnixSocketListener/bind(path:group:mode:backlog:)`` created: its path and its identity
/// (device and inode, as `lstat` saw them right after `bind`).
///
/// `fd` is the listening descriptor; it belongs to whoever it is handed to (``SocketServer/listen(fd:)``
/// closes it at ``SocketServer/finish()``): this value never closes it.
public struct BoundSocket: Sendable, Hashable {
    /// The listening descriptor (close-on-exec).
    public let fd: Int32
    /// The path given to `bind`.
    public let path: String
    /// `st_dev` of the socket file.
    public let device: UInt64
    /// `st_ino` of the socket file.
    public let inode: UInt64
    /// What was found at the path before binding.
    public let preparation: UnixSocketListener.Preparation

    public init(fd: Int32, path: String, device: UInt64, inode: UInt64, preparation: UnixSocketListener.Preparation) {
        self.fd = fd
        self.path = path
        self.device = device
        self.inode = inode
        self.preparation = preparation
    }

    /// What ``removeIfStillOurs()`` did.
    public enum Removal: Sendable, Equatable {
        /// The path still named this socket file, and it was unlinked.
        case removed
        /// Nothing is at the path any more.
        case alreadyGone
        /// The path now names something else (another file, another daemon's socket): left in place.
        case notOurs
        /// The path is still ours but unlink failed (errno text).
        case failed(String)
    }

    /// True when `path` still names this socket file: `lstat` gives the same device and inode, and a socket.
    public var isStillOurs: Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return false }
        return (st.st_mode & S_IFMT) == S_IFSOCK && UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    /// Unlinks `path` only if it still names this socket file, so a file put there since, or the live
    /// socket of a daemon started since on the same path, is never removed. (Only a program that does not
    /// take scand's directory lock could still replace it between the check and the unlink.)
    @discardableResult
    public func removeIfStillOurs() -> Removal {
        // Under the directory lock a starting scand's check-bind-listen holds: it cannot replace the file
        // between this check and the unlink.
        let directoryLock = UnixSocketListener.lockDirectory(of: path)
        defer { if directoryLock >= 0 { close(directoryLock) } }
        return removeIfStillOursHoldingLock()
    }

    /// ``removeIfStillOurs()`` for a caller that already holds the directory lock (``UnixSocketListener/bind``:
    /// a second `flock` on the directory would wait for its own).
    @discardableResult
    func removeIfStillOursHoldingLock() -> Removal {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            let e = Errno.last
            return e == .noSuchFileOrDirectory ? .alreadyGone : .failed(e.text)
        }
        guard (st.st_mode & S_IFMT) == S_IFSOCK, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode else {
            return .notOurs
        }
        if unlink(path) == 0 { return .removed }
        let e = Errno.last
        return e == .noSuchFileOrDirectory ? .alreadyGone : .failed(e.text)
    }
}
