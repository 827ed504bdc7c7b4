public import ScanCore

/// The lines an event client gets besides the events themselves (banner, snapshot, replies to commands),
/// shared by every transport: the Unix socket (``SocketServer``) and the HTTP server's WebSocket `/events`
/// send byte-identical lines. Each returned line ends with a newline.
public enum ClientLines {
    /// `{"event":"hello","version":…,"protocol":…,"types":[…],"events":[…],"timestamp":T}`.
    public static func hello(_ banner: ServerBanner, timestamp: Double? = nil) -> [UInt8] {
        struct Hello: Encodable {
            var event = "hello", version: String, `protocol`: Int, types: [String], events: [String]
            var timestamp: Double
        }
        return JSONLinesEncoder().encodeLine(
            Hello(
                version: banner.version, protocol: JSONLinesEncoder.protocolVersion,
                types: banner.types.map(\.rawValue).sorted(), events: Subscription.eventNames.sorted(),
                timestamp: timestamp ?? wallClockSeconds()))
    }

    /// What is present now, as `appeared` lines marked `"snapshot":true` (only types `types` passes, and only
    /// the cameras `cameras` passes).
    public static func snapshot(
        _ snapshot: PresenceSnapshot, types: Set<MetadataObjectType>? = nil, cameras: Set<String>? = nil,
        timestamp: Double? = nil
    ) -> [[UInt8]] {
        let filter = Subscription(cameras: cameras)
        return snapshot.present.filter { (types?.contains($0.type) ?? true) && filter.matches(camera: $0.camera) }
            .map { JSONLinesEncoder().encodeLine(SnapshotLine($0, timestamp: timestamp ?? wallClockSeconds())) }
    }

    /// `{"event":"polled","present":N,"lastSeq":S,"timestamp":T}`.
    public static func polled(present: Int, lastSeq: UInt64, timestamp: Double? = nil) -> [UInt8] {
        struct Polled: Encodable {
            var event = "polled"
            var present: Int
            var lastSeq: UInt64
            var timestamp: Double
        }
        return JSONLinesEncoder().encodeLine(
            Polled(present: present, lastSeq: lastSeq, timestamp: r(timestamp ?? wallClockSeconds(), 6)))
    }

    /// `{"event":"devices","devices":[{"device":…,"state":…,"live":…,"framesRead":…,…}],"timestamp":T}`.
    public static func devices(_ states: [SourceState], timestamp: Double? = nil) -> [UInt8] {
        struct Line: Encodable {
            struct Device: Encodable {
                var camera: String?
                var device: String, state: String, live: Bool, framesRead: Int, framesProcessed: Int, framesDropped: Int
            }
            var event = "devices"
            var devices: [Device]
            var timestamp: Double
        }
        let list = states.map {
            Line.Device(
                camera: $0.camera, device: $0.device, state: $0.state, live: $0.live, framesRead: $0.framesRead,
                framesProcessed: $0.framesProcessed, framesDropped: $0.framesDropped)
        }
        return JSONLinesEncoder().encodeLine(Line(devices: list, timestamp: r(timestamp ?? wallClockSeconds(), 6)))
    }

    /// `{"event":"subscribed","types":[…],"events":[…]}` (absent keys: everything).
    public static func subscribed(_ subscription: Subscription) -> [UInt8] {
        struct Subscribed: Encodable {
            var event = "subscribed"
            var types: [String]?
            var events: [String]?
            var cameras: [String]?
        }
        return JSONLinesEncoder().encodeLine(
            Subscribed(
                types: subscription.types?.map(\.rawValue).sorted(),
                events: subscription.events?.sorted(), cameras: subscription.cameras?.sorted()))
    }

    /// `{"event":"error","message":…,"timestamp":T}`.
    public static func error(_ message: String, timestamp: Double? = nil) -> [UInt8] {
        struct ErrorLine: Encodable {
            var event = "error"
            var message: String
            var timestamp: Double
        }
        return JSONLinesEncoder().encodeLine(ErrorLine(message: message, timestamp: timestamp ?? wallClockSeconds()))
    }

    /// `{"event":"overflow","dropped":N,"timestamp":T}`: N events were dropped for this client.
    public static func overflow(dropped: Int, timestamp: Double? = nil) -> [UInt8] {
        struct Overflow: Encodable {
            var event = "overflow"
            var dropped: Int
            var timestamp: Double
        }
        return JSONLinesEncoder().encodeLine(Overflow(dropped: dropped, timestamp: timestamp ?? wallClockSeconds()))
    }
}
