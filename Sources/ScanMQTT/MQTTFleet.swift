import Foundation
import ScanCore

/// The topics Home Assistant and Frigate users expect beside `<prefix>/events` (docs/fleet.md):
///
/// - `<prefix>/availability`: retained plain `online`/`offline` (the last will is `offline`);
/// - `<prefix>/tag`: one message per code that appears, `{"timestamp":…,"type":…,"value":…}`, not retained (Home
///   Assistant's `tag` scanner fires `tag_scanned` on each);
/// - `<prefix>/state/code`: retained, the last code that appeared, `{"type":…,"value":…,"bytes":…}`;
/// - `<prefix>/state/<type>`: retained, the last value of that type as plain text (`state/qr`, `state/ean13`);
/// - `<prefix>/state/face`: retained `ON` while a face is in view, `OFF` otherwise;
/// - with discovery, retained configs under `<discoveryPrefix>/{tag,binary_sensor,sensor}/<id>/…/config`;
/// - with several cameras, each camera's own `<prefix>/cameras/<name>/events` and state topics
///   (``camera(_:)``); the topics above then cover every camera (a face in view of any camera is `ON`).
public struct MQTTFleetTopics: Sendable, Equatable {
    public let prefix: String
    public let id: String
    public let discoveryPrefix: String

    public init(prefix: String, id: String, discoveryPrefix: String) {
        self.prefix = prefix
        self.id = id
        self.discoveryPrefix = discoveryPrefix
    }

    public var availability: String { prefix + "/availability" }
    public var events: String { prefix + "/events" }
    public var tag: String { prefix + "/tag" }
    public var lastCode: String { prefix + "/state/code" }
    public var face: String { prefix + "/state/face" }
    public func lastValue(of type: String) -> String { prefix + "/state/" + type }

    /// One camera's topics of a multi-camera run: its events and state under `<prefix>/cameras/<name>`.
    public func camera(_ name: String) -> MQTTFleetTopics {
        MQTTFleetTopics(prefix: prefix + "/cameras/" + name, id: id, discoveryPrefix: discoveryPrefix)
    }

    /// The discovery config topics this scand owns: the tag scanner, the face binary sensor, the last-code sensor.
    public var discoveryTopics: [String] {
        [
            discoveryPrefix + "/tag/\(id)/code/config", discoveryPrefix + "/binary_sensor/\(id)/face/config",
            discoveryPrefix + "/sensor/\(id)/last_code/config",
        ]
    }
}

/// Turns the event stream into the retained state topics and the tag topic, and makes the start-up messages
/// (discovery configs or their removal, the face state). Called from any thread that delivers events.
final class MQTTFleetState: Sendable {
    let topics: MQTTFleetTopics
    private let configuration: MQTTConfiguration
    /// The face IDs in view: of the whole run (key ""), and of each camera of a multi-camera run.
    private let faces = Locked<[String: Set<Int>]>([:])
    /// The cameras whose face state was published (`OFF` at start, or with a reload-added camera's first event).
    private let announced: Locked<Set<String>>

    init(configuration: MQTTConfiguration) {
        self.configuration = configuration
        topics = configuration.fleetTopics
        announced = Locked(Set(configuration.cameras))
    }

    /// The messages queued at start, after the spool: the discovery configs (or, with discovery off, an empty
    /// retained payload on each of this scand's config topics, which removes what an earlier run with
    /// discovery left), then `OFF` for the face state (nothing is in view before the first frame).
    func startMessages() -> [MQTTMessage] {
        let configs = configuration.discovery ? discoveryConfigs() : topics.discoveryTopics.map { ($0, [UInt8]()) }
        let faceTopics = [topics.face] + configuration.cameras.map { topics.camera($0).face }
        return configs.map { MQTTMessage(topic: $0.0, payload: $0.1, retain: true, isEvent: false) }
            + faceTopics.map { MQTTMessage(topic: $0, payload: Array("OFF".utf8), retain: true, isEvent: false) }
    }

