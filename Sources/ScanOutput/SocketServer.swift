import FoundationEssentials
public import Logging
import NIOCore
import NIOPosix
public import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Delivers events to every client of a listening Unix socket (SwiftNIO, one event-loop thread).
///
/// Each client gets the `hello` banner, then every event its subscription passes. Each client has its
/// own bounded queue: ``deliver(_:)`` never blocks, a slow client loses its oldest events (and is told
/// with an `overflow` line), and a client stuck past ``SocketServerConfiguration/clientStallTimeout`` is
/// disconnected. Other clients and the pipeline are never slowed.
public final class SocketServer: EventSink, Sendable {
    public let configuration: SocketServerConfiguration
    private let logger: Logger
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    /// The event loop every client handler runs on.
    var eventLoop: any EventLoop { loop }

    /// What any thread may touch, under its lock.
    private struct Shared {
        var listeners: [any Channel] = []
        var finished = false
        /// Events dropped for slow clients since start, summed over clients.
        var droppedEvents = 0
        /// What answers snapshots (on connect, `poll`) and `devices`; set at init (weak: the provider, the
        /// pipeline, publishes to this server).
        weak var stateProvider: (any ServerStateProvider)?
    }
    private let shared: Locked<Shared>

    /// What only the event loop touches (`NIOLoopBoundBox` checks it at run time).
    private struct OnLoop {
        var clients: [ObjectIdentifier: ClientHandler] = [:]
        var acceptPauses: [AcceptPause] = []
        var nextClientID = 1
        var banner: ServerBanner
        var stopped = false
    }
    private let onLoop: NIOLoopBoundBox<OnLoop>

    /// - Parameter state: what answers snapshots (on connect, `poll`) and `devices`: the pipeline.
    public init(
        configuration: SocketServerConfiguration = SocketServerConfiguration(), banner: ServerBanner,
        state: any ServerStateProvider, logger: Logger
    ) {
        self.configuration = configuration
        self.shared = Locked(Shared(stateProvider: state))
        self.logger = logger
        self.group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.loop = group.next()
        self.onLoop = NIOLoopBoundBox.makeBoxSendingValue(OnLoop(banner: banner), eventLoop: loop)
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
                            "listen(backlog \(config.listenBacklog)): \(Errno.last)")
                    }
                    let pause = AcceptPause(retryInterval: config.acceptRetryInterval, logger: self.logger)
                    try channel.pipeline.syncOperations.addHandler(pause)
                    self.onLoop.value.acceptPauses.append(pause)
                }
            }
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(self.makeClient(channel))
                }
            }
            .withBoundSocket(fd).wait()
        shared.withLock { $0.listeners.append(channel) }
    }

    private func makeClient(_ channel: any Channel) -> ClientHandler {
        let id = onLoop.value.nextClientID
        onLoop.value.nextClientID += 1
        return ClientHandler(id: id, server: self, configuration: configuration, logger: logger)
    }

    // Loop-confined bookkeeping, called by handlers.
    fileprivate func added(_ client: ClientHandler) -> ByteBuffer? {
        if onLoop.value.stopped { return nil }
        onLoop.value.clients[ObjectIdentifier(client)] = client
        logger.info(
            "client connected", metadata: ["client": "\(client.id)", "clients": "\(onLoop.value.clients.count)"])
        return ByteBuffer(bytes: Self.encodeBanner(onLoop.value.banner))
    }

    fileprivate func removed(_ client: ClientHandler, reason: String) {
        guard onLoop.value.clients.removeValue(forKey: ObjectIdentifier(client)) != nil else { return }
        logger.info(
            "client disconnected",
            metadata: [
                "client": "\(client.id)", "reason": "\(reason)",
                "clients": "\(onLoop.value.clients.count)",
            ])
        // A descriptor is being freed: a paused acceptor tries again (on the next loop turn, once the
        // connection's descriptor is closed).
        if onLoop.value.acceptPauses.contains(where: \.isPaused) {
            loop.execute { for pause in self.onLoop.value.acceptPauses { pause.retryNow() } }
        }
    }

    /// Events dropped since start for slow clients, summed over every client (each client got an `overflow`
    /// line saying how many of its own). For `/metrics`.
    public var droppedEvents: Int { shared.withLock { $0.droppedEvents } }

    /// Counts one event dropped for a slow client (any thread).
    func countDropped() { shared.withLock { $0.droppedEvents += 1 } }

    /// Number of connected clients (for logs and tests; waits for the event loop).
    public var clientCount: Int {
        (try? loop.submit { self.onLoop.value.clients.count }.wait()) ?? 0
    }

    /// Queues `event` for every client whose subscription passes it. Never blocks.
    public func deliver(_ event: EncodedEvent) {
        let buffer = ByteBuffer(bytes: event.line)
        loop.execute {
            for client in self.onLoop.value.clients.values { client.enqueue(event, buffer) }
        }
    }

    /// The present objects now (empty once the provider is gone).
    fileprivate func snapshot() -> PresenceSnapshot {
        shared.withLock { $0.stateProvider }?.presenceSnapshot() ?? PresenceSnapshot()
    }

    fileprivate func sourceStates() -> [SourceState] {
        shared.withLock { $0.stateProvider }?.sourceStates() ?? []
    }

    /// Changes what new clients are told in the banner (after a configuration reload).
    public func updateBanner(_ banner: ServerBanner) {
        loop.execute { self.onLoop.value.banner = banner }
    }

    /// Stops accepting, gives each client up to ``SocketServerConfiguration/drainTimeout`` to receive what
    /// is queued for it, closes every connection and the listening sockets, and stops the event loop.
    public func finish() {
        let (listeners, already) = shared.withLock { shared -> ([any Channel], Bool) in
            let l = shared.listeners
            shared.listeners = []
            defer { shared.finished = true }
            return (l, shared.finished)
        }
        guard !already else { return }
        for l in listeners { try? l.close().wait() }
        let drained: EventLoopFuture<Void> = loop.flatSubmit {
            self.onLoop.value.stopped = true
            let timeout = self.configuration.drainTimeout
            let futures = self.onLoop.value.clients.values.map { $0.drainAndClose(timeout: timeout) }
            return EventLoopFuture.andAllComplete(futures, on: self.loop)
        }
        try? drained.wait()
        try? group.syncShutdownGracefully()
    }
}

