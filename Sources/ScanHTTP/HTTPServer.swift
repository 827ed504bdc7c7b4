import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
public import Logging
import NIOCore
import ScanCapture
import ScanCore
public import ScanKit
import ScanOutput
public import ServiceLifecycle

/// The HTTP server inside the daemon (Hummingbird), a `Service` of the daemon's group. Endpoints:
/// `GET /` the live page, `GET /stream.mjpg`, `GET /snapshot.jpg[?annotate=1]`, `GET /state`,
/// `GET /metrics`, WebSocket `GET /events`, `POST /rect-of-interest` (token option only); per camera
/// (issue 49) `GET /cameras/NAME/` (its page), `…/stream.mjpg`, `…/snapshot.jpg`, `…/state` and
/// `POST …/rect-of-interest`. The camera-less routes serve the first camera.
public final class HTTPServer: Service, Sendable {
    public let configuration: HTTPConfiguration
    /// Every camera's preview.
    public let previews: PreviewSet
    public let events: EventHub
    public let metrics: ScandMetrics
    let hooks: HTTPDaemonHooks
    let logger: Logger
    /// When the server was made, for `uptime`.
    let started = MonotonicInstant.now
    /// Called with the bound port once listening.
    let onListening: @Sendable (Int) -> Void

    public init(
        configuration: HTTPConfiguration, previews: PreviewSet, events: EventHub, metrics: ScandMetrics,
        hooks: HTTPDaemonHooks, logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.previews = previews
        self.events = events
        self.metrics = metrics
        self.hooks = hooks
        self.logger = logger
        self.onListening = onListening
    }

    /// Cameras whose frames are to be pumped into their previews: the hooks' at start, then those
    /// ``attach(camera:output:)`` adds.
    private let attachments = AsyncStream.makeStream(of: (frames: PreviewFrames, output: VideoDataOutput).self)

    /// Camera `camera` started (a reload added it): its frames feed its own preview from now on.
    public func attach(camera: String, output: VideoDataOutput) {
        attachments.continuation.yield((previews.attach(camera), output))
    }

    /// Camera `camera` was removed (a reload): its preview goes, and its viewers' streams end.
    public func detach(camera: String) { previews.detach(camera) }

