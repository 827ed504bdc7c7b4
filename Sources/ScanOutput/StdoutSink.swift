public import ScanCore
public import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Why an output stopped taking lines.
public enum OutputFailure: Sendable, Equatable, CustomStringConvertible {
    /// The reader went away (`EPIPE`, e.g. `scand … | head`): a normal end, not an error.
    case readerGone
    /// Any other write error (`ENOSPC` on a full disk, `EIO`, `EBADF`, …): an error, never reported as success.
    /// `output` names the output (`stdout`), `errno` is the error `write(2)` gave.
    case writeFailed(output: String, errno: Errno)

    public var description: String {
        switch self {
        case .readerGone: return "the reader went away"
        case .writeFailed(let output, let errno): return "\(output): write error: \(errno.description)"
        }
    }
}

/// Writes each event's line to a file descriptor (stdout by default) with plain `write(2)`: one call per
/// line (looping on short writes), so it works the same for a pipe, a tty or a regular file (NIO's pipe
/// bootstrap refuses regular files).
///
/// Writing blocks while the reader is slow: that is right for `scand scan` (batch work, lossless,
/// back-pressured). In `scand run` wrap it in a queue of its own so it never blocks the pipeline.
/// The first failure stops all further writes; `EPIPE` is ``OutputFailure/readerGone``, any other error
/// ``OutputFailure/writeFailed(output:reason:)``; `onFailure` is called once with it.
public final class FileDescriptorSink: EventSink, Sendable {
    private let fd: Int32
    private let name: String
    private let onFailure: @Sendable (OutputFailure) -> Void
    /// The first failure; writes happen under its lock, so lines never interleave.
    private let failureState = Locked<OutputFailure?>(nil)

    /// - Parameters:
    ///   - fd: the descriptor to write to (not closed by the sink).
    ///   - name: the output's name in error messages.
    ///   - onFailure: called once, on the writing thread, when the first write fails.
    public init(
        fd: Int32 = 1, name: String = "stdout", onFailure: @escaping @Sendable (OutputFailure) -> Void = { _ in }
    ) {
        self.fd = fd
        self.name = name
        self.onFailure = onFailure
    }

    /// The failure that stopped this output, if any.
    public var failure: OutputFailure? { failureState.withLock { $0 } }

    /// True once the reader has gone away (`EPIPE`).
    public var readerGone: Bool { failure == .readerGone }

    /// True once any write failed (the output takes no more lines).
    public var hasFailed: Bool { failure != nil }

    public func deliver(_ event: EncodedEvent) { write(event.line) }

    /// Writes one whole line, or records the failure. Returns false when the line was not written.
    @discardableResult
    public func write(_ line: [UInt8]) -> Bool {
        let fd = self.fd
        let failure: OutputFailure? = failureState.withLock { failureState in
            guard failureState == nil else { return nil }
            let code = line.withUnsafeBytes { raw -> Errno? in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n > 0 {
                        offset += n
                        continue
                    }
                    let e = n < 0 ? Errno.last : .ioError  // n == 0 on a non-empty write: an I/O error
                    if e == .interrupted { continue }
                    if e == .resourceTemporarilyUnavailable || e == .wouldBlock {
                        // A non-blocking descriptor inherited from the parent: wait until it takes more.
                        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&p, 1, 1000)
                        continue
                    }
                    return e
                }
                return nil
            }
            guard let code else { return nil }
            failureState = code == .brokenPipe ? .readerGone : .writeFailed(output: name, errno: code)
            return failureState
        }
        if let failure {
            onFailure(failure)
            return false
        }
        return !hasFailed
    }

    public func finish() {}
}
