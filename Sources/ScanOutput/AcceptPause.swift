import Logging
import NIOCore
import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

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
/// Loop-confined: every method runs on the listening channel's event loop (NIO calls handlers there; the retry
/// reaches it through a `NIOLoopBound`, which checks that at run time).
final class AcceptPause: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let retryInterval: Double
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var retry: Scheduled<Void>?
    /// Accepting is switched off (autoRead false).
    private(set) var isPaused = false
    /// When the last warning was logged.
    private var lastWarning: MonotonicInstant?
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
        refuse(Errno(rawValue: code).description, context)
    }

    /// Logs (at most once a minute) and pauses accepting; `failed`: an accept failed or was refused (counted).
    private func refuse(_ why: String, _ context: ChannelHandlerContext, failed: Bool = true) {
        if failed { failures += 1 }
        let now = MonotonicInstant.now
        if lastWarning.map({ $0.duration(to: now) >= .seconds(60) }) ?? true {
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
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        retry = context.eventLoop.scheduleTask(in: .nanoseconds(Int64(retryInterval * 1e9))) {
            bound.value.retry = nil
            bound.value.retryNow()
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
