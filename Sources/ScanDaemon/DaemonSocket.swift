public import Logging
public import ScanOutput

/// The daemon's Unix socket server, on the sockets systemd passed (socket activation) or on one bound at a path.
public enum DaemonSocket {
    /// A listening server, and the socket file we bound (nil under socket activation: systemd owns it).
    public struct Opened {
        public var server: SocketServer
        public var ownedSocket: BoundSocket?
    }

    /// Listens on the sockets passed by systemd, else on `path` (bound with `group`, replacing a stale file);
    /// nil when there are neither. `state` answers the clients' snapshots (the pipeline). `path` is ignored (with a log line) under socket activation.
    /// - Throws: ``ScanError`` when the socket cannot be bound or listened on.
    public static func open(
        path: String?, group: String?, configuration: SocketServerConfiguration, banner: ServerBanner,
        state: any ServerStateProvider, logger: Logger
    ) throws -> Opened? {
        let activated = try UnixSocketListener.activatedSockets()
        var fds: [Int32] = activated
        var owned: BoundSocket?
        if !activated.isEmpty {
            let boundPaths = activated.compactMap(UnixSocketListener.boundPath(of:)).joined(separator: ", ")
            logger.notice(
                "using socket(s) passed by systemd", metadata: ["fds": "\(activated)", "path": "\(boundPaths)"])
            if path != nil { logger.info("--socket ignored: the socket comes from socket activation") }
        } else if let path {
            let bound = try UnixSocketListener.bind(path: path, group: group)
            if bound.preparation == .replacedStale {
                logger.notice("replaced stale socket file (nobody was listening)", metadata: ["path": "\(path)"])
            }
            owned = bound
            fds = [bound.fd]
        }
        guard !fds.isEmpty else { return nil }
        let server = SocketServer(configuration: configuration, banner: banner, state: state, logger: logger)
        for fd in fds { try server.listen(fd: fd) }
        logger.notice("listening", metadata: ["socket": "\(owned?.path ?? "socket activation")"])
        return Opened(server: server, ownedSocket: owned)
    }
}
