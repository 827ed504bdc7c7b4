@testable import ScanCapture
import ScanCore
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The Y4M reader fed through a real pipe in random pieces.
///
/// Input: 8 bytes seed the split pattern, the rest is the byte stream. A writer thread writes the stream
/// into a pipe in chunks of 1 byte to 64 KiB (mostly small, so header lines and `FRAME` markers are cut
/// everywhere); `Y4MSource(reader: ByteReader(fd:…))` reads every frame until nil or an error. The seed also
/// picks the reader's initial buffer size (1 byte to 64 KiB), so lines and frames cross buffer ends and the
/// buffer grows and compacts.
/// Streams whose header declares more than 2^20 pixels a frame are skipped (each frame allocates W×H
/// bytes before its data arrives; the pixel budget is not this target's subject).
///
/// For a quarter of the seeds the same stream is also read from a regular file (unlinked, in /tmp), where the reader seeks
/// over each frame's chroma instead of reading it, and the two readings must agree frame for frame, error for
/// error.
enum Y4MTarget {
    static let maxPixels = 1 << 20

    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        guard data.count >= 8 else { return }
        var seed: UInt64 = 0
        for i in 0..<8 { seed |= UInt64(data[i]) << (8 * UInt64(i)) }
        let stream = Array(data[8...])
        guard declaredPixels(stream) <= maxPixels else { return }

        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { fatalError("pipe: \(errno)") }
        let writer = Writer(fd: fds[1], stream: stream, seed: seed)
        let thread = writer.start()

        let capacities = [1, 2, 3, 7, 16, 64, 4096, 1 << 16]
        let capacity = capacities[Int(seed % 8)]
        let piped = read(ByteReader(fd: FileDescriptor(rawValue: fds[0]), name: "fuzz.y4m", ownsDescriptor: true,
                                    capacity: capacity))
        pthread_join(thread, nil)

        guard (seed / 8) % 4 == 0 else { return }
        var template = Array("/tmp/scand-fuzz-y4m.XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { fatalError("mkstemp: \(errno)") }
        unlink(template) // the descriptor keeps the file until it is closed
        guard writeAll(fd, stream, stream.startIndex..<stream.endIndex) else { fatalError("write to the file: \(errno)") }
        guard lseek(fd, 0, SEEK_SET) == 0 else { fatalError("lseek: \(errno)") }
        let filed = read(ByteReader(fd: FileDescriptor(rawValue: fd), name: "fuzz.y4m", ownsDescriptor: true, capacity: capacity))
        fuzzCheck(filed.frames == piped.frames, "file and pipe gave different frames (\(filed.frames.count), \(piped.frames.count))")
        fuzzCheck(filed.error == piped.error, "file and pipe ended differently: \(filed.error ?? "end") / \(piped.error ?? "end")")
    }

    /// Every frame's luma `reader` gives, and the error that ended the stream (nil: it ended cleanly).
    static func read(_ reader: ByteReader) -> (frames: [[UInt8]], error: String?) {
        var frames: [[UInt8]] = []
        var failure: String?
        do {
            let source = try Y4MSource(reader: reader)
            fuzzCheck(source.size.width > 0 && source.size.height > 0, "accepted size \(source.size)")
            while let frame = try source.nextFrame() {
                fuzzCheck(frame.index == frames.count, "frame index \(frame.index), expected \(frames.count)")
                fuzzCheck(frame.luma.bytes.count == source.size.width * source.size.height, "luma size")
                frames.append(frame.luma.bytes)
            }
            source.close()
        } catch {
            // Refusing bad input with an error is fine; crashing or hanging is not.
            failure = "\(error)"
        }
        reader.close()
        return (frames, failure)
    }

    /// The largest W×H any `W`/`H` pair in the first line could give (the parser keeps the last of each).
    static func declaredPixels(_ stream: [UInt8]) -> Int {
        let line = stream.prefix(while: { $0 != 0x0A }).prefix(4096)
        var widths: [Int] = [], heights: [Int] = []
        for field in line.split(separator: 0x20) {
            guard let tag = field.first, let value = Int(String(decoding: field.dropFirst(), as: UTF8.self)) else { continue }
            if tag == UInt8(ascii: "W") { widths.append(value) }
            if tag == UInt8(ascii: "H") { heights.append(value) }
        }
        let w = widths.map { abs($0) }.max() ?? 0, h = heights.map { abs($0) }.max() ?? 0
        return w.multipliedReportingOverflow(by: h).overflow ? .max : w * h
    }
}

/// Writes the stream into the pipe in pseudo-random pieces, then closes its end. Stops at the first
/// failed write (EPIPE once the reader has given up).
///
/// `@unchecked Sendable`: handed to exactly one writer thread; the fuzz thread only joins it.
private final class Writer: @unchecked Sendable {
    let fd: Int32
    let stream: [UInt8]
    var random: SplitMix64

    init(fd: Int32, stream: [UInt8], seed: UInt64) {
        self.fd = fd; self.stream = stream; self.random = SplitMix64(state: seed)
    }

    func start() -> pthread_t {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            let writer = Unmanaged<Writer>.fromOpaque(context!).takeRetainedValue()
            writer.write()
            return nil
        }, context)
        if rc != 0 { fatalError("pthread_create: \(rc)") }
        return thread
    }

    /// A piece size: mostly 1-16 bytes, sometimes up to 4 KiB, rarely up to 64 KiB.
    func pieceSize() -> Int {
        let r = random.next()
        switch r % 16 {
        case 0: return 1 + Int((r >> 8) % 65536)
        case 1, 2, 3: return 1 + Int((r >> 8) % 4096)
        default: return 1 + Int((r >> 8) % 16)
        }
    }

    func write() {
        defer { close(fd) }
        var offset = 0
        while offset < stream.count {
            let end = min(stream.count, offset + pieceSize())
            guard writeAll(fd, stream, offset..<end) else { return }
            offset = end
        }
    }
}

/// Writes `bytes[range]` to `fd` whole, retrying on EINTR and after short writes. Returns false at the first failed
/// write (errno says why).
private func writeAll(_ fd: Int32, _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
    var offset = range.lowerBound
    while offset < range.upperBound {
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, range.upperBound - offset) }
        if n < 0 { if errno == EINTR { continue }; return false }
        offset += n
    }
    return true
}
