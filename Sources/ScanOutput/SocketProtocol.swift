import FoundationEssentials
public import ScanCore

// The socket's protocol as values: the server's settings, the banner, a client's subscription and commands,
// the state a snapshot shows (SocketServer.swift serves them).

/// Settings of the Unix socket server. Sizes are in events or bytes, times in seconds.
public struct SocketServerConfiguration: Sendable, Hashable {
    /// Events queued for one client that cannot keep up; beyond this its OLDEST events are dropped and it
    /// is told with an `overflow` line.
    public var clientQueueLimit: Int
    /// A client whose socket stays unwritable this long while events are being dropped is disconnected.
    public var clientStallTimeout: Double
    /// Longest command line a client may send (bytes); longer lines get an `error` line and are discarded.
    public var maxCommandBytes: Int
    /// Kernel send buffer per client connection (`SO_SNDBUF`), nil for the system default.
    public var clientSendBufferBytes: Int?
    /// At shutdown, how long clients get to receive what is queued for them.
    public var drainTimeout: Double
    /// Connections the kernel queues for the listening socket before `accept` (`listen` backlog; the
    /// kernel caps it at `net.core.somaxconn`).
    public var listenBacklog: Int32
    /// While accepting fails for lack of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), the
    /// acceptor is paused; it tries again when a client leaves, and at the latest after this many seconds.
    public var acceptRetryInterval: Double

    public init(
        clientQueueLimit: Int = 1024, clientStallTimeout: Double = 10, maxCommandBytes: Int = 4096,
        clientSendBufferBytes: Int? = nil, drainTimeout: Double = 2, listenBacklog: Int32 = 1024,
        acceptRetryInterval: Double = 1
    ) {
        self.clientQueueLimit = clientQueueLimit
        self.clientStallTimeout = clientStallTimeout
        self.maxCommandBytes = maxCommandBytes
        self.clientSendBufferBytes = clientSendBufferBytes
        self.drainTimeout = drainTimeout
        self.listenBacklog = listenBacklog
        self.acceptRetryInterval = acceptRetryInterval
    }
}

/// What the banner announces to each client (`{"event":"hello",...}`).
public struct ServerBanner: Sendable, Hashable {
    /// scand's version.
    public var version: String
    /// Enabled metadata object types (`metadataObjectTypes`).
    public var types: [MetadataObjectType]
    public init(version: String, types: [MetadataObjectType]) {
        self.version = version
        self.types = types
    }
}

/// A client's filter: nil fields mean "everything".
public struct Subscription: Sendable, Hashable {
    public static let eventNames: Set<String> = ["metadata", "appeared", "lost", "device", "configuration"]
    public var types: Set<MetadataObjectType>?
    public var events: Set<String>?
    /// `scand run` with several cameras: only these cameras' events (and the process's own, which name no
    /// camera: an output that failed, a reload).
    public var cameras: Set<String>?
    public init(types: Set<MetadataObjectType>? = nil, events: Set<String>? = nil, cameras: Set<String>? = nil) {
        self.types = types
        self.events = events
        self.cameras = cameras
    }

    /// True when `event` should go to a client with this subscription. A `types` filter passes events
    /// that concern at least one of the types (a `metadata` event is passed whole, with all its objects);
    /// `device` events concern no type and pass any `types` filter. A `cameras` filter passes the events of
    /// those cameras and the events that name no camera.
    public func matches(_ event: EncodedEvent) -> Bool {
        if let events, !events.contains(event.name) { return false }
        if let types, event.name != "device", types.isDisjoint(with: event.objectTypes) { return false }
        if let cameras, let camera = event.camera, !cameras.contains(camera) { return false }
        return true
    }

    /// True when a snapshot line of `camera`'s should go to a client with this subscription.
    public func matches(camera: String?) -> Bool {
        guard let cameras, let camera else { return true }
        return cameras.contains(camera)
    }

    /// Parses one command line: `{"subscribe":{"types":[...],"events":[...],"cameras":[...]}}`.
    /// - Throws: a message for the client's `error` line.
    public static func parse(command line: [UInt8]) throws(CommandError) -> Subscription {
        struct Command: Decodable {
            struct Body: Decodable {
                var types: [String]?
                var events: [String]?
                var cameras: [String]?
            }
            var subscribe: Body?
        }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw CommandError("command is not UTF-8 text")
        }
        let command: Command
        do {
            command = try JSONDecoder().decode(Command.self, from: Data(text.utf8))
        } catch {
            throw CommandError(
                "malformed command (expected one JSON object per line, e.g. {\"subscribe\":{\"types\":[\"qr\"],\"events\":[\"appeared\",\"lost\"]}})"
            )
        }
        guard let body = command.subscribe else {
            throw CommandError("unknown command (known: \(ClientCommand.names.joined(separator: ", ")))")
        }
        var sub = Subscription()
        if let types = body.types {
            var set = Set<MetadataObjectType>()
            for name in types {
                guard let t = MetadataObjectType(rawValue: name) else {
                    throw CommandError("unknown type '\(name.prefix(64))' (see 'scand types')")
                }
                set.insert(t)
            }
            sub.types = set
        }
        if let events = body.events {
            for name in events where !eventNames.contains(name) {
                throw CommandError(
                    "unknown event '\(name.prefix(64))' (known: \(eventNames.sorted().joined(separator: ", ")))")
            }
            sub.events = Set(events)
        }
        if let cameras = body.cameras { sub.cameras = Set(cameras) }
        return sub
    }
}

