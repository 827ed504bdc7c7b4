import FoundationEssentials
public import ScanCore

/// Encodes events as JSON lines, contract version 1: one object per line, keys sorted, no pretty-printing,
/// control characters escaped (so a payload can never break a line), slashes not escaped.
///
/// Numbers: normalized coordinates are rounded to 6 decimals, view coordinates (points) and angles to 3,
/// times to microseconds. Absent values are omitted, never `null`.
public struct JSONLinesEncoder: Sendable {
    /// The version of the JSON contract (the `protocol` in the daemon's banner).
    public static let protocolVersion = 1

    public init() {}

    private func makeEncoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// Encodes `event`, adding `seq` and `timestamp` (Unix seconds) when given (the daemon gives both), and the
    /// `camera` whose stream it is on (`scand run` gives it).
    public func encode(_ event: ScanEvent, seq: UInt64? = nil, timestamp: Double? = nil, camera: String? = nil)
        -> EncodedEvent
    {
        let line: [UInt8]
        switch event {
        case .metadata(let m):
            line = encodeLine(
                MetadataLine(
                    event: "metadata", camera: camera, source: m.source, frame: m.frame, time: r(m.time, 6),
                    width: m.width, height: m.height, objects: m.objects.map(ObjectLine.init),
                    seq: seq, timestamp: timestamp.map { r($0, 6) }))
        case .presence(let p):
            let gs1 = gs1Keys(p.payload, isGS1: p.isGS1)
            line = encodeLine(
                PresenceLine(
                    event: p.transition.rawValue, camera: camera, type: p.type.rawValue, value: p.value,
                    bytes: p.payload.map(base64), faceID: p.faceID, trackID: p.trackID,
                    sequenceSize: p.sequence?.size, sequenceIndex: p.sequence?.index, source: p.source,
                    frame: p.frame, time: r(p.time, 6), bounds: p.bounds.map(RectLine.init),
                    charset: p.textEncoding?.charset,
                    charsetSource: p.textEncoding?.source.rawValue, gs1: p.isGS1 ? true : nil,
                    gs1Elements: gs1.0, gs1Valid: gs1.1, gs1Error: gs1.2,
                    seq: seq, timestamp: timestamp.map { r($0, 6) }))
        case .device(let d):
            line = encodeLine(
                DeviceLine(
                    event: "device", camera: camera, kind: d.kind.rawValue, device: d.device, reason: d.reason,
                    control: d.control, value: d.value, seq: seq, timestamp: timestamp.map { r($0, 6) }))
        case .configuration(let c):
            line = encodeLine(
                ConfigurationLine(
                    camera: camera, rectOfInterest: c.rectOfInterest.map(RectLine.init), origin: c.origin,
                    config: c.config, changed: c.changed, needsRestart: c.needsRestart,
                    seq: seq, timestamp: timestamp.map { r($0, 6) }))
        }
        return EncodedEvent(name: event.name, objectTypes: event.objectTypes, line: line, seq: seq, camera: camera)
    }

