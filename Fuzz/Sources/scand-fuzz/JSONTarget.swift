import Foundation
import ScanCore
import ScanOutput

/// The JSON-lines encoder's round trip. Builds an event from the input (strings decoded from arbitrary
/// bytes, so with control characters, quotes, backslashes and U+FFFD for invalid UTF-8; raw payload bytes),
/// encodes it, and checks the contract: exactly one line ending in `\n`, no raw control character, valid
/// JSON whose strings come back byte for byte and whose `bytes` is the exact payload in base64. Flag 0x40 marks
/// the payload a GS1 element string, so its `gs1Elements`/`gs1Error` (any bytes) go through the encoder too.
enum JSONTarget {
    @Sendable static func run(_ data: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(data)
        let kind = input.byte() % 3
        let a = String(decoding: input.chunk(), as: UTF8.self)
        let b = String(decoding: input.chunk(), as: UTF8.self)
        let payload = input.chunk()
        let flags = input.byte()
        let frame = Int(input.byte()) << 8 | Int(input.byte())
        let types = MetadataObjectType.allCases
        let type = types[Int(input.byte()) % types.count]
        let value: String? = flags & 1 == 0 ? a : nil
        let bytes: [UInt8]? = flags & 2 == 0 ? payload : nil
        let event: ScanEvent
        switch kind {
        case 0:
            let count = Int(flags >> 2) % 4
            let objects = (0..<count).map { i in
                MetadataObject(type: type, bounds: NormalizedRect(x: 0.25, y: 0.5, width: 0.125, height: 1),
                               stringValue: i == 0 ? value : b, payload: i == 0 ? bytes : Array(b.utf8),
                               isGS1: flags & 0x40 != 0)
            }
            event = .metadata(MetadataEvent(source: b, frame: frame, time: Double(frame) / 30, width: 640, height: 480, objects: objects))
        case 1:
            event = .presence(PresenceEvent(transition: flags & 4 == 0 ? .appeared : .lost, type: type, value: value,
                                            payload: bytes, source: b, frame: frame, time: 1.5, isGS1: flags & 0x40 != 0))
        default:
            event = .device(DeviceEvent(kind: .runtimeError, device: b, reason: value))
        }
        let seq = UInt64(frame)
        let line = JSONLinesEncoder().encode(event, seq: seq, timestamp: 1_700_000_000.25).line

        fuzzCheck(line.last == 0x0A, "line does not end in \\n")
        fuzzCheck(line.dropLast().allSatisfy { $0 >= 0x20 }, "raw control character in \(line)")
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(line.dropLast()))
        } catch {
            fatalError("not valid JSON (\(error)): \(String(decoding: line, as: UTF8.self))")
        }
        guard let object = parsed as? [String: Any] else { fatalError("not an object") }
        fuzzCheck(object["seq"] as? Int == frame, "seq")
        switch event {
        case .metadata(let m):
            same(object["source"], m.source, "source")
            guard let lines = object["objects"] as? [[String: Any]], lines.count == m.objects.count else { fatalError("objects") }
            for (line, o) in zip(lines, m.objects) {
                fuzzCheck(line["type"] as? String == o.type.rawValue, "type")
                same(line["value"], o.stringValue, "value")
                sameBytes(line["bytes"], o.payload)
            }
        case .presence(let p):
            same(object["source"], p.source, "source")
            same(object["value"], p.value, "value")
            sameBytes(object["bytes"], p.payload)
            fuzzCheck(object["event"] as? String == p.transition.rawValue, "event")
        case .device(let d):
            same(object["device"], d.device, "device")
            same(object["reason"], d.reason, "reason")
        case .configuration:
            fuzzCheck(object["event"] as? String == "configuration", "event")
        }
    }

    /// The decoded JSON string has exactly the UTF-8 bytes of `expected` (absent when `expected` is nil).
    static func same(_ decoded: Any?, _ expected: String?, _ what: String) {
        guard let expected else { fuzzCheck(decoded == nil, "\(what) present but was nil"); return }
        guard let text = decoded as? String else { fatalError("\(what) missing") }
        fuzzCheck(Array(text.utf8) == Array(expected.utf8), "\(what) changed: \(Array(expected.utf8)) -> \(Array(text.utf8))")
    }

    /// `bytes` decodes from base64 to exactly `payload` (absent when `payload` is nil).
    static func sameBytes(_ decoded: Any?, _ payload: [UInt8]?) {
        guard let payload else { fuzzCheck(decoded == nil, "bytes present but payload was nil"); return }
        guard let text = decoded as? String, let data = Data(base64Encoded: text) else { fatalError("bytes missing or not base64") }
        fuzzCheck([UInt8](data) == payload, "bytes changed: \(payload) -> \([UInt8](data))")
    }
}
