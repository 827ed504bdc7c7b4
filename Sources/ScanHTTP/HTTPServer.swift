import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
public import Logging
import NIOCore
import ScanCapture
public import ScanCore
public import ScanKit
public import ScanOutput
public import ServiceLifecycle

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
    /// The daemon's frame output (`AVCaptureVideoDataOutput`): the server subscribes while it runs and keeps
    /// the newest frame in ``PreviewFrames``.
    public var videoOutput: @Sendable () -> VideoDataOutput?
    /// Sets the rect of interest (normalized device coordinates); throws when it cannot be applied.
    /// nil: the page cannot change it.
    public var setRectOfInterest: (@Sendable (NormalizedRect) throws -> Void)?
    /// Events dropped for slow Unix-socket clients since start (summed over clients).
    public var socketOverflows: @Sendable () -> Int
    /// The MQTT sink's connection and outbox, nil when scand runs without `--mqtt`.
    public var broker: @Sendable () -> BrokerState?

    public init(
        state: @escaping @Sendable () -> (PresenceSnapshot, [SourceState]),
        socketClients: @escaping @Sendable () -> Int = { 0 },
        videoOutput: @escaping @Sendable () -> VideoDataOutput? = { nil },
        setRectOfInterest: (@Sendable (NormalizedRect) throws -> Void)? = nil,
        socketOverflows: @escaping @Sendable () -> Int = { 0 },
        broker: @escaping @Sendable () -> BrokerState? = { nil }
    ) {
        self.state = state
        self.socketClients = socketClients
        self.videoOutput = videoOutput
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

/// The HTTP server inside the daemon (Hummingbird), a `Service` of the daemon's group. Endpoints:
/// `GET /` the live page, `GET /stream.mjpg`, `GET /snapshot.jpg[?annotate=1]`, `GET /state`,
/// `GET /metrics`, WebSocket `GET /events`, `POST /rect-of-interest` (token option only).
public final class HTTPServer: Service, Sendable {
    public let configuration: HTTPConfiguration
    public let frames: PreviewFrames
    public let events: EventHub
    public let metrics: ScandMetrics
    let hooks: HTTPDaemonHooks
    let logger: Logger
    let started = Date()
    /// Called with the bound port once listening.
    let onListening: @Sendable (Int) -> Void

    public init(
        configuration: HTTPConfiguration, frames: PreviewFrames, events: EventHub, metrics: ScandMetrics,
        hooks: HTTPDaemonHooks, logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.frames = frames
        self.events = events
        self.metrics = metrics
        self.hooks = hooks
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until graceful shutdown (or cancellation). Viewers' streams and WebSockets end first
    /// (``PreviewFrames/close()``, ``EventHub/finish()``), so shutdown does not wait on them.
    public func run() async throws {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(BearerTokenMiddleware(token: configuration.token))
        addRoutes(router)
        let webSocketResponder = router.buildResponder()
        let refusals = HeadroomRefusals(logger: logger)
        let server = HTTPServerBuilder { responder in
            HeadroomGuardedChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: HTTP1WebSocketUpgradeChannel.Configuration(ws: .init(maxFrameSize: 1 << 16))),
                refusals: refusals)
        }
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { [onListening, logger] channel in
                let port = channel.localAddress?.port ?? 0
                logger.notice(
                    "http listening",
                    metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")", "port": "\(port)"])
                onListening(port)
            },
            logger: logger)
        let output = hooks.videoOutput()
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if let output {
                    // One subscription for every viewer: the newest frame, handed to PreviewFrames (no copy,
                    // no encoding here; viewers encode once per frame, only while someone watches).
                    group.addTask { [frames] in
                        for await f in output.frames(bufferingNewest: 1) { frames.offer(f.frame, event: f.metadata) }
                    }
                }
                // The server is the task's own work: the pump ends with it (and never ends it, even when
                // the pipeline stopped and closed the frame output).
                do {
                    try await app.run()
                } catch {
                    // Name the address: "bind(...): Address already in use" alone does not say which.
                    throw ScanError.output("--http \(configuration.host):\(configuration.port): \(error)")
                }
                group.cancelAll()
            }
        } onGracefulShutdown: { [frames, events] in
            frames.close()
            events.finish()
        }
    }

    // MARK: routes

    func addRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        let page = PreviewPage.html
        router.get("/") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
        }
        router.get("/metrics") { [self] _, _ -> Response in
            metrics.socketClients.record(hooks.socketClients())
            metrics.webSocketClients.record(events.clientCount)
            metrics.recordScrape(socketOverflows: hooks.socketOverflows(), broker: hooks.broker())
            metrics.recordDevice(state: hooks.state().1.first?.state)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        router.get("/state") { [self] _, _ -> Response in
            json(stateDocument())
        }
        router.get("/snapshot.jpg") { [self] request, _ -> Response in
            guard let frame = frames.latest else {
                return Response(
                    status: .serviceUnavailable, headers: [.contentType: "text/plain", .retryAfter: "1"],
                    body: .init(byteBuffer: ByteBuffer(string: "no frame yet\n")))
            }
            let annotate = request.uri.queryParameters.get("annotate").map { $0 == "1" || $0 == "true" } ?? false
            let jpeg: [UInt8]
            if annotate {
                jpeg = try JPEGEncoder.encode(Annotator.annotate(frame.frame.luma, objects: frame.event.objects))
                metrics.jpegEncodes.increment()
            } else {
                jpeg = try frames.jpeg(of: frame)  // counted by the frames' onEncode
            }
            var headers = HTTPFields()
            headers[.contentType] = "image/jpeg"
            headers[.cacheControl] = "no-store"
            headers[HTTPField.Name("X-Scand-Frame")!] = "\(frame.event.frame)"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        }
        router.get("/stream.mjpg") { [self] _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "multipart/x-mixed-replace; boundary=\(Self.boundary)"
            headers[.cacheControl] = "no-store"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { [self] writer in
                    try await streamFrames(to: &writer)
                    try await writer.finish(nil)
                })
        }
        router.post("/rect-of-interest") { [self] request, context -> Response in
            try await setRectOfInterest(request: request, context: context)
        }
        router.ws("/events") { request, _ -> RouterShouldUpgrade in
            var headers = HTTPFields()
            if let offered = request.headers[.secWebSocketProtocol],
                let chosen = offered.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
                    .first(where: { $0.hasPrefix(BearerTokenMiddleware.subprotocolPrefix) })
            {
                headers[.secWebSocketProtocol] = chosen
            }
            return .upgrade(headers)
        } onUpgrade: { [self] inbound, outbound, _ in
            try await serveEvents(inbound: inbound, outbound: outbound)
        }
    }

    static let boundary = "scandframe"

    /// Newest frame wins: after each part is written the viewer gets the newest frame, skipping what it
    /// was too slow for. Each part carries the frame number, its capture time (wall clock, seconds) and
    /// its objects (base64 JSON, device coordinates), so the page draws the outlines of the very frame shown.
    func streamFrames(to writer: inout any ResponseBodyWriter) async throws {
        let viewers = streamViewerCount.add(1)
        metrics.streamViewers.record(viewers)
        defer { metrics.streamViewers.record(streamViewerCount.add(-1)) }
        var generation: UInt64 = 0
        let build: @Sendable (PreviewFrame, [UInt8]) -> [UInt8] = { [self] frame, jpeg in
            let objects = Data(ObjectsJSON.encode(frame.event.objects)).base64EncodedString()
            let captured = wallClockOfCapture(frame)
            var head = "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n"
            head +=
                "X-Scand-Frame: \(frame.event.frame)\r\nX-Scand-Size: \(frame.event.width)x\(frame.event.height)\r\n"
            head += "X-Scand-Timestamp: \(String(format: "%.6f", captured))\r\nX-Scand-Objects: \(objects)\r\n\r\n"
            return Array(head.utf8) + jpeg + Array("\r\n".utf8)
        }
        while let part = await frames.nextPart(after: generation, build: build) {
            generation = part.generation
            try await writer.write(ByteBuffer(bytes: part.bytes))
        }
    }

    private let streamViewerCount = AtomicCount()

    /// Wall-clock seconds when `frame` was captured (its monotonic capture clock moved to the wall clock),
    /// or when it was offered when the source gave no capture time.
    func wallClockOfCapture(_ frame: PreviewFrame) -> Double {
        let now = Date().timeIntervalSince1970
        let mono = monotonicSeconds()
        return now - (mono - (frame.frame.captureClock ?? frame.offeredAt))
    }

    /// One WebSocket client: the same lines as the Unix socket (one JSON line per text message, without
    /// the newline) and the same commands, one per text message.
    func serveEvents(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        guard let client = events.connect() else { return }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while let lines = await client.next() {
                    for line in lines {
                        var text = line
                        if text.last == 0x0A { text.removeLast() }
                        try await outbound.write(.text(String(decoding: text, as: UTF8.self)))
                    }
                }
            }
            group.addTask { [events] in
                defer { events.disconnect(client) }
                for try await message in inbound.messages(maxSize: 4096) {
                    if case .text(let text) = message {
                        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                            events.handle(command: Array(line.utf8), from: client)
                        }
                    }
                }
            }
            defer { events.disconnect(client) }
            try await group.next()
            group.cancelAll()
        }
    }

    struct RectRequest: Decodable {
        struct Rect: Decodable { var x: Double, y: Double, width: Double, height: Double }
        struct Size: Decodable { var width: Double, height: Double }
        var rect: Rect
        var viewSize: Size
        var videoGravity: VideoGravity?
        var orientation: VideoOrientation?
        var mirrored: Bool?
    }

    /// `POST /rect-of-interest` `{"rect":{x,y,width,height},"viewSize":{width,height},"videoGravity":…,
    /// "orientation":…,"mirrored":…}` (view points of the page's window): converted with
    /// ``PreviewGeometry/deviceRect(fromViewRect:)`` for the current frame size, intersected with the frame.
    func setRectOfInterest(request: Request, context: BasicWebSocketRequestContext) async throws -> Response {
        guard configuration.token != nil, let set = hooks.setRectOfInterest else {
            return text(.forbidden, "setting the rect of interest from the page needs scand run --http-token FILE\n")
        }
        let body = try await request.body.collect(upTo: 16 * 1024)
        guard let r = try? JSONDecoder().decode(RectRequest.self, from: Data(body.readableBytesView)) else {
            return text(
                .badRequest,
                "expected {\"rect\":{\"x\":…,\"y\":…,\"width\":…,\"height\":…},\"viewSize\":{\"width\":…,\"height\":…}}\n"
            )
        }
        guard let frame = frames.latest else { return text(.serviceUnavailable, "no frame yet\n") }
        let values = [r.rect.x, r.rect.y, r.rect.width, r.rect.height, r.viewSize.width, r.viewSize.height]
        guard values.allSatisfy(\.isFinite), r.viewSize.width > 0, r.viewSize.height > 0 else {
            return text(.badRequest, "rect and view size must be finite, the view size positive\n")
        }
        let geometry = PreviewGeometry(
            viewSize: ViewSize(width: r.viewSize.width, height: r.viewSize.height),
            videoGravity: r.videoGravity ?? configuration.videoGravity,
            orientation: r.orientation ?? configuration.orientation,
            isMirrored: r.mirrored ?? configuration.isMirrored,
            frameSize: frame.frame.size)
        let view = ViewRect(x: r.rect.x, y: r.rect.y, width: r.rect.width, height: r.rect.height)
        let device = geometry.deviceRect(fromViewRect: view).intersection(.unit)
        guard !device.isEmpty else {
            return text(.unprocessableContent, "the rectangle shows no part of the picture\n")
        }
        do { try set(device) } catch { return text(.unprocessableContent, "\(error)\n") }
        return json(["rectOfInterest": ["x": device.x, "y": device.y, "width": device.width, "height": device.height]])
    }

    // MARK: /state

    func stateDocument() -> [String: Any] {
        let (snapshot, sources) = hooks.state()
        var doc: [String: Any] = [:]
        let source = sources.first
        // Never `null` (the JSON contract): a value that is not there is absent.
        if let device = source?.device { doc["device"] = device }
        doc["state"] = source?.state ?? "starting"
        doc["live"] = source?.live ?? false
        doc["uptime"] = (Date().timeIntervalSince(started) * 1000).rounded() / 1000
        doc["frames"] = [
            "captured": source?.framesRead ?? 0, "processed": source?.framesProcessed ?? 0,
            "dropped": source?.framesDropped ?? 0,
        ]
        if let latest = frames.latest {
            doc["format"] = ["width": latest.event.width, "height": latest.event.height, "pixelFormat": "GREY"]
            doc["frame"] = latest.event.frame
            doc["objects"] =
                (try? JSONSerialization.jsonObject(with: Data(ObjectsJSON.encode(latest.event.objects)))) ?? []
        } else {
            doc["objects"] = [Any]()
        }
        doc["present"] = ClientLines.snapshot(snapshot).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) }
        doc["lastSeq"] = snapshot.seq
        doc["clients"] = [
            "socket": hooks.socketClients(), "websocket": events.clientCount,
            "stream": streamViewerCount.value,
        ]
        doc["preview"] = [
            "videoGravity": configuration.videoGravity.rawValue, "orientation": configuration.orientation.rawValue,
            "mirrored": configuration.isMirrored, "jpegEncodes": frames.encodeCount,
        ]
        doc["rectOfInterestEditable"] = configuration.token != nil && hooks.setRectOfInterest != nil
        doc["overflows"] = ["socket": hooks.socketOverflows(), "websocket": events.droppedEvents]
        if let b = hooks.broker() {
            var mqtt: [String: Any] = [
                "broker": b.broker, "connected": b.connected, "connections": b.connections,
                "queuedMessages": b.queuedMessages, "queuedBytes": b.queuedBytes,
                "droppedMessages": b.droppedMessages, "acknowledgedMessages": b.acknowledgedMessages,
            ]
            if let e = b.lastError { mqtt["lastError"] = e }
            doc["mqtt"] = mqtt
        }
        return doc
    }

    func json(_ object: Any) -> Response {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        var buffer = ByteBuffer(bytes: data)
        buffer.writeString("\n")
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }

    func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: message)))
    }
}

