import FoundationEssentials
public import Logging
import NIOCore
import NIOPosix
public import ScanCore

#if canImport(Glibc)
    import Glibc
#endif

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
    public init(types: Set<MetadataObjectType>? = nil, events: Set<String>? = nil) {
        self.types = types
        self.events = events
    }

    /// True when `event` should go to a client with this subscription. A `types` filter passes events
    /// that concern at least one of the types (a `metadata` event is passed whole, with all its objects);
    /// `device` events concern no type and pass any `types` filter.
    public func matches(_ event: EncodedEvent) -> Bool {
        if let events, !events.contains(event.name) { return false }
        if let types, event.name != "device", types.isDisjoint(with: event.objectTypes) { return false }
        return true
    }

    /// Parses one command line: `{"subscribe":{"types":[...],"events":[...]}}`.
    /// - Throws: a message for the client's `error` line.
    public static func parse(command line: [UInt8]) throws(CommandError) -> Subscription {
        struct Command: Decodable {
            struct Body: Decodable {
                var types: [String]?
                var events: [String]?
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
    /// The kind of the source's last `device` event (`started`, `stopped`, `runtimeError`, `disconnected`,
    /// …), or `starting` before the first one.
    public var state: String
    /// Live camera (true) or file/stdin replay (false).
    public var live: Bool
    public var framesRead: Int
    public var framesProcessed: Int
    public var framesDropped: Int
    public init(device: String, state: String, live: Bool, framesRead: Int, framesProcessed: Int, framesDropped: Int) {
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
    var event = "appeared", type: String
    var value: String?, bytes: String?, faceID: Int?
    var source: String, frame: Int, time: Double
    var bounds: RectLine?
    var charset: String?, charsetSource: String?, gs1: Bool?
    var snapshot = true
    var timestamp: Double
    init(_ p: PresenceEvent, timestamp: Double) {
        type = p.type.rawValue
        value = p.value
        bytes = p.payload.map(base64)
        faceID = p.faceID
        source = p.source
        frame = p.frame
        time = r(p.time, 6)
        bounds = p.bounds.map(RectLine.init)
        charset = p.textEncoding?.charset
        charsetSource = p.textEncoding?.source.rawValue
        gs1 = p.isGS1 ? true : nil
        self.timestamp = r(timestamp, 6)
    }
}

/// A rejected client command.
public struct CommandError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Delivers events to every client of a listening Unix socket (SwiftNIO, one event-loop thread).
///
/// Each client gets the `hello` banner, then every event its subscription passes. Each client has its
/// own bounded queue: ``deliver(_:)`` never blocks, a slow client loses its oldest events (and is told
/// with an `overflow` line), and a client stuck past ``SocketServerConfiguration/clientStallTimeout`` is
/// disconnected. Other clients and the pipeline are never slowed.
public final class SocketServer: EventSink, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `listeners` and the other fields marked below as under `lock`
    // are touched only under `lock`; the fields marked loop-confined only on `loop`; the rest is immutable.
    public let configuration: SocketServerConfiguration
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    /// The event loop every client handler runs on.
    var eventLoop: any EventLoop { loop }
    private let lock = Lock()
    private var listeners: [any Channel] = []
    // Loop-confined: touched only on `loop`.
    private var clients: [ObjectIdentifier: ClientHandler] = [:]
    private var acceptPauses: [AcceptPause] = []
    private var nextClientID = 1
    private var banner: ServerBanner
    /// What answers snapshots (on connect, `poll`) and `devices`; set at init (weak: the provider, the
    /// pipeline, publishes to this server).
    private weak var stateProvider: (any ServerStateProvider)?
    private var stopped = false
    private var finished = false

    /// - Parameter state: what answers snapshots (on connect, `poll`) and `devices`: the pipeline.
    public init(
        configuration: SocketServerConfiguration = SocketServerConfiguration(), banner: ServerBanner,
        state: any ServerStateProvider, logger: Logger
    ) {
        self.configuration = configuration
        self.banner = banner
        self.stateProvider = state
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.loop = group.next()
    }

    static func encodeBanner(_ banner: ServerBanner) -> [UInt8] { ClientLines.hello(banner) }

    /// Starts serving on an already listening descriptor (from ``UnixSocketListener`` or socket
    /// activation). The server owns it from now on and closes it at ``finish()``.
    ///
    /// The backlog is ``SocketServerConfiguration/listenBacklog``: `withBoundSocket` calls `listen(128)`
    /// when it wraps the descriptor, before any server channel option is applied (the `.backlog` option
    /// is only used by NIO's own `bind`), so the server channel initializer, which runs after that and
    /// before the channel is registered, calls `listen` again with the configured backlog.
    public func listen(fd: Int32) throws {
        let config = configuration
        var bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: config.listenBacklog)
            // One accept per read, so the descriptor check above runs before the next accept.
            .serverChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 8 * 1024, high: 32 * 1024))
        if let size = config.clientSendBufferBytes {
            bootstrap = bootstrap.childChannelOption(.socketOption(.so_sndbuf), value: SocketOptionValue(size))
        }
        let channel =
            try bootstrap
            .serverChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    if Glibc.listen(fd, config.listenBacklog) != 0 {
                        throw ScanError.output(
                            "listen(backlog \(config.listenBacklog)): \(String(cString: strerror(errno)))")
                    }
                    let pause = AcceptPause(retryInterval: config.acceptRetryInterval, logger: self.logger)
                    try channel.pipeline.syncOperations.addHandler(pause)
                    self.acceptPauses.append(pause)
                }
            }
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(self.makeClient(channel))
                }
            }
            .withBoundSocket(fd).wait()
        lock.withLock { listeners.append(channel) }
    }

    private func makeClient(_ channel: any Channel) -> ClientHandler {
        loop.preconditionInEventLoop()
        let id = nextClientID
        nextClientID += 1
        return ClientHandler(id: id, server: self, configuration: configuration, logger: logger)
    }

    // Loop-confined bookkeeping, called by handlers.
    fileprivate func added(_ client: ClientHandler) -> ByteBuffer? {
        if stopped { return nil }
        clients[ObjectIdentifier(client)] = client
        logger.info("client connected", metadata: ["client": "\(client.id)", "clients": "\(clients.count)"])
        return ByteBuffer(bytes: Self.encodeBanner(banner))
    }

    fileprivate func removed(_ client: ClientHandler, reason: String) {
        guard clients.removeValue(forKey: ObjectIdentifier(client)) != nil else { return }
        logger.info(
            "client disconnected",
            metadata: [
                "client": "\(client.id)", "reason": "\(reason)",
                "clients": "\(clients.count)",
            ])
        // A descriptor is being freed: a paused acceptor tries again (on the next loop turn, once the
        // connection's descriptor is closed).
        if acceptPauses.contains(where: \.isPaused) {
            loop.execute { for pause in self.acceptPauses { pause.retryNow() } }
        }
    }

    /// Events dropped since start for slow clients, summed over every client (each client got an `overflow`
    /// line saying how many of its own). For `/metrics`.
    public var droppedEvents: Int { lock.withLock { _droppedEvents } }
    private var _droppedEvents = 0  // under `lock`

    /// Counts one event dropped for a slow client (any thread).
    func countDropped() { lock.withLock { _droppedEvents += 1 } }

    /// Number of connected clients (for logs and tests; waits for the event loop).
    public var clientCount: Int {
        (try? loop.submit { self.clients.count }.wait()) ?? 0
    }

    /// Queues `event` for every client whose subscription passes it. Never blocks.
    public func deliver(_ event: EncodedEvent) {
        let buffer = ByteBuffer(bytes: event.line)
        loop.execute {
            for client in self.clients.values { client.enqueue(event, buffer) }
        }
    }

    /// The present objects now (empty once the provider is gone).
    fileprivate func snapshot() -> PresenceSnapshot {
        lock.withLock { stateProvider }?.presenceSnapshot() ?? PresenceSnapshot()
    }

    fileprivate func sourceStates() -> [SourceState] {
        lock.withLock { stateProvider }?.sourceStates() ?? []
    }

    /// Changes what new clients are told in the banner (after a configuration reload).
    public func updateBanner(_ banner: ServerBanner) {
        loop.execute { self.banner = banner }
    }

    /// Stops accepting, gives each client up to ``SocketServerConfiguration/drainTimeout`` to receive what
    /// is queued for it, closes every connection and the listening sockets, and stops the event loop.
    public func finish() {
        let (listeners, already) = lock.withLock { () -> ([any Channel], Bool) in
            let l = self.listeners
            self.listeners = []
            defer { finished = true }
            return (l, finished)
        }
        guard !already else { return }
        for l in listeners { try? l.close().wait() }
        let drained: EventLoopFuture<Void> = loop.flatSubmit {
            self.stopped = true
            let futures = self.clients.values.map { $0.drainAndClose(timeout: self.configuration.drainTimeout) }
            return EventLoopFuture.andAllComplete(futures, on: self.loop)
        }
        try? drained.wait()
        try? group.syncShutdownGracefully()
    }
}

