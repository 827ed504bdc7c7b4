import Foundation
import Testing
import ScanCore
@testable import ScanMQTT
import Logging

/// Power loss and the spool (issue 52): a segment torn at any byte of a record, its tail cut, zeroed or
/// garbage, gives back every whole record before the tear and nothing corrupt; and the sync policy syncs
/// when it says.
@Suite struct MQTTSpoolCrashTests {
    static let name = "scand-t-0000000000000001.mqtt-spool"

    /// Messages of different sizes (topic and payload lengths vary), some retained.
    static func messages() -> [MQTTMessage] {
        (1...6).map { n in
            MQTTMessage(topic: n % 2 == 0 ? "scand/t/events" : "scand/t/state/\(n)",
                        payload: Array("{\"seq\":\(n),\"text\":\"\(String(repeating: "é", count: n * 7))\"}".utf8),
                        retain: n % 3 == 0, isEvent: n % 2 == 0)
        }
    }

    /// What a fresh spool reads back from a directory holding `bytes` as its one segment.
    static func load(_ bytes: [UInt8]) throws -> [MQTTMessage] {
        let dir = MQTTOutboxTests.spoolDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
        return MQTTSpool(directory: dir, id: "t", byteLimit: 1 << 20, logger: .init(label: "t")).load().map(\.0)
    }

    /// The segment scand writes for `messages()` (through the spool itself, synced per record).
    static func written() throws -> (bytes: [UInt8], starts: [Int]) {
        let dir = MQTTOutboxTests.spoolDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let spool = MQTTSpool(directory: dir, id: "t", byteLimit: 1 << 20, syncInterval: 0, logger: .init(label: "t"))
        for m in messages() { #expect(spool.append(m) == 1) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
        var starts = [0]
        for m in messages() { starts.append(starts.last! + MQTTSpool.encode(m).count) }
        #expect(starts.last == bytes.count)
        return (bytes, starts)
    }

    @Test func aTearAtEveryByteOfEveryRecordKeepsWhatCameBeforeAndDeliversNothingCorrupt() throws {
        let (bytes, starts) = try Self.written()
        let all = Self.messages()
        var cases = 0
        for record in 0..<all.count {
            for cut in starts[record]..<starts[record + 1] {
                let whole = Array(all.prefix(record))
                // The file ends there (the rest never reached the disk).
                #expect(try Self.load(Array(bytes[..<cut])) == whole, "cut at \(cut)")
                // The file has its length but the rest is zeros (a block allocated, never written) ...
                #expect(try Self.load(Array(bytes[..<cut]) + [UInt8](repeating: 0, count: bytes.count - cut)) == whole, "zeros from \(cut)")
                // ... or garbage (another file's old block).
                var rng = SystemRandomNumberGenerator()
                let junk = (cut..<bytes.count).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let got = try Self.load(Array(bytes[..<cut]) + junk)
                #expect(Array(got.prefix(record)) == whole && got.count == record, "garbage from \(cut)")
                cases += 3
            }
        }
        #expect(try Self.load(bytes) == all)
        #expect(cases == bytes.count * 3)
    }

    @Test func everyRecordIsSyncedWithinTheIntervalAndAtOnceWithZero() throws {
        let dir = MQTTOutboxTests.spoolDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 0: one fdatasync per record, before append returns.
        let eager = MQTTSpool(directory: dir, id: "e", byteLimit: 1 << 20, syncInterval: 0, logger: .init(label: "t"))
        for n in 1...5 { _ = eager.append(MQTTOutboxTests.message(n)) }
        #expect(eager.syncs == 5 && eager.syncDue(now: .now) == nil)
        // 0.2 s: none at once; one for the batch once the oldest is due; none while nothing is unsynced.
        let spool = MQTTSpool(directory: dir, id: "b", byteLimit: 1 << 20, syncInterval: 0.2, logger: .init(label: "t"))
        let box = MQTTOutbox(capacity: 1000, byteCapacity: 1 << 20, overflowTopic: "scand/b/events", spool: spool)
        box.append((1...50).map(MQTTOutboxTests.message))
        let due = try #require(box.syncSpoolIfDue())
        #expect(due > .zero && due <= .milliseconds(200) && box.spoolSyncs == 0)
        usleep(250_000)
        #expect(box.syncSpoolIfDue() == nil && box.spoolSyncs == 1)
        #expect(box.syncSpoolIfDue() == nil && box.spoolSyncs == 1)
        // A clean stop syncs what is left.
        box.append([MQTTOutboxTests.message(51)])
        _ = box.closeSpool()
        #expect(box.spoolSyncs == 2)
    }
}
