import Foundation
import Testing
import ScanCore
import ScanOutput
@testable import ScanKit
#if canImport(Glibc)
import Glibc
internal import SystemPackage
#endif

/// stdout in `run`: a bounded queue of its own, oldest dropped, an overflow line, never blocking.
@Suite struct QueuedSinkTests {
    static func event(_ seq: UInt64) -> EncodedEvent {
        EncodedEvent(name: "metadata", objectTypes: [], line: Array("{\"seq\":\(seq)}\n".utf8), seq: seq)
    }

    @Test func neverBlocksAndTellsWhatWasDropped() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        _ = fcntl(fds[1], 1031 /* F_SETPIPE_SZ */, 4096)
        let target = FileDescriptorSink(fd: fds[1], name: "test pipe")
        let sink = QueuedSink(target: target, capacity: 8)
        // Nobody reads: the pipe fills after ~400 of these lines; deliver must still return at once.
        let start = MonotonicInstant.now
        for seq in 1...5000 { sink.deliver(Self.event(UInt64(seq))) }
        #expect(start.elapsed.inSeconds < 1, "deliver never waits for the reader")
        usleep(200_000)
        #expect(sink.droppedEvents > 0)
        // Read everything: the lines are whole, in order, with one overflow line before the newest events.
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = MonotonicInstant.now.advanced(by: .seconds(3))
        while MonotonicInstant.now < deadline {
            let n = read(fds[0], &chunk, chunk.count)
            if n > 0 { out += chunk[0..<n] } else { usleep(10_000) }
            if String(decoding: out, as: UTF8.self).contains("{\"seq\":5000}") { break }
        }
        #expect(sink.finish(timeout: .seconds(2)))
        close(fds[1])
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
        let seqs = lines.compactMap { l -> Int? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any] else { Issue.record("not JSON: \(l)"); return nil }
            return (o["seq"] as? NSNumber)?.intValue
        }
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "in order, no duplicates")
        #expect(seqs.last == 5000, "the newest event is delivered")
        let overflow = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "overflow" }
        let told = overflow.compactMap { ($0["dropped"] as? NSNumber)?.intValue }.reduce(0, +)
        #expect(!overflow.isEmpty)
        #expect(told == 5000 - seqs.count, "overflow counts exactly the events that never arrived (\(told) vs \(5000 - seqs.count))")
    }

    @Test func writeErrorStopsTheOutputOnce() throws {
        let full = open("/dev/full", O_WRONLY)
        defer { close(full) }
        let failures = Counter()
        let target = FileDescriptorSink(fd: full, name: "full") { failures.add($0) }
        let sink = QueuedSink(target: target, capacity: 4)
        for seq in 1...20 { sink.deliver(Self.event(UInt64(seq))) }
        #expect(sink.finish(timeout: .seconds(2)))
        #expect(failures.values == [.writeFailed(output: "full", errno: .noSpace)])
        #expect(failures.values.map(\.description) == ["full: write error: No space left on device"])
    }

    final class Counter: @unchecked Sendable {
        // Invariant: `list` is touched only under `lock`.
        private let lock = NSLock()
        private var list: [OutputFailure] = []
        func add(_ f: OutputFailure) { lock.lock(); list.append(f); lock.unlock() }
        var values: [OutputFailure] { lock.lock(); defer { lock.unlock() }; return list }
    }
}