/// The objects of a frame as the page and `/state` read them: the same fields as in `metadata` events.
enum ObjectsJSON {
    static func encode(_ objects: [MetadataObject]) -> [UInt8] {
        // One metadata event's `objects` array, taken from the stream's own encoder.
        let event = MetadataEvent(source: "", frame: 0, time: 0, width: 1, height: 1, objects: objects)
        let line = JSONLinesEncoder().encode(.metadata(event), seq: nil, timestamp: nil).line
        guard let doc = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
            let list = doc["objects"],
            let data = try? JSONSerialization.data(withJSONObject: list, options: [.withoutEscapingSlashes])
        else { return Array("[]".utf8) }
        return Array(data)
    }
}

/// A counter shared by request tasks.
final class AtomicCount: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `count` is touched only under `lock`.
    private let lock = Lock()
    private var count = 0
    func add(_ n: Int) -> Int {
        lock.withLock {
            count += n
            return count
        }
    }
    var value: Int { lock.withLock { count } }
}

/// Refuses every request without the bearer token (401), except the page shell `GET /`, which holds no
/// data: the page reads the token from its URL fragment (`/#token=…`, never sent to the server) and sends
/// it with each request it makes. The WebSocket may carry it as the subprotocol `scand-token.TOKEN`.
struct BearerTokenMiddleware: RouterMiddleware {
    typealias Context = BasicWebSocketRequestContext
    static let subprotocolPrefix = "scand-token."
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let token else { return try await next(request, context) }
        if request.method == .get && request.uri.path == "/" { return try await next(request, context) }
        var presented: String?
        if let auth = request.headers[.authorization], auth.lowercased().hasPrefix("bearer ") {
            presented = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if let offered = request.headers[.secWebSocketProtocol] {
            presented = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix(Self.subprotocolPrefix) }.map {
                    String($0.dropFirst(Self.subprotocolPrefix.count))
                }
        }
        guard let presented, Self.constantTimeEqual(Array(presented.utf8), Array(token.utf8)) else {
            return Response(
                status: .unauthorized,
                headers: [.wwwAuthenticate: "Bearer realm=\"scand\"", .contentType: "text/plain"],
                body: .init(byteBuffer: ByteBuffer(string: "missing or wrong bearer token\n")))
        }
        return try await next(request, context)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) { diff |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0) }
        return diff == 0
    }
}

/// Hummingbird's HTTP/WebSocket child channel behind a descriptor check: a connection that leaves fewer than
/// ``DescriptorHeadroom/reserve`` descriptors free below the limit is closed before any byte is read, as the
/// socket server refuses one (the process keeps room for libdispatch, the broker and the spool).
struct HeadroomGuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let refusals: HeadroomRefusals

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let free = DescriptorHeadroom.free()
        guard free >= DescriptorHeadroom.reserve else {
            refusals.refused(free: free)
            return channel.close().flatMapThrowing { throw HeadroomRefused() }
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

struct HeadroomRefused: Error {}

/// Logs refused HTTP connections at most once a minute (a client retrying at the limit would flood the log).
final class HeadroomRefusals: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `throttle` is read and written only under `lock`.
    private let logger: Logger
    private let lock = Lock()
    private var throttle = ReportThrottle(interval: 60)
    init(logger: Logger) { self.logger = logger }

    func refused(free: Int) {
        if let count = lock.withLock({ throttle.record() }) {
            logger.warning(
                "http: refusing new connections: only \(free) descriptors left below the limit (\(DescriptorHeadroom.reserve) are kept free; logged at most once a minute)",
                metadata: ["refused": "\(count)"])
        }
    }
}
