/// Everything scand publishes. Each event becomes one JSON line (see ScanOutput's `JSONLinesEncoder`);
/// new kinds are additions, never changes to existing ones.
public enum ScanEvent: Sendable {
    /// One processed frame or image with every object found on it (`"event":"metadata"`).
    case metadata(MetadataEvent)
    /// A code value or face became present or absent (`"event":"appeared"` / `"lost"`).
    case presence(PresenceEvent)
    /// A capture device changed state (`"event":"device"`).
    case device(DeviceEvent)
    /// The running configuration changed (`"event":"configuration"`), e.g. the rect of interest set on the
    /// live page.
    case configuration(ConfigurationEvent)

    /// The JSON `event` name.
    public var name: String {
        switch self {
        case .metadata: return "metadata"
        case .presence(let p): return p.transition.rawValue
        case .device: return "device"
        case .configuration: return "configuration"
        }
    }

    /// The metadata object types this event concerns (for subscription filters); empty for device events.
    public var objectTypes: Set<MetadataObjectType> {
        switch self {
        case .metadata(let m): return Set(m.objects.map(\.type))
        case .presence(let p): return [p.type]
        case .device, .configuration: return []
        }
    }
}

/// The objects found on one frame. `frame` is 0-based within `source`; `time` is seconds since the
/// source's start (0 for a still image); `width`/`height` are the frame's size in pixels.
public struct MetadataEvent: Sendable {
    public var source: String
    public var frame: Int
    public var time: Double
    public var width: Int
    public var height: Int
    public var objects: [MetadataObject]
    /// When the frame was captured; used for latency, not encoded.
    public var captureClock: MonotonicInstant?
    public init(
        source: String, frame: Int, time: Double, width: Int, height: Int,
        objects: [MetadataObject], captureClock: MonotonicInstant? = nil
    ) {
        self.source = source
        self.frame = frame
        self.time = time
        self.width = width
        self.height = height
        self.objects = objects
        self.captureClock = captureClock
    }
}

/// A presence transition for one code value or one faceID.
public struct PresenceEvent: Sendable {
    public enum Transition: String, Sendable { case appeared, lost }
    public var transition: Transition
    public var type: MetadataObjectType
    /// The code's text (codes only).
    public var value: String?
    /// The code's exact bytes (codes only).
    public var payload: [UInt8]?
    /// The face's identifier (faces only).
    public var faceID: Int?
    /// Codes under `--presence instance`: the symbol's track (``MetadataObject/trackID``), whose presence this is.
    public var trackID: Int?
    /// Codes of a structured-append sequence: the part's place or the whole's size
    /// (``MetadataObject/sequence``), so a consumer can tell a part's presence from the message's.
    public var sequence: StructuredAppend?
    public var source: String
    public var frame: Int
    public var time: Double
    /// Last known bounds, normalized device coordinates.
    public var bounds: NormalizedRect?
    /// Codes: the character set `value` was decoded with, and what chose it (see ``TextEncoding``).
    public var textEncoding: TextEncoding?
    /// Codes: true for a GS1 element string.
    public var isGS1: Bool
    /// `scand run`: the camera whose stream this presence is on (set when the event bus numbers it).
    public var camera: String?
    public init(
        transition: Transition, type: MetadataObjectType, value: String? = nil, payload: [UInt8]? = nil,
        faceID: Int? = nil, source: String, frame: Int, time: Double, bounds: NormalizedRect? = nil,
        textEncoding: TextEncoding? = nil, isGS1: Bool = false, trackID: Int? = nil,
        sequence: StructuredAppend? = nil
    ) {
        self.trackID = trackID
        self.sequence = sequence
        self.transition = transition
        self.type = type
        self.value = value
        self.payload = payload
        self.faceID = faceID
        self.source = source
        self.frame = frame
        self.time = time
        self.bounds = bounds
        self.textEncoding = textEncoding
        self.isGS1 = isGS1
    }
}

/// A change of the running configuration, applied between two frames.
public struct ConfigurationEvent: Sendable, Equatable {
    /// The new rect of interest (normalized device coordinates), when that is what changed.
    public var rectOfInterest: NormalizedRect?
    /// Who changed it: `http` (the live page) or `reload` (SIGHUP re-read the config file).
    public var origin: String
    /// `reload`: the config file read.
    public var config: String?
    /// `reload`: every effective setting whose value changed, keyed as in the config file, with its new value
    /// (empty when the file changed nothing).
    public var changed: [String: SettingValue]?
    /// `reload`: the changed settings that take effect only after a restart (`input/device`, `socket`, …).
    public var needsRestart: [String]?

    public init(rectOfInterest: NormalizedRect?, origin: String) {
        self.rectOfInterest = rectOfInterest
        self.origin = origin
    }

    /// A SIGHUP reload of `config` that changed `changed`.
    public init(reloaded config: String?, changed: [String: SettingValue], needsRestart: [String]) {
        origin = "reload"
        self.config = config
        self.changed = changed
        self.needsRestart = needsRestart.isEmpty ? nil : needsRestart
    }
}

/// One setting's value as the config file writes it (`--check-config`'s effective settings, a `configuration`
/// event's `changed`).
public enum SettingValue: Sendable, Equatable, Encodable {
    case string(String)
    case strings([String])
    case int(Int)
    case double(Double)
    case bool(Bool)

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let v): try c.encode(v)
        case .strings(let v): try c.encode(v)
        case .int(let v): try c.encode(v)
        case .double(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        }
    }
}

/// A capture device state change (`AVCaptureSession` notifications).
public struct DeviceEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case connected = "deviceConnected"
        case disconnected = "deviceDisconnected"
        case interrupted = "wasInterrupted"
        case interruptionEnded = "interruptionEnded"
        case runtimeError = "runtimeError"
        case started = "started"
        case stopped = "stopped"
        /// The device is not there (yet): the session waits for it and starts when it appears.
        case waiting = "waiting"
        /// A control's value changed (by scand or another process, `V4L2_EVENT_CTRL`): `control`, `value`.
        case controlChanged = "controlChanged"
        /// The software exposure loop started stepping a control (`adjustingExposure` became true).
        case adjustingExposureStarted = "adjustingExposureStarted"
        /// The region reached its target, or the control its limit (`adjustingExposure` became false).
        case adjustingExposureEnded = "adjustingExposureEnded"
    }
    public var kind: Kind
    public var device: String
    public var reason: String?
    /// The control's `v4l2-ctl` name (``Kind/controlChanged``, the exposure events).
    public var control: String?
    /// The control's new value, in its own units.
    public var value: Int64?
    public init(kind: Kind, device: String, reason: String? = nil, control: String? = nil, value: Int64? = nil) {
        self.kind = kind
        self.device = device
        self.reason = reason
        self.control = control
        self.value = value
    }
}

/// An event after encoding: the JSON line (ending in `\n`) plus what a subscription filter needs.
public struct EncodedEvent: Sendable {
    public var name: String
    public var objectTypes: Set<MetadataObjectType>
    public var line: [UInt8]
    public var seq: UInt64?
    /// `scand run`: the camera the event concerns (nil for events of the whole process, such as an output's
    /// failure, and outside `run`).
    public var camera: String?
    public init(
        name: String, objectTypes: Set<MetadataObjectType>, line: [UInt8], seq: UInt64? = nil,
        camera: String? = nil
    ) {
        self.camera = camera
        self.name = name
        self.objectTypes = objectTypes
        self.line = line
        self.seq = seq
    }
}