    /// Encodes any value as one line ending in `\n`.
    public func encodeLine<T: Encodable>(_ value: T) -> [UInt8] {
        var bytes =
            (try? makeEncoder().encode(value)).map { [UInt8]($0) }
            ?? Array(#"{"event":"error","message":"encoding failed"}"#.utf8)
        bytes.append(0x0A)
        return bytes
    }
}

/// Base64 of raw bytes (the JSON `bytes` field).
func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

func r(_ v: Double, _ digits: Int) -> Double {
    guard v.isFinite else { return 0 }
    let scale = digits == 6 ? 1e6 : 1e3
    let out = (v * scale).rounded() / scale
    return out == 0 ? 0 : out  // no -0
}

struct PointLine: Encodable {
    var x: Double, y: Double
    init(_ p: NormalizedPoint) {
        x = r(p.x, 6)
        y = r(p.y, 6)
    }
    init(view p: ViewPoint) {
        x = r(p.x, 3)
        y = r(p.y, 3)
    }
}

struct RectLine: Encodable {
    var x: Double, y: Double, width: Double, height: Double
    init(_ b: NormalizedRect) {
        x = r(b.x, 6)
        y = r(b.y, 6)
        width = r(b.width, 6)
        height = r(b.height, 6)
    }
    init(view b: ViewRect) {
        x = r(b.x, 3)
        y = r(b.y, 3)
        width = r(b.width, 3)
        height = r(b.height, 3)
    }
}

struct ViewLine: Encodable {
    var bounds: RectLine
    var corners: [PointLine]?
    var rollAngle: Double?
    var yawAngle: Double?
    init(_ v: ViewMetadata) {
        bounds = RectLine(view: v.bounds)
        corners = v.corners.isEmpty ? nil : v.corners.map { PointLine(view: $0) }
        rollAngle = v.rollAngle.map { r($0, 3) }
        yawAngle = v.yawAngle.map { r($0, 3) }
    }
}

struct ObjectLine: Encodable {
    var type: String
    var value: String?
    var bytes: String?
    /// The character set `value` was decoded with, and what chose it: "eci", "kanji", "symbology", "guess".
    var charset: String?
    var charsetSource: String?
    /// true for a GS1 element string (FNC1 first; fields ended by GS, 0x1D); absent otherwise.
    var gs1: Bool?
    /// A GS1 element string's Application Identifiers (``GS1ElementString``), whether it is valid, and what is
    /// wrong with it; absent unless `gs1`.
    var gs1Elements: [GS1ElementLine]?, gs1Valid: Bool?, gs1Error: String?
    var bounds: RectLine
    var corners: [PointLine]?
    var quality: Int?
    var faceID: Int?
    /// Codes on a stream: the symbol's track (``MetadataObject/trackID``).
    var trackID: Int?
    /// Structured append: the sequence's size (a whole message or a part), and a part's 0-based place in it.
    var sequenceSize: Int?, sequenceIndex: Int?
    /// Code 39: the characters as printed when `value` is their Full ASCII or Code 32 decoding; the Full ASCII
    /// reading when `value` stays as printed.
    var rawValue: String?, fullASCIIValue: String?
    var rollAngle: Double?
    var yawAngle: Double?
    var view: ViewLine?
    init(_ o: MetadataObject) {
        type = o.type.rawValue
        value = o.stringValue
        bytes = o.payload.map(base64)
        charset = o.textEncoding?.charset
        charsetSource = o.textEncoding?.source.rawValue
        gs1 = o.isGS1 ? true : nil
        (gs1Elements, gs1Valid, gs1Error) = gs1Keys(o.payload, isGS1: o.isGS1)
        bounds = RectLine(o.bounds)
        corners = o.corners.isEmpty ? nil : o.corners.map(PointLine.init)
        quality = o.quality
        faceID = o.faceID
        trackID = o.trackID
        sequenceSize = o.sequence?.size
        sequenceIndex = o.sequence?.index
        rawValue = o.rawValue
        fullASCIIValue = o.fullASCIIValue
        rollAngle = o.rollAngle.map { r($0, 3) }
        yawAngle = o.yawAngle.map { r($0, 3) }
        view = o.view.map(ViewLine.init)
    }
}

struct MetadataLine: Encodable {
    var event: String, camera: String?, source: String, frame: Int, time: Double, width: Int, height: Int
    var objects: [ObjectLine]
    var seq: UInt64?, timestamp: Double?
}

struct PresenceLine: Encodable {
    var event: String, camera: String?, type: String
    var value: String?, bytes: String?, faceID: Int?, trackID: Int?
    /// Structured append, as on ``ObjectLine``: a part's presence or the whole message's.
    var sequenceSize: Int?, sequenceIndex: Int?
    var source: String, frame: Int, time: Double
    var bounds: RectLine?
    var charset: String?, charsetSource: String?, gs1: Bool?
    var gs1Elements: [GS1ElementLine]?, gs1Valid: Bool?, gs1Error: String?
    var seq: UInt64?, timestamp: Double?
}

/// One Application Identifier of a GS1 element string.
struct GS1ElementLine: Encodable {
    var ai: String, value: String, title: String?
}

/// The `gs1Elements`, `gs1Valid` and `gs1Error` keys of a GS1 element string's line (nil, nil, nil for any other
/// payload).
func gs1Keys(_ payload: [UInt8]?, isGS1: Bool) -> ([GS1ElementLine]?, Bool?, String?) {
    guard isGS1, let payload else { return (nil, nil, nil) }
    let parsed = GS1ElementString(payload)
    return (
        parsed.elements.map { GS1ElementLine(ai: $0.ai, value: $0.value, title: $0.title) }, parsed.isValid,
        parsed.error
    )
}

struct ConfigurationLine: Encodable {
    var event = "configuration"
    var camera: String?
    var rectOfInterest: RectLine?
    var origin: String
    var config: String?
    var changed: [String: SettingValue]?
    var needsRestart: [String]?
    var seq: UInt64?, timestamp: Double?
}

struct DeviceLine: Encodable {
    var event: String, camera: String?, kind: String, device: String
    var reason: String?
    var control: String?, value: Int64?
    var seq: UInt64?, timestamp: Double?
}
