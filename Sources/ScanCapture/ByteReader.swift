import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Buffered, forward-only reading from a file descriptor (a file, a pipe or stdin).
/// Owns the descriptor when `ownsDescriptor` (never for stdin).
///
/// Every method is correct for any split of the input into `read(2)` results: the buffered bytes are
/// `buffer[start..<end]`, and every position kept across a refill is an offset from `start`, never an
/// absolute index (a refill moves the buffered bytes to the front).
final class ByteReader {
    private let fd: FileDescriptor
    private let ownsDescriptor: Bool
    /// Buffered bytes are `buffer[start..<end]`. The buffer grows only when one line or one peek needs
    /// more than its capacity; bulk reads of at least one buffer go straight into the caller's memory.
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    /// Bytes read from `fd` so far (buffered or not), i.e. the descriptor's offset when it was opened at 0.
    private var consumedFromDescriptor = 0
    private(set) var atEOF = false
    /// The input's name for errors (valid UTF-8).
    let name: String

    init(fd: FileDescriptor, name: String, ownsDescriptor: Bool, capacity: Int = 1 << 16) {
        self.fd = fd
        self.name = name
        self.ownsDescriptor = ownsDescriptor
        self.buffer = [UInt8](repeating: 0, count: max(1, capacity))
    }

    deinit { close() }

    private var closed = false
    func close() {
        guard !closed else { return }
        closed = true
        if ownsDescriptor { try? fd.close() }
    }

    /// One `read(2)` into `destination`, retried on EINTR; 0 at end of input (and `atEOF` set).
    private func readDescriptor(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        if atEOF || closed || destination.isEmpty { return 0 }
        let n: Int
        do {
            n = try fd.read(into: destination, retryOnInterrupt: true)
        } catch let e as Errno {
            throw ScanError.unreadableInput(input: name, reason: describe(e))
        }
        if n == 0 { atEOF = true }
        consumedFromDescriptor += n
        return n
    }

