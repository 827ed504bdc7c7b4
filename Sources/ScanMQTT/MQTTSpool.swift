import Foundation
import Logging
import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The on-disk half of the ``MQTTOutbox`` (`--mqtt-spool DIR`): every message the outbox takes is appended
/// to a segment file first (write-through, one `write(2)` per message: it survives a crash or SIGKILL of
/// scand at once), and a segment is deleted once every message in it was acknowledged by the broker or
/// dropped by a bound. At the next start the segments left are read back, oldest first, and sent before that
/// run's events.
///
/// Power loss: a record is on stable storage at most ``syncInterval`` seconds after it was written. With an
/// interval of 0 every record is `fdatasync`ed before `append` returns (on the pipeline thread); otherwise
/// the MQTT client thread syncs the segment being written once the oldest unsynced record is that old
/// (``takeDueSync(now:)``: a duplicate descriptor synced outside the outbox's lock, so the pipeline never
/// waits for the disk), a segment is synced before it is closed for the next, and the directory is synced
/// when a segment file is created. A power cut loses at most the records of the last interval; a torn tail
/// (a record cut short, zeros, garbage) fails its length or CRC check and ends the segment's readable part.
///
/// Files: `DIR/scand-<id>-<16-digit segment number>.mqtt-spool`. scand only ever deletes files whose
/// names it made this way; anything else in `DIR` is left alone.
///
/// Record: `length (UInt32 LE) | CRC-32 of the body (UInt32 LE) | body`, body = `flags (bit 0 retain,
/// bit 1 event) | topic length (UInt16 LE) | topic | payload`. A record cut short or with a wrong checksum
/// (a crash in the middle of a write) ends the segment's readable part: it is skipped with a log line.
///
/// The disk bound (``byteLimit``) counts segment bytes; past it the oldest segment goes and its messages are
/// dropped from the outbox (an `overflow` event says how many, as in memory). A failing write (ENOSPC,
/// EFBIG, EIO) truncates the segment back to its last whole record and turns the spool off for the rest of
/// the run: messages then live in memory only; ``takeError()`` hands the reason to the client once.
///
/// Not thread-safe: the owning ``MQTTOutbox`` calls it only while holding its lock.
final class MQTTSpool {
    private struct Segment {
        var number: UInt64
        var path: String
        var bytes: Int
        /// Messages of this segment still in the outbox (not acknowledged, not dropped).
        var outstanding: Int
    }
    let directory: String
    /// Bytes of segment files kept at most (the segment being written may pass it by one record).
    let byteLimit: Int
    /// A segment is closed and a new one started past this size.
    let segmentLimit: Int
    private let prefix: String
    private static let suffix = ".mqtt-spool"
    private let logger: Logger
    private var segments: [Segment] = []
    /// The segment being written (the last in `segments`) and its descriptor; -1 when none is open.
    private var fd: Int32 = -1
    private var totalBytes = 0
    private var disabled = false
    private var pendingError: String?
    /// Seconds a written record may wait for `fdatasync` (0: synced at once).
    let syncInterval: Double
    /// When the oldest record not yet synced was written; nil when all are synced.
    private var unsyncedSince: MonotonicInstant?
    /// `fdatasync` calls made (tests and figures).
    private(set) var syncs = 0

