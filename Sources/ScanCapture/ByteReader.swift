internal import SystemPackage
import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Buffered, forward-only reading from a file descriptor (a file, a pipe or stdin).
/// Owns the descriptor unless it is stdin.
final class ByteReader {
    private let fd: FileDescriptor
    private let ownsDescriptor: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private(set) var atEOF = false
    let name: String

    init(fd: FileDescriptor, name: String, ownsDescriptor: Bool, capacity: Int = 1 << 16) {
        self.fd = fd; self.name = name; self.ownsDescriptor = ownsDescriptor
        self.buffer = [UInt8](repeating: 0, count: capacity)
    }

    deinit { close() }

    private var closed = false
    func close() {
        guard !closed else { return }
        closed = true
        if ownsDescriptor { try? fd.close() }
    }

    /// Refills the buffer; returns false at end of input.
    private func fill() throws -> Bool {
        if atEOF || closed { return false }
        if start > 0 {
            if start < end { buffer.withUnsafeMutableBufferPointer { b in
                let base = b.baseAddress!
                (base).update(from: base + start, count: end - start) } }
            end -= start; start = 0
        }
        if end == buffer.count { buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count)) }
        let n: Int
        do {
            n = try buffer.withUnsafeMutableBytes { raw in
                try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]), retryOnInterrupt: true)
            }
        } catch let e as Errno {
            throw ScanError.unreadableInput(input: name, reason: String(describing: e))
        }
        if n == 0 { atEOF = true; return false }
        end += n
        return true
    }

    /// Reads one line up to `\n` (not included), at most `limit` bytes. Nil at end of input.
    func readLine(limit: Int) throws -> [UInt8]? {
        var searchFrom = start
        while true {
            if let i = buffer[searchFrom..<end].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<i])
                start = i + 1
                return line
            }
            if end - start > limit {
                throw ScanError.undecodableInput(input: name, reason: "header line longer than \(limit) bytes")
            }
            searchFrom = end
            if try !fill() {
                if start == end { return nil }
                throw ScanError.undecodableInput(input: name, reason: "truncated: input ends inside a header line")
            }
            searchFrom = max(start, searchFrom - 0)
        }
    }

    /// Reads exactly `count` bytes into `out` starting at `offset`. Returns the number read (< count at EOF).
    func read(into out: inout [UInt8], offset: Int = 0, count: Int) throws -> Int {
        var done = 0
        while done < count {
            if start == end, try !fill() { break }
            let n = min(count - done, end - start)
            out.withUnsafeMutableBufferPointer { dst in
                buffer.withUnsafeBufferPointer { src in
                    (dst.baseAddress! + offset + done).update(from: src.baseAddress! + start, count: n)
                }
            }
            start += n; done += n
        }
        return done
    }

    /// Skips `count` bytes. Returns the number skipped.
    func skip(_ count: Int) throws -> Int {
        var done = 0
        while done < count {
            if start == end, try !fill() { break }
            let n = min(count - done, end - start)
            start += n; done += n
        }
        return done
    }

    /// Reads everything up to `limit` bytes.
    func readAll(limit: Int) throws -> [UInt8] {
        while try fill() {
            if end - start > limit { throw ScanError.undecodableInput(input: name, reason: "larger than \(limit) bytes") }
        }
        return Array(buffer[start..<end])
    }

    /// Peeks at up to `count` bytes without consuming them.
    func peek(_ count: Int) throws -> [UInt8] {
        while end - start < count, try fill() {}
        return Array(buffer[start..<min(end, start + count)])
    }
}

/// Opens `path` for reading (`-` is stdin), with errors that name the input.
func openInput(_ path: String) throws -> ByteReader {
    if path == "-" { return ByteReader(fd: .standardInput, name: "-", ownsDescriptor: false) }
    do {
        let fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        var st = stat()
        if fstat(fd.rawValue, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            try? fd.close()
            throw ScanError.unreadableInput(input: path, reason: "is a directory")
        }
        return ByteReader(fd: fd, name: path, ownsDescriptor: true)
    } catch let e as Errno {
        throw ScanError.unreadableInput(input: path, reason: describe(e))
    }
}

func describe(_ e: Errno) -> String {
    switch e {
    case .noSuchFileOrDirectory: return "no such file"
    case .permissionDenied: return "permission denied"
    default: return String(describing: e)
    }
}