    /// The tag and state messages an `appeared` or `lost` event leads to: the whole run's, then its camera's (a
    /// multi-camera run); before them, with the first event of a camera a reload added, its face state `OFF`.
    func messages(for event: EncodedEvent, payload: [UInt8]) -> [MQTTMessage] {
        var out: [MQTTMessage] = []
        // A camera a reload added: its face state starts `OFF`, as the cameras of the start did.
        if let camera = event.camera, !configuration.cameras.isEmpty,
            announced.withLock({ $0.insert(camera).inserted })
        {
            out.append(
                MQTTMessage(
                    topic: topics.camera(camera).face, payload: Array("OFF".utf8), retain: true, isEvent: false))
        }
        guard event.name == "appeared" || event.name == "lost",
            let object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
            let type = object["type"] as? String
        else { return out }
        out += stateMessages(event: event, object: object, type: type, topics: topics, key: "", tag: true)
        // Every camera of a multi-camera run, those a reload added included.
        if let camera = event.camera, !configuration.cameras.isEmpty {
            out += stateMessages(
                event: event, object: object, type: type, topics: topics.camera(camera), key: camera, tag: false)
        }
        return out
    }

    /// The state messages (and, with `tag`, the tag message) of one set of topics; `key` names its face set.
    private func stateMessages(
        event: EncodedEvent, object: [String: Any], type: String, topics: MQTTFleetTopics, key: String, tag: Bool
    ) -> [MQTTMessage] {
        if type == MetadataObjectType.face.rawValue {
            guard let id = object["faceID"] as? Int else { return [] }
            let change = faces.withLock { all -> String? in
                var faces = all[key] ?? []
                let before = faces.isEmpty
                if event.name == "appeared" { faces.insert(id) } else { faces.remove(id) }
                all[key] = faces
                return before == faces.isEmpty ? nil : (faces.isEmpty ? "OFF" : "ON")
            }
            return change.map {
                [MQTTMessage(topic: topics.face, payload: Array($0.utf8), retain: true, isEvent: false)]
            } ?? []
        }
        guard event.name == "appeared" else { return [] }
        var code: [String: String] = ["type": type]
        if let v = object["value"] as? String { code["value"] = v }
        if let b = object["bytes"] as? String { code["bytes"] = b }
        var out = [MQTTMessage(topic: topics.lastCode, payload: Self.json(code), retain: true, isEvent: false)]
        if let value = code["value"] {
            out.append(
                MQTTMessage(topic: topics.lastValue(of: type), payload: Array(value.utf8), retain: true, isEvent: false)
            )
            // The event's own time: a consumer can tell a tag delivered late (after a broker outage) from a fresh one.
            var message: [String: Any] = ["type": type, "value": value]
            if let t = object["timestamp"] as? Double { message["timestamp"] = t }
            if let camera = object["camera"] as? String, !configuration.cameras.isEmpty { message["camera"] = camera }
            if tag { out.append(MQTTMessage(topic: topics.tag, payload: Self.json(message), isEvent: false)) }
        }
        return out
    }

    /// The three retained discovery configs (Home Assistant MQTT discovery).
    func discoveryConfigs() -> [(String, [UInt8])] {
        let device: [String: Any] = [
            "identifiers": ["scand_" + configuration.id], "name": "scand " + configuration.id,
            "model": "scand", "manufacturer": "scand", "sw_version": configuration.version,
        ]
        let availability: [String: Any] = [
            "availability_topic": topics.availability,
            "payload_available": "online", "payload_not_available": "offline",
        ]
        let t = topics.discoveryTopics
        let tag: [String: Any] = ["topic": topics.tag, "value_template": "{{ value_json.value }}", "device": device]
        var face: [String: Any] = [
            "name": "Face", "unique_id": "scand_\(configuration.id)_face", "state_topic": topics.face,
            "payload_on": "ON", "payload_off": "OFF", "device_class": "occupancy", "device": device,
        ]
        var code: [String: Any] = [
            "name": "Last code", "unique_id": "scand_\(configuration.id)_last_code",
            "state_topic": topics.lastCode, "value_template": "{{ value_json.value }}",
            "json_attributes_topic": topics.lastCode, "icon": "mdi:qrcode-scan", "device": device,
        ]
        face.merge(availability) { a, _ in a }
        code.merge(availability) { a, _ in a }
        return [(t[0], Self.json(tag)), (t[1], Self.json(face)), (t[2], Self.json(code))]
    }

    static func json(_ object: Any) -> [UInt8] {
        Array(
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
                ?? Data())
    }
}