/// Pauses a listening channel's acceptor while `accept` fails for lack of resources.
///
/// NIO keeps a listening channel readable after `accept4` fails with EMFILE/ENFILE/ENOBUFS/ENOMEM and does
/// not close it (the error is recoverable); with a pending connection and a level-triggered epoll, the loop
/// would retry at once, forever (~17,000 failed `accept4` a second, ~90 % CPU). NIO's `AcceptBackoffHandler`
/// does not help here: `ServerBootstrap.bind`/`withBoundSocket` do not install it, and it only delays
/// `read()` calls, which NIO does not issue while its failed read is still pending. So this handler turns
/// `autoRead` off (NIO stops polling the socket) and back on when a client leaves (``retryNow()``, called by
/// the server) or after `retryInterval` seconds (a descriptor may be freed elsewhere). It logs a warning
/// when accepting stops and a notice when it works again, at most once a minute each (a daemon at its limit
/// pauses again as soon as the next pending connection takes the freed descriptor), never a line per failure.
/// Loop-confined: every method runs on the listening channel's event loop.
private final class AcceptPause: ChannelInboundHandler, @unchecked Sendable {
    // Invariant for @unchecked Sendable: loop-confined, every mutable field is touched only on the
    // listening channel's event loop (NIO calls handlers there; the retry is scheduled there).
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let retryInterval: Double
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var retry: Scheduled<Void>?
    /// Accepting is switched off (autoRead false).
    private(set) var isPaused = false
    /// When the last warning was logged.
    private var lastWarning: NIODeadline?
    /// The last warning has not been followed by an "accepting again" notice yet.
    private var owesNotice = false
    /// Failed accepts since the last warning.
    private var failures = 0

