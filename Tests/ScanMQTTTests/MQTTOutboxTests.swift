import Foundation
import Testing
import ScanCore
@testable import ScanMQTT
import Logging

/// The outbox alone (no broker): order, acknowledgement, requeue after a lost connection, the bound and
/// its `overflow` notice.
@Suite struct MQTTOutboxTests {
    static func message(_ n: Int) -> MQTTMessage { MQTTMessage(topic: "scand/t/events", payload: Array("{\"seq\":\(n)}".utf8)) }
    static func seq(_ m: MQTTMessage) -> String { String(decoding: m.payload, as: UTF8.self) }

    @Test func sendsInOrderWithinTheWindowAndAcknowledgementsFreeTheHead() {
        let box = MQTTOutbox(capacity: 100, byteCapacity: 1 << 20, overflowTopic: "scand/t/events")
        box.append((1...5).map(Self.message))
        let a = box.next(maxInFlight: 2), b = box.next(maxInFlight: 2)
        #expect(box.next(maxInFlight: 2) == nil) // window full
        #expect(a.map { Self.seq($0.message) } == "{\"seq\":1}" && b.map { Self.seq($0.message) } == "{\"seq\":2}")
        box.acknowledge(b!.id) // out of order: the head stays until 1 is acknowledged
        #expect(box.statistics.messages == 5 && box.statistics.inFlight == 1)
        box.acknowledge(a!.id)
        #expect(box.statistics.messages == 3 && box.statistics.acknowledged == 2)
        box.acknowledge(a!.id) // twice: ignored
        #expect(box.statistics.acknowledged == 2)
        #expect(box.next(maxInFlight: 2).map { Self.seq($0.message) } == "{\"seq\":3}")
    }

    @Test func aLostConnectionSendsTheUnacknowledgedAgainInOrder() {
        let box = MQTTOutbox(capacity: 100, byteCapacity: 1 << 20, overflowTopic: "scand/t/events")
        box.append((1...4).map(Self.message))
        let sent = (0..<3).compactMap { _ in box.next(maxInFlight: 10) }
        box.acknowledge(sent[1].id) // 2 acknowledged, 1 and 3 lost with the connection
        box.requeueInFlight()
        box.acknowledge(sent[0].id) // a stale acknowledgement from the old connection changes nothing
        var again: [String] = []
        while let n = box.next(maxInFlight: 10) { again.append(Self.seq(n.message)); box.acknowledge(n.id) }
        #expect(again == ["{\"seq\":1}", "{\"seq\":3}", "{\"seq\":4}"])
        #expect(box.isEmpty)
    }

    @Test func overflowDropsTheOldestAndSaysHowMany() throws {
        let box = MQTTOutbox(capacity: 10, byteCapacity: 1 << 20, overflowTopic: "scand/t/events")
        box.append((1...25).map(Self.message))
        #expect(box.statistics.messages == 10 && box.statistics.dropped == 15)
        let first = try #require(box.next(maxInFlight: 100))
        let notice = try JSONSerialization.jsonObject(with: Data(first.message.payload)) as? [String: Any]
        #expect(notice?["event"] as? String == "overflow" && notice?["dropped"] as? Int == 15 && notice?["seq"] == nil)
        #expect(box.next(maxInFlight: 100).map { Self.seq($0.message) } == "{\"seq\":16}")
    }

    @Test func theByteBoundHoldsToo() {
        let box = MQTTOutbox(capacity: 1_000_000, byteCapacity: 10_000, overflowTopic: "t")
        for i in 0..<10_000 { box.append([MQTTMessage(topic: "t", payload: [UInt8](repeating: UInt8(i & 0x7F), count: 200))]) }
        #expect(box.statistics.bytes <= 10_000 && box.statistics.messages == 10_000 / (200 + 1 + 64))
        #expect(box.statistics.dropped == 10_000 - box.statistics.messages)
    }

    @Test func brokerURLs() throws {
        #expect(try MQTTEndpoint(parsing: "mqtt://broker.lan") == MQTTEndpoint(host: "broker.lan", port: 1883, tls: false))
        #expect(try MQTTEndpoint(parsing: "mqtts://10.0.0.2:8884/") == MQTTEndpoint(host: "10.0.0.2", port: 8884, tls: true))
        #expect(try MQTTEndpoint(parsing: "mqtt://[::1]:1999") == MQTTEndpoint(host: "::1", port: 1999, tls: false))
        for bad in ["http://x", "mqtt://", "mqtt://h:0", "mqtt://u:p@h", "mqtt://h:1883/topic"] {
            #expect(throws: ScanError.self, "\(bad)") { try MQTTEndpoint(parsing: bad) }
        }
        #expect(MQTTIdentity.sanitize("kiosk/7+#") == "kiosk_7__")
    }