    /// Serves until graceful shutdown (or cancellation). Viewers' streams and WebSockets end first
    /// (``PreviewSet/close()``, ``EventHub/finish()``), so shutdown does not wait on them.
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
        for (camera, output) in hooks.videoOutputs() { attach(camera: camera, output: output) }
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [attachments] in
                    await withTaskGroup(of: Void.self) { pumps in
                        for await (frames, output) in attachments.stream {
                            // One subscription per camera for every viewer: the newest frame, handed to the
                            // camera's PreviewFrames (no copy, no encoding here; viewers encode once per
                            // frame, only while someone watches).
                            pumps.addTask {
                                for await f in output.frames(bufferingNewest: 1) {
                                    frames.offer(f.frame, event: f.metadata)
                                }
                            }
                        }
                        pumps.cancelAll()
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
                attachments.continuation.finish()
                group.cancelAll()
            }
        } onGracefulShutdown: { [previews, events, attachments] in
            attachments.continuation.finish()
            previews.close()
            events.finish()
        }
    }

    // MARK: routes

    func addRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.get("/") { [self] _, _ -> Response in pageResponse() }
        router.get("/metrics") { [self] _, _ -> Response in
            metrics.socketClients.record(hooks.socketClients())
            metrics.webSocketClients.record(events.clientCount)
            metrics.recordScrape(socketOverflows: hooks.socketOverflows(), broker: hooks.broker())
            for source in hooks.state().1 {
                metrics.recordDevice(camera: source.camera ?? "default", state: source.state)
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        router.get("/state") { [self] _, _ -> Response in
            json(stateDocument())
        }
        router.get("/snapshot.jpg") { [self] request, _ -> Response in
            try snapshot(request: request, frames: previews.first.frames)
        }
        router.get("/stream.mjpg") { [self] _, _ -> Response in
            stream(previews.first.frames)
        }
        router.post("/rect-of-interest") { [self] request, context -> Response in
            try await setRectOfInterest(request: request, context: context, camera: previews.first.name)
        }
        addCameraRoutes(router)
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

    /// The live page (``PreviewPage``): `/`, and each camera's `/cameras/NAME/`.
    func pageResponse() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: PreviewPage.html)))
    }

    /// `GET …/snapshot.jpg[?annotate=1]`: the newest frame of `frames` as one JPEG (503 before the first).
    func snapshot(request: Request, frames: PreviewFrames) throws -> Response {
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

    /// `GET …/stream.mjpg`: the MJPEG stream of `frames`, until the viewer goes or the server stops.
    func stream(_ frames: PreviewFrames) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "multipart/x-mixed-replace; boundary=\(Self.boundary)"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { [self] writer in
                try await streamFrames(of: frames, to: &writer)
                try await writer.finish(nil)
            })
    }

    /// Newest frame wins: after each part is written the viewer gets the newest frame, skipping what it
    /// was too slow for. Each part carries the frame number, its capture time (wall clock, seconds) and
    /// its objects (base64 JSON, device coordinates), so the page draws the outlines of the very frame shown.
    func streamFrames(of frames: PreviewFrames, to writer: inout any ResponseBodyWriter) async throws {
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
        wallClockSeconds() - (frame.frame.captureClock ?? frame.offeredAt).elapsed.inSeconds
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
    func setRectOfInterest(request: Request, context: BasicWebSocketRequestContext, camera: String) async throws
        -> Response
    {
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
        guard let frames = previews.frames(of: camera) else { return text(.notFound, "no camera \(camera)\n") }
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
        do { try set(device, camera) } catch { return text(.unprocessableContent, "\(error)\n") }
        return json(["rectOfInterest": ["x": device.x, "y": device.y, "width": device.width, "height": device.height]])
    }

    // MARK: /state

    /// `/state` (`camera` nil: the first camera's source, frame and objects, with every camera listed), or
    /// `/cameras/NAME/state` (that camera's alone, `present` only what it sees).
    func stateDocument(camera: String? = nil) -> [String: Any] {
        let (snapshot, every) = hooks.state()
        var doc: [String: Any] = [:]
        let name = camera ?? previews.first.name
        let sources = camera.map { camera in every.filter { $0.camera == camera } } ?? every
        let source = every.first { $0.camera == name } ?? sources.first
        let frames = previews.frames(of: name)
        doc["camera"] = name
        // Never `null` (the JSON contract): a value that is not there is absent.
        if let device = source?.device { doc["device"] = device }
        doc["state"] = source?.state ?? "starting"
        doc["live"] = source?.live ?? false
        doc["uptime"] = (started.elapsed.inSeconds * 1000).rounded() / 1000
        doc["frames"] = [
            "captured": source?.framesRead ?? 0, "processed": source?.framesProcessed ?? 0,
            "dropped": source?.framesDropped ?? 0,
        ]
        if let latest = frames?.latest {
            doc["format"] = ["width": latest.event.width, "height": latest.event.height, "pixelFormat": "GREY"]
            doc["frame"] = latest.event.frame
            doc["objects"] =
                (try? JSONSerialization.jsonObject(with: Data(ObjectsJSON.encode(latest.event.objects)))) ?? []
        } else {
            doc["objects"] = [Any]()
        }
        // Every camera's source (one for --input/--device), as the socket's `devices` reply lists them.
        doc["cameras"] = sources.map { source -> [String: Any] in
            var camera: [String: Any] = [
                "device": source.device, "state": source.state, "live": source.live,
                "frames": [
                    "captured": source.framesRead, "processed": source.framesProcessed,
                    "dropped": source.framesDropped,
                ],
            ]
            if let name = source.camera { camera["name"] = name }
            return camera
        }
        doc["present"] = ClientLines.snapshot(snapshot, cameras: camera.map { [$0] }).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0))
        }
        doc["lastSeq"] = snapshot.seq
        doc["clients"] = [
            "socket": hooks.socketClients(), "websocket": events.clientCount,
            "stream": streamViewerCount.value,
        ]
        doc["preview"] = [
            "videoGravity": configuration.videoGravity.rawValue, "orientation": configuration.orientation.rawValue,
            "mirrored": configuration.isMirrored,
            "jpegEncodes": camera == nil ? previews.encodeCount : frames?.encodeCount ?? 0,
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