/// One command line a socket client may send.
public enum ClientCommand: Sendable, Equatable {
    /// `{"subscribe":{"types":[...],"events":[...]}}`: filter what this client gets from now on.
    case subscribe(Subscription)
    /// `{"poll":{}}`: what is in view now, as `appeared` lines marked `"snapshot":true`, then a `polled` line.
    case poll
    /// `{"devices":{}}`: one `devices` line with the state of the source.
    case devices

    /// The command names, for error messages.
    public static let names = ["subscribe", "poll", "devices"]

    /// Parses one command line.
    /// - Throws: a message for the client's `error` line (the messages of ``Subscription/parse(command:)``).
    public static func parse(command line: [UInt8]) throws(CommandError) -> ClientCommand {
        struct Empty: Decodable {}
        struct Other: Decodable {
            var poll: Empty?
            var devices: Empty?
        }
        if let text = String(validating: line, as: UTF8.self),
            let other = try? JSONDecoder().decode(Other.self, from: Data(text.utf8)),
            other.poll != nil || other.devices != nil
        {
            guard (other.poll != nil) != (other.devices != nil), !text.contains("\"subscribe\"") else {
                throw CommandError("one command per line (known: \(names.joined(separator: ", ")))")
            }
            return other.poll != nil ? .poll : .devices
        }
        return .subscribe(try Subscription.parse(command: line))
    }
}

/// What is present (in view) now: the answer to a client that connects, and to `poll`.
public struct PresenceSnapshot: Sendable {
    /// The `seq` of the last event published when the snapshot was taken: the snapshot reflects every event
    /// up to and including it.
    public var seq: UInt64
    /// The `appeared` event of each code value and face present now, oldest first.
    public var present: [PresenceEvent]
    public init(seq: UInt64 = 0, present: [PresenceEvent] = []) {
        self.seq = seq
        self.present = present
    }
}

/// The state of one source (the answer to `devices`). Counts are frames since start.
public struct SourceState: Sendable, Equatable {
    /// The device path or file name (as in `device` events).
    public var device: String
    /// `scand run`: the camera's name.
    public var camera: String?
    /// The kind of the source's last `device` event (`started`, `stopped`, `runtimeError`, `disconnected`,
    /// …), or `starting` before the first one.
    public var state: String
    /// Live camera (true) or file/stdin replay (false).
    public var live: Bool
    public var framesRead: Int
    public var framesProcessed: Int
    public var framesDropped: Int
    public init(
        device: String, state: String, live: Bool, framesRead: Int, framesProcessed: Int, framesDropped: Int,
        camera: String? = nil
    ) {
        self.camera = camera
        self.device = device
        self.state = state
        self.live = live
        self.framesRead = framesRead
        self.framesProcessed = framesProcessed
        self.framesDropped = framesDropped
    }
}

/// Answers the server's snapshot questions (the daemon). Called on the server's event loop: must return at
/// once and never call back into the server.
public protocol ServerStateProvider: AnyObject, Sendable {
    func presenceSnapshot() -> PresenceSnapshot
    func sourceStates() -> [SourceState]
}

/// A snapshot line: a presence event as encoded in the stream, without `seq`, with `"snapshot":true`.
struct SnapshotLine: Encodable {
    var event = "appeared", camera: String?, type: String
    var value: String?, bytes: String?, faceID: Int?, trackID: Int?
    var sequenceSize: Int?, sequenceIndex: Int?
    var source: String, frame: Int, time: Double
    var bounds: RectLine?
    var charset: String?, charsetSource: String?, gs1: Bool?
    var gs1Elements: [GS1ElementLine]?, gs1Valid: Bool?, gs1Error: String?
    var snapshot = true
    var timestamp: Double
    init(_ p: PresenceEvent, timestamp: Double) {
        camera = p.camera
        type = p.type.rawValue
        value = p.value
        bytes = p.payload.map(base64)
        faceID = p.faceID
        trackID = p.trackID
        sequenceSize = p.sequence?.size
        sequenceIndex = p.sequence?.index
        source = p.source
        frame = p.frame
        time = r(p.time, 6)
        bounds = p.bounds.map(RectLine.init)
        charset = p.textEncoding?.charset
        charsetSource = p.textEncoding?.source.rawValue
        gs1 = p.isGS1 ? true : nil
        (gs1Elements, gs1Valid, gs1Error) = gs1Keys(p.payload, isGS1: p.isGS1)
        self.timestamp = r(timestamp, 6)
    }
}

/// A rejected client command.
public struct CommandError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