    // MARK: the spool (MQTTSpool under the outbox, a real directory)

    static func spoolDir() -> String {
        let dir = NSTemporaryDirectory() + "scand-spool-unit-\(getpid())-\(Int.random(in: 0..<1_000_000))"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func segments(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasPrefix("scand-t-") }.sorted()
    }

    @Test func spoolSegmentsGoOnceEveryMessageIsAcknowledgedAndComeBackOtherwise() throws {
        let dir = Self.spoolDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let spool = MQTTSpool(directory: dir, id: "t", byteLimit: 1 << 20, logger: .init(label: "t"))
        #expect(spool.segmentLimit == 131_072)
        let box = MQTTOutbox(capacity: 100_000, byteCapacity: 1 << 30, overflowTopic: "scand/t/events", spool: spool)
        box.append((1...10000).map(Self.message)) // ~37 bytes a record: three segments of 128 KiB
        let before = Self.segments(dir)
        #expect(before.count == 3 && before.first == "scand-t-0000000000000001.mqtt-spool")
        // Acknowledge the first 8000: the two segments holding only those go, the last stays.
        for _ in 0..<8000 { let n = box.next(maxInFlight: 100_000)!; box.acknowledge(n.id) }
        let after = Self.segments(dir)
        #expect(after == [before[2]])
        // A new outbox (the next start) reads back every unacknowledged message, in order (a few acknowledged
        // ones may come again: at least once).
        let reread = MQTTOutbox(capacity: 100_000, byteCapacity: 1 << 30, overflowTopic: "scand/t/events",
                                spool: MQTTSpool(directory: dir, id: "t", byteLimit: 1 << 20, logger: .init(label: "t")))
        #expect(reread.restoreSpool() >= 2000)
        var seqs: [String] = []
        while let n = reread.next(maxInFlight: 100_000) { seqs.append(Self.seq(n.message)) }
        #expect(Array(seqs.suffix(2000)) == (8001...10000).map { "{\"seq\":\($0)}" })
    }

    @Test func theSpoolDiskBoundDropsTheOldestSegmentWithAnOverflowNotice() throws {
        let dir = Self.spoolDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let spool = MQTTSpool(directory: dir, id: "t", byteLimit: 8192, logger: .init(label: "t"))
        let box = MQTTOutbox(capacity: 100_000, byteCapacity: 1 << 30, overflowTopic: "scand/t/events", spool: spool)
        box.append((1...2000).map(Self.message)) // ~80 kB of records against an 8 kB bound
        let onDisk = Self.segments(dir).reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.size] as? Int) ?? 0)
        }
        #expect(onDisk <= 8192 + 4096 && spool.usage.bytes == onDisk)
        let dropped = box.statistics.dropped
        #expect(dropped > 1500 && box.statistics.messages == 2000 - dropped)
        let first = box.next(maxInFlight: 10)!.message
        #expect(Self.seq(first) .hasPrefix("{\"event\":\"overflow\",\"dropped\":\(dropped),"))
        #expect(box.next(maxInFlight: 10).map { Self.seq($0.message) } == "{\"seq\":\(dropped + 1)}")
    }

    @Test func spoolRecordsRoundTripAndACorruptOneIsRefused() {
        let m = MQTTMessage(topic: "scand/t/status", payload: Array("{\"a\":\"é\\n\"}".utf8), retain: true, isEvent: false)
        var bytes = MQTTSpool.encode(m)
        #expect(MQTTSpool.decode(bytes, at: 0).map { $0.0 } == m)
        #expect(MQTTSpool.decode(bytes, at: 0)?.1 == bytes.count)
        #expect(MQTTSpool.decode(Array(bytes.dropLast()), at: 0) == nil) // torn
        bytes[bytes.count - 2] ^= 0x20
        #expect(MQTTSpool.decode(bytes, at: 0) == nil) // checksum
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926) // the standard check value
    }
}
