#if canImport(Glibc)
    import Glibc
#endif

/// `sd_notify(3)` without libsystemd: one datagram to `$NOTIFY_SOCKET` (a path, or an abstract socket
/// when it starts with `@`). Does nothing when systemd did not ask for notifications.
public struct SystemdNotifier: Sendable {
    /// The socket address from the environment, nil when not started by systemd with `Type=notify`.
    public let socketPath: String?

    /// The watchdog timeout systemd enforces (`WatchdogSec=`), in seconds; nil when there is none. scand
    /// must send `WATCHDOG=1` more often than this, or systemd kills and restarts it.
    public let watchdogTimeout: Double?

    /// Reads `$NOTIFY_SOCKET`, and `$WATCHDOG_USEC` when `$WATCHDOG_PID` is unset or this process's pid
    /// (sd_watchdog_enabled's rules: a watchdog meant for another process is ignored).
    public init() {
        let env = { (name: String) in getenv(name).map { String(cString: $0) } }
        self.init(
            socketPath: env("NOTIFY_SOCKET"),
            watchdog: Self.watchdogTimeout(usec: env("WATCHDOG_USEC"), pid: env("WATCHDOG_PID"), ownPID: getpid()))
    }

    /// Uses `socketPath` as the notification socket (nil or empty: notifications off) and `watchdog` as the
    /// watchdog timeout in seconds (nil: none).
    public init(socketPath value: String?, watchdog: Double? = nil) {
        socketPath = (value?.isEmpty ?? true) ? nil : value
        watchdogTimeout = socketPath == nil ? nil : watchdog
    }

    /// The timeout in seconds from `WATCHDOG_USEC` (a positive integer of microseconds), nil when absent,
    /// malformed, or when `WATCHDOG_PID` names another process.
    public static func watchdogTimeout(usec: String?, pid: String?, ownPID: Int32) -> Double? {
        if let pid, Int32(pid) != ownPID { return nil }
        guard let usec, let value = UInt64(usec), value > 0 else { return nil }
        return Double(value) / 1_000_000
    }

    /// Sends `state` (e.g. `READY=1`, `STOPPING=1`, `STATUS=…`); returns false when not possible.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let path = socketPath else { return false }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            if bytes.first == UInt8(ascii: "@") { raw[0] = 0 }  // abstract namespace
        }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == UInt8(ascii: "@") ? 0 : 1)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes {
                    sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, socklen_t(length))
                }
            }
        }
        return sent == message.count
    }
}