/// One client connection. Loop-confined: all methods run on the server's event loop (NIO calls handlers there;
/// deliveries from the pipeline are hopped onto it with `execute`, and the server keeps its handlers in a
/// `NIOLoopBoundBox`).
private final class ClientHandler: ChannelInboundHandler {
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
    /// Lines waiting for the socket to take them; the oldest go first when the client is too slow.
    private var queue: DropOldestQueue<ByteBuffer>
    private var stalledSince: MonotonicInstant?
    private var pendingLine: [UInt8] = []
    private var discardingLongLine = false
    private var closing = false

    init(id: Int, server: SocketServer, configuration: SocketServerConfiguration, logger: Logger) {
        self.id = id
        self.server = server
        self.configuration = configuration
        self.logger = logger
        self.queue = DropOldestQueue(capacity: configuration.clientQueueLimit)
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
        _ = queue.removeAll()
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
        let lines = ClientLines.snapshot(
            snapshot, types: subscription.types, cameras: subscription.cameras, timestamp: now)
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
        if queue.append(buffer) > 0 {
            server.countDropped()
            let now = MonotonicInstant.now
            if stalledSince == nil { stalledSince = now }
            if let since = stalledSince, since.duration(to: now) >= .seconds(configuration.clientStallTimeout) {
                logger.warning(
                    "disconnecting stalled client",
                    metadata: [
                        "client": "\(id)", "dropped": "\(queue.totalDropped)",
                        "stalledSeconds": "\(Int(since.duration(to: now).inSeconds))",
                    ])
                closing = true
                _ = queue.removeAll()
                context.close(promise: nil)
                return
            }
        }
        pump()
    }

    private func pump() {
        guard let context else { return }
        var wrote = false
        while context.channel.isWritable {
            if queue.overflow > 0 {
                let dropped = queue.takeOverflow()
                let line = ClientLines.overflow(dropped: dropped)
                logger.notice(
                    "client too slow, dropped its oldest events",
                    metadata: ["client": "\(id)", "dropped": "\(dropped)"])
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
        if queue.overflow > 0 { pump() }
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