    init(retryInterval: Double, logger: Logger) {
        self.retryInterval = retryInterval
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        retry?.cancel()
        retry = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        retry?.cancel()
        retry = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The connection is accepted (its descriptor open) but not registered yet. It is kept while it leaves
        // DescriptorHeadroom.reserve descriptors free; when it leaves exactly that many, accepting pauses after
        // it (the next clients wait in the listen backlog, as at EMFILE); one that leaves fewer (the limit was
        // lowered under us) is closed at once.
        let free = DescriptorHeadroom.free(atMost: DescriptorHeadroom.reserve + 1)
        let why = "only \(free) descriptors left below the limit (\(DescriptorHeadroom.reserve) are kept free)"
        if free < DescriptorHeadroom.reserve {
            unwrapInboundIn(data).close(promise: nil)
            refuse(why, context)
            return
        }
        if owesNotice {
            owesNotice = false
            logger.notice("accepting clients again", metadata: ["failedAccepts": "\(failures)"])
        }
        context.fireChannelRead(data)
        if free == DescriptorHeadroom.reserve { refuse(why, context, failed: false) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let io = error as? IOError, case let code = io.errnoCode,
            code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
        else {
            context.fireErrorCaught(error)
            return
        }
        refuse(String(cString: strerror(code)), context)
    }

    /// Logs (at most once a minute) and pauses accepting; `failed`: an accept failed or was refused (counted).
    private func refuse(_ why: String, _ context: ChannelHandlerContext, failed: Bool = true) {
        if failed { failures += 1 }
        let now = NIODeadline.now()
        if lastWarning.map({ now - $0 >= .seconds(60) }) ?? true {
            lastWarning = now
            owesNotice = true
            logger.warning(
                "cannot accept new clients: \(why); paused until a client leaves (retrying every \(retryInterval) s; logged at most once a minute)",
                metadata: ["failedAccepts": "\(failures)"])
            failures = 0
        }
        pause(context)
    }

    private func pause(_ context: ChannelHandlerContext) {
        if !isPaused {
            isPaused = true
            try? context.channel.syncOptions?.setOption(.autoRead, value: false)
        }
        scheduleRetry(context)
    }

    private func scheduleRetry(_ context: ChannelHandlerContext) {
        retry?.cancel()
        retry = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(retryInterval * 1e9))) { [self] in
            retry = nil
            retryNow()
        }
    }

    /// Turns accepting back on; if it fails again, the next error pauses it again (without a new log line).
    func retryNow() {
        guard isPaused, let context else { return }
        retry?.cancel()
        retry = nil
        // Not while the next client would take one of the reserved descriptors: it would only be closed.
        if DescriptorHeadroom.free(atMost: DescriptorHeadroom.reserve + 1) <= DescriptorHeadroom.reserve {
            scheduleRetry(context)
            return
        }
        isPaused = false
        try? context.channel.syncOptions?.setOption(.autoRead, value: true)
    }
}

