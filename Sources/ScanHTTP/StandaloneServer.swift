import ScanCore
public import Logging
import ServiceLifecycle
import Dispatch

/// Runs an ``HTTPServer`` in a `ServiceGroup` of its own, for a caller that is not itself a service group
/// (`scand run`'s loop today). ``start()`` returns once the server listens (or throws why it cannot),
/// ``stop()`` shuts it down gracefully: open streams and WebSockets end first.
public final class StandaloneHTTPServer: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `port`, `failure` and `group` are touched only under `lock`;
    // `server`, `ready` and `done` are immutable (semaphores are thread-safe).
    public let server: HTTPServer
    private let lock = Lock()
    private var port: Int?
    private var failure: (any Error)?
    private var group: ServiceGroup?
    private let ready = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    /// `makeServer` gets the callback to pass as the server's `onListening`.
    public init(makeServer: (@escaping @Sendable (Int) -> Void) -> HTTPServer) {
        let box = PortBox()
        server = makeServer { port in box.set(port) }
        box.onSet = { [weak self] port in
            guard let self else { return }
            self.lock.withLock { self.port = port }
            self.ready.signal()
        }
    }

    /// Starts serving. - Returns: the bound port. - Throws: why the server could not listen (address in
    /// use, no such host), as ``ScanError/invalidArgument(_:)`` naming the address.
    @discardableResult
    public func start(logger: Logger) throws -> Int {
        let group = ServiceGroup(services: [server], gracefulShutdownSignals: [], cancellationSignals: [], logger: logger)
        lock.withLock { self.group = group }
        Task.detached { [self] in
            do { try await group.run() } catch {
                lock.withLock { self.failure = error }
            }
            ready.signal()
            done.signal()
        }
        ready.wait()
        let (port, failure) = lock.withLock { (self.port, self.failure) }
        if let port { return port }
        let address = "\(server.configuration.host):\(server.configuration.port)"
        throw ScanError.invalidArgument("--http \(address): cannot listen: \(failure.map { "\($0)" } ?? "the server stopped")")
    }

    /// Graceful shutdown; waits up to `timeout` seconds.
    public func stop(timeout: Double = 5) {
        guard let group = lock.withLock({ self.group }) else { return }
        server.frames.close()
        server.events.finish()
        Task.detached { await group.triggerGracefulShutdown() }
        _ = done.wait(timeout: .now() + timeout)
    }
}

/// Hands the bound port from the server's callback to ``StandaloneHTTPServer``.
private final class PortBox: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `onSet` is set once in StandaloneHTTPServer.init before the server
    // can call `set`, and only read afterwards, under `lock`.
    private let lock = Lock()
    private var _onSet: (@Sendable (Int) -> Void)?
    var onSet: (@Sendable (Int) -> Void)? {
        get { lock.withLock { _onSet } }
        set { lock.withLock { _onSet = newValue } }
    }
    func set(_ port: Int) { onSet?(port) }
}
