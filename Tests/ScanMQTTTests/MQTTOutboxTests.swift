import Foundation
import Testing
import ScanCore
@testable import ScanMQTT

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
}