    /// Reads more input after the buffered bytes (moving them to the front first, and growing the buffer
    /// only when it is full of unconsumed bytes). Returns false at end of input.
    private func fill() throws -> Bool {
        if atEOF || closed { return false }
        if start > 0 {
            let count = end - start
            if count > 0 {
                buffer.withUnsafeMutableBufferPointer { b in
                    let base = b.baseAddress!
                    base.update(from: base + start, count: count)
                }
            }
            start = 0
            end = count
        }
        if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        let n = try buffer.withUnsafeMutableBytes { raw in
            try readDescriptor(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
        }
        end += n
        return n > 0
    }

    /// Why a line could not be read.
    enum LineError: Error {
        /// No `\n` within `limit` bytes.
        case tooLong(limit: Int)
        /// The input ended after `count` bytes of a line (no `\n`).
        case truncated(count: Int)
    }

    /// Reads one line up to `\n` (not included), of at most `limit` bytes. Nil at end of input (no bytes).
    /// - Throws: ``ScanError`` naming the input when the line is longer than `limit` or the input ends inside it.
    func readLine(limit: Int) throws -> [UInt8]? {
        do { return try readLineOrFail(limit: limit) } catch let e as LineError {
            switch e {
            case .tooLong(let limit):
                throw ScanError.undecodableInput(input: name, reason: "header line longer than \(limit) bytes")
            case .truncated:
                throw ScanError.undecodableInput(input: name, reason: "truncated: input ends inside a header line")
            }
        }
    }

    /// ``readLine(limit:)`` with the failure as a ``LineError``, for callers that describe it themselves.
    func readLineOrFail(limit: Int) throws -> [UInt8]? {
        var searched = 0  // bytes after `start` already known to hold no `\n` (an offset: fill() moves `start`)
        while true {
            if let i = buffer[(start + searched)..<end].firstIndex(of: 0x0A) {
                guard i - start <= limit else { throw LineError.tooLong(limit: limit) }
                let line = Array(buffer[start..<i])
                start = i + 1
                return line
            }
            searched = end - start
            if searched > limit { throw LineError.tooLong(limit: limit) }
            if try !fill() {
                if start == end { return nil }
                throw LineError.truncated(count: end - start)
            }
        }
    }

    /// Reads up to `destination.count` bytes into `destination`; fewer only at end of input.
    /// Buffered bytes are copied first; a remainder of at least one buffer is read straight from the
    /// descriptor into `destination` (no copy through the buffer). Returns the number of bytes read.
    func read(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = destination.count
        var done = 0
        while done < count {
            if start < end {
                let n = min(count - done, end - start)
                buffer.withUnsafeBytes { src in
                    UnsafeMutableRawBufferPointer(rebasing: destination[done..<(done + n)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: src[start..<(start + n)]))
                }
                start += n
                done += n
            } else if count - done >= buffer.count {
                let n = try readDescriptor(into: UnsafeMutableRawBufferPointer(rebasing: destination[done...]))
                if n == 0 { break }
                done += n
            } else if try !fill() {
                break
            }
        }
        return done
    }

    /// Reads exactly `count` bytes into `out` starting at `offset`. Returns the number read (< count at EOF).
    func read(into out: inout [UInt8], offset: Int = 0, count: Int) throws -> Int {
        precondition(offset >= 0 && count >= 0 && offset + count <= out.count, "read(into:) outside the array")
        return try out.withUnsafeMutableBytes { raw in
            try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
        }
    }

    /// Skips `count` bytes. Returns the number skipped (< count at EOF).
    ///
    /// On a regular file the part past the buffered bytes is seeked over, as far as the file's end, instead of
    /// read (a Y4M frame's chroma planes, a third of its bytes, were copied in only to be dropped); what would
    /// pass the end is read as on a pipe, so a truncated file still comes up short.
    func skip(_ count: Int) throws -> Int {
        var done = min(max(0, count), end - start)
        start += done
        if done < count { done += seekForward(count - done) }
        while done < count {
            if start == end, try !fill() { break }
            let n = min(count - done, end - start)
            start += n
            done += n
        }
        return done
    }

    /// The size in bytes of the file `fd` names now (`fstat`), if it is a regular file; nil for a pipe, a socket,
    /// a device, or if `fstat` fails.
    private func regularFileSize() -> Int? {
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(st.st_size)
    }

    /// Whether `fd` is a regular file (nil until ``seekForward(_:)`` first asks).
    private var isRegularFile: Bool?

    /// Moves a regular file's offset forward by up to `count` bytes, no further than its current end, with the
    /// buffer empty. Returns how far it moved: 0 on anything but a regular file, at its end, or if the
    /// descriptor refuses to seek (the caller then reads).
    private func seekForward(_ count: Int) -> Int {
        guard start == end, count > 0, !atEOF, !closed, isRegularFile != false else { return 0 }
        guard let size = regularFileSize() else {
            isRegularFile = false
            return 0
        }
        isRegularFile = true
        let here = lseek(fd.rawValue, 0, SEEK_CUR)
        guard here >= 0 else {
            isRegularFile = false
            return 0
        }
        let n = min(count, max(0, size - Int(here)))
        guard n > 0, lseek(fd.rawValue, off_t(n), SEEK_CUR) == here + off_t(n) else { return 0 }
        consumedFromDescriptor += n
        return n
    }

    /// Reads everything that is left, refusing input of more than `limit` bytes in all.
    ///
    /// A regular file is sized with `fstat` first: over `limit`, it is refused before anything is read;
    /// otherwise it is read straight into one array of its size. Anything else (a pipe, a socket) is read
    /// until it ends or passes `limit`, so an endless producer costs at most `limit` bytes of memory.
    /// - Throws: ``ScanError`` naming the input when it is larger than `limit`.
    func readAll(limit: Int) throws -> [UInt8] {
        func over(_ what: String) -> ScanError {
            .undecodableInput(input: name, reason: "\(what), over the limit of \(limit) bytes for a still image")
        }
        var out: [UInt8]
        if let size = regularFileSize(), !atEOF, !closed {
            let unread = max(0, size - consumedFromDescriptor)
            let total = (end - start) + unread
            if total > limit { throw over("file is \(total) bytes") }
            out = try [UInt8](unsafeUninitializedCapacity: total) { dst, initialized in
                initialized = try read(into: UnsafeMutableRawBufferPointer(dst))
            }
            if out.count < total { return out }  // the file shrank while being read: what is there is all
        } else {
            out = []
        }
        // Not a regular file, or one that grew after fstat: read it through the buffer up to the limit.
        while true {
            if start == end, try !fill() { break }
            let n = end - start
            if out.count + n > limit { throw over("input goes on past \(limit) bytes") }
            if out.count + n > out.capacity {
                out.reserveCapacity(min(limit, max(out.count + n, 2 * out.capacity, 1 << 20)))
            }
            out.append(contentsOf: buffer[start..<end])
            start = end
        }
        return out
    }

    /// Peeks at up to `count` bytes without consuming them (fewer only at end of input).
    func peek(_ count: Int) throws -> [UInt8] {
        while end - start < count, try fill() {}
        return Array(buffer[start..<min(end, start + count)])
    }
}

/// Opens `path` for reading (`-` is stdin), with errors that name the input.
func openInput(_ path: String) throws -> ByteReader {
    try openInput(InputPath(path))
}

/// Opens `path` for reading by its raw bytes (`-` is stdin). Errors and the reader's name use
/// `path.displayName`. Directories and devices other than terminals are refused (a device such as
/// `/dev/zero` never ends).
/// - Throws: ``ScanError`` naming the input.
func openInput(_ path: InputPath) throws -> ByteReader {
    let name = path.displayName
    if path.isStandardInput { return ByteReader(fd: .standardInput, name: name, ownsDescriptor: false) }
    if path.bytes.isEmpty || path.bytes.contains(0) {
        throw ScanError.unreadableInput(
            input: name, reason: path.bytes.isEmpty ? "empty file name" : "file name contains a NUL byte")
    }
    var raw: Int32 = -1
    repeat {
        raw = (path.bytes + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
        }
    } while raw < 0 && Errno.last == .interrupted
    if raw < 0 { throw ScanError.unreadableInput(input: name, reason: describe(Errno.last)) }
    let fd = FileDescriptor(rawValue: raw)
    var st = stat()
    if fstat(raw, &st) == 0 {
        let kind = st.st_mode & S_IFMT
        var refusal: String?
        if kind == S_IFDIR { refusal = "is a directory" }
        if kind == S_IFBLK || (kind == S_IFCHR && isatty(raw) == 0) { refusal = "is a device, not a file or a pipe" }
        if let refusal {
            try? fd.close()
            throw ScanError.unreadableInput(input: name, reason: refusal)
        }
    }
    return ByteReader(fd: fd, name: name, ownsDescriptor: true)
}

func describe(_ e: Errno) -> String {
    switch e {
    case .noSuchFileOrDirectory: return "no such file"
    case .permissionDenied: return "permission denied"
    default: return String(describing: e)
    }
}