/// One client connection. Loop-confined (all methods run on the server's event loop).
private final class ClientHandler: ChannelInboundHandler, @unchecked Sendable {
    // Invariant for @unchecked Sendable: loop-confined, every mutable field is touched only on the
    // server's event loop (deliveries from the pipeline are hopped onto it with `execute`).
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let id: Int
    private unowned let server: SocketServer
    private let configuration: SocketServerConfiguration
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var subscription = Subscription()
    /// Events numbered up to this were reflected in the snapshot sent on connect: not delivered again.
    private var snapshotSeq: UInt64 = 0
    private var queue = CircularBuffer<ByteBuffer>(initialCapacity: 16)
    private var dropped = 0
    private var totalDropped = 0
    private var stalledSince: Double?
    private var pendingLine: [UInt8] = []
    private var discardingLongLine = false
    private var closing = false

    init(id: Int, server: SocketServer, configuration: SocketServerConfiguration, logger: Logger) {
        self.id = id
        self.server = server
        self.configuration = configuration
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        guard let banner = server.added(self) else {
            context.close(promise: nil)
            return
        }
        context.write(wrapOutboundOut(banner), promise: nil)
        // What is in view now, right after the banner; events already reflected in it are not sent again.
        let snapshot = server.snapshot()
        snapshotSeq = snapshot.seq
        let now = wallClockSeconds()
        for line in ClientLines.snapshot(snapshot, timestamp: now) {
            context.write(wrapOutboundOut(ByteBuffer(bytes: line)), promise: nil)
        }
        context.flush()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.removed(self, reason: closing ? "closed by server" : "closed by client")
        queue.removeAll()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        while let bytes = buffer.readBytes(length: buffer.readableBytes), !bytes.isEmpty {
            for byte in bytes {
                if byte == 0x0A {
                    if discardingLongLine {
                        discardingLongLine = false
                    } else {
                        handle(line: pendingLine)
                    }
                    pendingLine.removeAll(keepingCapacity: true)
                } else if !discardingLongLine {
                    pendingLine.append(byte)
                    if pendingLine.count > configuration.maxCommandBytes {
                        pendingLine.removeAll()
                        discardingLongLine = true
                        reply(
                            error:
                                "command longer than \(configuration.maxCommandBytes) bytes; discarded up to the next newline"
                        )
                    }
                }
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? ChannelEvent, e == .inputClosed {
            // Half-closed: the client sends nothing more but may still read; keep delivering.
            logger.debug("client half-closed its side", metadata: ["client": "\(id)"])
            pendingLine.removeAll()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client connection error: \(error)", metadata: ["client": "\(id)"])
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalledSince = nil
            pump()
        }
        context.fireChannelWritabilityChanged()
    }

    private func handle(line: [UInt8]) {
        var line = line
        if line.last == 0x0D { line.removeLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        if logger.logLevel <= .debug {
            logger.debug(
                "client command",
                metadata: ["client": "\(id)", "command": "\(String(decoding: line.prefix(256), as: UTF8.self))"])
        }
        do {
            switch try ClientCommand.parse(command: line) {
            case .subscribe(let s): subscription = s
            case .poll:
                poll()
                return
            case .devices:
                devices()
                return
            }
            control(ClientLines.subscribed(subscription))
        } catch {
            reply(error: error.message)
        }
    }

    /// `poll`: the present objects (those the subscription's types pass) as snapshot `appeared` lines, then
    /// `{"event":"polled","present":N,"lastSeq":S,"timestamp":T}` (S: the last event the snapshot reflects).
    private func poll() {
        let snapshot = server.snapshot()
        let now = wallClockSeconds()
        let lines = ClientLines.snapshot(snapshot, types: subscription.types, timestamp: now)
        for line in lines { control(line) }
        control(ClientLines.polled(present: lines.count, lastSeq: snapshot.seq, timestamp: now))
    }

    /// `devices`: `{"event":"devices","devices":[{"device":…,"state":…,"live":…,"framesRead":…,…}],"timestamp":T}`.
    private func devices() {
        control(ClientLines.devices(server.sourceStates()))
    }

    private func reply(error message: String) {
        control(ClientLines.error(message))
    }

    /// Replies go through the same bounded queue, so a client cannot make the server buffer without limit.
    private func control(_ line: [UInt8]) {
        push(ByteBuffer(bytes: line))
    }

    func enqueue(_ event: EncodedEvent, _ buffer: ByteBuffer) {
        guard subscription.matches(event) else { return }
        if let seq = event.seq, seq <= snapshotSeq { return }
        push(buffer)
    }

    private func push(_ buffer: ByteBuffer) {
        guard let context, !closing else { return }
        if queue.count >= configuration.clientQueueLimit {
            queue.removeFirst()
            dropped += 1
            totalDropped += 1
            server.countDropped()
            let now = monotonicSeconds()
            if stalledSince == nil { stalledSince = now }
            if let since = stalledSince, now - since >= configuration.clientStallTimeout {
                logger.warning(
                    "disconnecting stalled client",
                    metadata: [
                        "client": "\(id)", "dropped": "\(totalDropped)",
                        "stalledSeconds": "\(Int(now - since))",
                    ])
                closing = true
                queue.removeAll()
                context.close(promise: nil)
                return
            }
        }
        queue.append(buffer)
        pump()
    }

    private func pump() {
        guard let context else { return }
        var wrote = false
        while context.channel.isWritable {
            if dropped > 0 {
                let line = ClientLines.overflow(dropped: dropped)
                logger.notice(
                    "client too slow, dropped its oldest events",
                    metadata: ["client": "\(id)", "dropped": "\(dropped)"])
                dropped = 0
                context.write(wrapOutboundOut(ByteBuffer(bytes: line)), promise: nil)
            } else if let next = queue.popFirst() {
                context.write(wrapOutboundOut(next), promise: nil)
            } else {
                break
            }
            wrote = true
        }
        if wrote { context.flush() }
    }

    /// Writes everything still queued, then closes; force-closes after `timeout` seconds.
    func drainAndClose(timeout: Double) -> EventLoopFuture<Void> {
        guard let context else { return server.eventLoop.makeSucceededVoidFuture() }
        closing = true
        if dropped > 0 { pump() }
        while let next = queue.popFirst() { context.write(wrapOutboundOut(next), promise: nil) }
        let channel = context.channel
        let closed = channel.closeFuture
        let done = context.writeAndFlush(wrapOutboundOut(ByteBuffer()))
        done.whenComplete { _ in channel.close(promise: nil) }
        let timer = context.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
            channel.close(promise: nil)
        }
        closed.whenComplete { _ in timer.cancel() }
        return closed
    }

}
