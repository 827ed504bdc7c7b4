public import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes each event's line to a file descriptor (stdout by default) with plain `write(2)`: one call per
/// line, so it works the same for a pipe, a tty or a regular file (NIO's pipe bootstrap refuses regular
/// files). When the reader goes away (EPIPE) it stops writing and calls `onReaderGone` once.
public final class FileDescriptorSink: EventSink, @unchecked Sendable {
    private let fd: Int32
    private let onReaderGone: @Sendable () -> Void
    private let lock = Lock()
    private var gone = false

    /// - Parameters:
    ///   - fd: the descriptor to write to (not closed by the sink).
    ///   - onReaderGone: called once when a write fails with EPIPE (or another fatal error).
    public init(fd: Int32 = 1, onReaderGone: @escaping @Sendable () -> Void = {}) {
        self.fd = fd
        self.onReaderGone = onReaderGone
    }

    /// True once the reader has gone away.
    public var readerGone: Bool { lock.withLock { gone } }

    public func deliver(_ event: EncodedEvent) { write(event.line) }

    /// Writes raw bytes (one whole line) or marks the reader gone.
    public func write(_ line: [UInt8]) {
        var failed = false
        lock.withLock {
        guard !gone else { return }
            line.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n > 0 { offset += n; continue }
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 && errno == EAGAIN {
                        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&p, 1, 1000)
                        continue
                    }
                    failed = true
                    return
                }
            }
            if failed { gone = true }
        }
        if failed { onReaderGone() }
    }

    public func finish() {}
}