    init(directory: String, id: String, byteLimit: Int, syncInterval: Double = 0.2, logger: Logger) {
        self.directory = directory
        self.byteLimit = byteLimit
        self.syncInterval = max(0, syncInterval)
        self.segmentLimit = min(8 << 20, max(4096, byteLimit / 8))
        self.prefix = "scand-" + MQTTIdentity.sanitize(id) + "-"
        self.logger = logger
        // A file-size limit (ulimit -f) must be a write error, not a fatal signal.
        signal(SIGXFSZ, SIG_IGN)
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Bytes on disk now and the number of segment files.
    var usage: (bytes: Int, segments: Int) { (totalBytes, segments.count) }

    /// Reads the segments a previous run left, oldest first: each message with its segment number.
    func load() -> [(MQTTMessage, UInt64)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var numbered: [(UInt64, String)] = []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(Self.suffix) {
            let digits = name.dropFirst(prefix.count).dropLast(Self.suffix.count)
            if digits.count == 16, digits.allSatisfy(\.isNumber), let n = UInt64(digits) { numbered.append((n, name)) }
        }
        var out: [(MQTTMessage, UInt64)] = []
        for (number, name) in numbered.sorted(by: { $0.0 < $1.0 }) {
            let path = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else {
                logger.warning("mqtt: cannot read the spool segment \(path); leaving it")
                continue
            }
            let bytes = [UInt8](data)
            var at = 0
            var count = 0
            while at < bytes.count {
                guard let (m, next) = Self.decode(bytes, at: at) else {
                    logger.warning(
                        "mqtt: spool segment \(path): torn or corrupt record at byte \(at) of \(bytes.count) (scand stopped in the middle of a write?); skipping the \(bytes.count - at) byte(s) after it"
                    )
                    break
                }
                out.append((m, number))
                count += 1
                at = next
            }
            if count == 0 {
                unlink(path)
            } else {
                segments.append(Segment(number: number, path: path, bytes: bytes.count, outstanding: count))
                totalBytes += bytes.count
            }
        }
        return out
    }

    /// Appends `m` to the current segment (starting one when needed); returns its segment number, or nil when
    /// the spool is off (after a write error).
    func append(_ m: MQTTMessage) -> UInt64? {
        guard !disabled else { return nil }
        if fd < 0 || segments.last!.bytes >= segmentLimit {
            if fd >= 0 { closeWritten() }
            let number = (segments.last?.number ?? 0) + 1
            let path =
                directory + "/" + prefix + String(repeating: "0", count: max(0, 16 - String(number).count))
                + String(number) + Self.suffix
            let opened = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
            guard opened >= 0 else {
                fail("cannot create \(path): \(Errno.last.description)")
                return nil
            }
            fd = opened
            segments.append(Segment(number: number, path: path, bytes: 0, outstanding: 0))
            syncDirectory()  // the new file's name survives a power cut too
        }
        let record = Self.encode(m)
        let before = segments[segments.count - 1].bytes
        var written = 0
        let ok = record.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if Errno.last == .interrupted { continue }
                    return false
                }
                written += n
            }
            return true
        }
        guard ok else {
            let why = Errno.last.description
            _ = ftruncate(fd, off_t(before))  // back to the last whole record
            fail("cannot write \(segments[segments.count - 1].path): \(why)")
            return nil
        }
        segments[segments.count - 1].bytes += record.count
        segments[segments.count - 1].outstanding += 1
        totalBytes += record.count
        if syncInterval == 0 {
            syncs += 1
            if fdatasync(fd) != 0 {
                fail("cannot sync \(segments[segments.count - 1].path): \(Errno.last.description)")
                return nil
            }
        } else if unsyncedSince == nil {
            unsyncedSince = .now
        }
        return segments[segments.count - 1].number
    }

    /// The time until the oldest unsynced record is due for `fdatasync`; nil when every record is synced.
    func syncDue(now: MonotonicInstant) -> Duration? {
        guard let since = unsyncedSince, fd >= 0 else { return nil }
        return max(.zero, now.duration(to: since.advanced(by: .seconds(syncInterval))))
    }

    /// When a sync is due: a duplicate of the segment's descriptor, for the caller to `fdatasync` and close
    /// outside the owner's lock (records written meanwhile count as synced only at the next one). Nil when
    /// nothing is due.
    func takeDueSync(now: MonotonicInstant) -> Int32? {
        guard let due = syncDue(now: now), due <= .zero else { return nil }
        let copy = dup(fd)
        guard copy >= 0 else { return nil }
        unsyncedSince = nil
        syncs += 1
        return copy
    }

    /// A sync of a descriptor from ``takeDueSync(now:)`` failed: the spool goes off (as for a write error).
    func syncFailed(_ why: String) {
        guard !disabled else { return }
        fail("cannot sync \(segments.last?.path ?? directory): \(why)")
    }

    /// Syncs and closes the segment being written.
    private func closeWritten() {
        if unsyncedSince != nil {
            syncs += 1
            _ = fdatasync(fd)
            unsyncedSince = nil
        }
        Glibc.close(fd)
        fd = -1
    }

    private func syncDirectory() {
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirFD >= 0 else { return }
        _ = fsync(dirFD)
        Glibc.close(dirFD)
    }

    /// One message of segment `number` left the outbox; the segment goes when it was the last and the
    /// segment is no longer written.
    func release(_ number: UInt64) {
        guard let i = segments.firstIndex(where: { $0.number == number }) else { return }
        segments[i].outstanding -= 1
        if segments[i].outstanding <= 0 && !(i == segments.count - 1 && fd >= 0) { remove(at: i) }
    }

    /// When the spool passes its disk bound: deletes the oldest segment and returns its number (its messages
    /// must leave the outbox). Nil when within the bound or only the segment being written is left.
    func dropOldestIfOverLimit() -> UInt64? {
        guard totalBytes > byteLimit, segments.count > 1 else { return nil }
        let number = segments[0].number
        logger.warning(
            "mqtt: spool over \(byteLimit) bytes; dropping its oldest segment (\(segments[0].outstanding) message(s))")
        remove(at: 0)
        return number
    }

    /// At a clean stop: closes the segment being written and deletes it when nothing in it is outstanding;
    /// a message appended after this stays in memory. Returns the messages left on disk for the next start.
    func close() -> Int {
        disabled = true
        if fd >= 0 { closeWritten() }
        if let last = segments.last, last.outstanding <= 0 { remove(at: segments.count - 1) }
        return segments.reduce(0) { $0 + $1.outstanding }
    }

    /// The write error that turned the spool off, once.
    func takeError() -> String? {
        defer { pendingError = nil }
        return pendingError
    }

    private func remove(at i: Int) {
        if i == segments.count - 1 && fd >= 0 {
            Glibc.close(fd)
            fd = -1
            unsyncedSince = nil
        }
        if unlink(segments[i].path) != 0 && Errno.last != .noSuchFileOrDirectory {
            logger.warning(
                "mqtt: cannot remove the spool segment \(segments[i].path): \(Errno.last.description)")
        }
        totalBytes -= segments[i].bytes
        segments.remove(at: i)
    }

    private func fail(_ why: String) {
        disabled = true
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
            unsyncedSince = nil
        }
        if let last = segments.last, last.outstanding <= 0 { remove(at: segments.count - 1) }
        pendingError = "spool \(directory): \(why); keeping messages in memory only for the rest of this run"
    }

    // MARK: records

    static func encode(_ m: MQTTMessage) -> [UInt8] {
        let topic = Array(m.topic.utf8.prefix(65535))
        let bodyCount = 3 + topic.count + m.payload.count
        var out = [UInt8]()
        out.reserveCapacity(8 + bodyCount)
        appendLE(&out, UInt32(bodyCount))
        appendLE(&out, 0)  // CRC placeholder
        out.append((m.retain ? 1 : 0) | (m.isEvent ? 2 : 0))
        out.append(UInt8(topic.count & 0xFF))
        out.append(UInt8(topic.count >> 8))
        out.append(contentsOf: topic)
        out.append(contentsOf: m.payload)
        let crc = CRC32.checksum(out[8...])
        for k in 0..<4 { out[4 + k] = UInt8((crc >> (8 * UInt32(k))) & 0xFF) }
        return out
    }

    /// The message at `at` and where the next record starts, or nil when the record is cut short or corrupt.
    static func decode(_ b: [UInt8], at: Int) -> (MQTTMessage, Int)? {
        guard b.count - at >= 8 else { return nil }
        let length = Int(readLE(b, at))
        let crc = readLE(b, at + 4)
        guard length >= 3, length <= b.count - at - 8 else { return nil }
        let body = b[(at + 8)..<(at + 8 + length)]
        guard CRC32.checksum(body) == crc else { return nil }
        let flags = body[body.startIndex]
        let topicCount = Int(body[body.startIndex + 1]) | Int(body[body.startIndex + 2]) << 8
        guard 3 + topicCount <= length else { return nil }
        let topicStart = body.startIndex + 3
        let topic = String(decoding: body[topicStart..<(topicStart + topicCount)], as: UTF8.self)
        let payload = Array(body[(topicStart + topicCount)...])
        return (
            MQTTMessage(topic: topic, payload: payload, retain: flags & 1 != 0, isEvent: flags & 2 != 0),
            at + 8 + length
        )
    }

    private static func appendLE(_ out: inout [UInt8], _ v: UInt32) {
        for k in 0..<4 { out.append(UInt8((v >> (8 * UInt32(k))) & 0xFF)) }
    }

    private static func readLE(_ b: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) }
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as zlib's `crc32`.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
