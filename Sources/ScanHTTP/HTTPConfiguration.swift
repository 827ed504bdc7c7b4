import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ScanCapture
public import ScanCore
public import ScanKit
public import ScanOutput
import ServiceLifecycle

/// `scand run --http HOST:PORT`: where the server listens and who may use it.
public struct HTTPConfiguration: Sendable {
    /// Host name or address to bind (the docs recommend loopback, `127.0.0.1`).
    public var host: String
    /// TCP port; 0 picks a free one (logged as `http listening` with the port).
    public var port: Int
    /// When set, every request but the page shell `GET /` needs `Authorization: Bearer TOKEN` (the WebSocket
    /// may carry it as the subprotocol `scand-token.TOKEN` instead, since browsers cannot set headers
    /// there), and the page may set the rect of interest.
    public var token: String?
    /// How the page fits the picture into the window unless its URL says otherwise (`--video-gravity`,
    /// `--orientation`, `--mirrored`).
    public var videoGravity: VideoGravity
    public var orientation: VideoOrientation
    public var isMirrored: Bool
    /// Per-client event queue bound for `/events` (as the Unix socket's `clientQueue`).
    public var clientQueueLimit: Int

    public init(
        host: String = "127.0.0.1", port: Int = 8080, token: String? = nil,
        videoGravity: VideoGravity = .resizeAspect, orientation: VideoOrientation = .landscapeRight,
        isMirrored: Bool = false, clientQueueLimit: Int = 1024
    ) {
        self.host = host
        self.port = port
        self.token = token
        self.videoGravity = videoGravity
        self.orientation = orientation
        self.isMirrored = isMirrored
        self.clientQueueLimit = clientQueueLimit
    }

    /// Parses `HOST:PORT` (`[::1]:8080` for IPv6).
    public static func parseAddress(_ text: String) throws -> (host: String, port: Int) {
        var host: Substring
        var portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else {
                throw ScanError.invalidArgument("--http: expected [HOST]:PORT, got '\(text)'")
            }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ScanError.invalidArgument("--http: expected HOST:PORT, got '\(text)'")
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (0...65535).contains(port) else {
            throw ScanError.invalidArgument("--http: expected HOST:PORT with a port 0...65535, got '\(text)'")
        }
        return (String(host), port)
    }

    /// Reads a bearer token from `path`: one line of 16…512 characters from `A-Z a-z 0-9 - . _ ~` (so it can
    /// travel in a header, a URL fragment and a WebSocket subprotocol unchanged). Surrounding whitespace is
    /// ignored. The token is never taken from the command line.
    public static func readToken(path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ScanError.unreadableInput(input: path, reason: "cannot read the token file")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        guard (16...512).contains(token.count), token.allSatisfy(allowed.contains) else {
            throw ScanError.invalidArgument(
                "\(path): the token must be one line of 16 to 512 characters from A-Z a-z 0-9 - . _ ~ (e.g. `openssl rand -hex 32`)"
            )
        }
        return token
    }
}

/// What the server asks the daemon. Every closure returns at once.
public struct HTTPDaemonHooks: Sendable {
    /// What is present now and the source's state (the daemon, as for the Unix socket).
    public var state: @Sendable () -> (PresenceSnapshot, [SourceState])
    /// Connected Unix-socket clients.
    public var socketClients: @Sendable () -> Int
    /// Each camera's frame output (`AVCaptureVideoDataOutput`), by camera name, in order: the server
    /// subscribes while it runs and keeps each camera's newest frame in its ``PreviewFrames``. Cameras
    /// started later are added with ``HTTPServer/attach(camera:output:)``.
    public var videoOutputs: @Sendable () -> [(camera: String, output: VideoDataOutput)]
    /// Sets camera `camera`'s rect of interest (normalized device coordinates); throws when it cannot be
    /// applied. nil: the page cannot change it.
    public var setRectOfInterest: (@Sendable (NormalizedRect, _ camera: String) throws -> Void)?
    /// Events dropped for slow Unix-socket clients since start (summed over clients).
    public var socketOverflows: @Sendable () -> Int
    /// The MQTT sink's connection and outbox, nil when scand runs without `--mqtt`.
    public var broker: @Sendable () -> BrokerState?

    public init(
        state: @escaping @Sendable () -> (PresenceSnapshot, [SourceState]),
        socketClients: @escaping @Sendable () -> Int = { 0 },
        videoOutputs: @escaping @Sendable () -> [(camera: String, output: VideoDataOutput)] = { [] },
        setRectOfInterest: (@Sendable (NormalizedRect, _ camera: String) throws -> Void)? = nil,
        socketOverflows: @escaping @Sendable () -> Int = { 0 },
        broker: @escaping @Sendable () -> BrokerState? = { nil }
    ) {
        self.state = state
        self.socketClients = socketClients
        self.videoOutputs = videoOutputs
        self.setRectOfInterest = setRectOfInterest
        self.socketOverflows = socketOverflows
        self.broker = broker
    }
}

/// An event broker sink's state as `/state` and `/metrics` show it (the MQTT client; this module does not
/// depend on it). Counts are since start.
public struct BrokerState: Sendable, Equatable {
    /// The broker, e.g. `mqtt://broker.lan:1883` (no credentials).
    public var broker: String
    public var connected: Bool
    /// Successful connections (1 after the first; more after reconnects).
    public var connections: Int
    /// The last connection failure or loss, nil when none yet.
    public var lastError: String?
    /// Messages waiting in the outbox (queued and in flight), and their bytes.
    public var queuedMessages: Int
    public var queuedBytes: Int
    /// Event messages dropped because the outbox was full.
    public var droppedMessages: Int
    /// Messages the broker acknowledged.
    public var acknowledgedMessages: Int

    public init(
        broker: String, connected: Bool, connections: Int, lastError: String?, queuedMessages: Int,
        queuedBytes: Int, droppedMessages: Int, acknowledgedMessages: Int
    ) {
        self.broker = broker
        self.connected = connected
        self.connections = connections
        self.lastError = lastError
        self.queuedMessages = queuedMessages
        self.queuedBytes = queuedBytes
        self.droppedMessages = droppedMessages
        self.acknowledgedMessages = acknowledgedMessages
    }
}
