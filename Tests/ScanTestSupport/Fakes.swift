public import ScanCore
public import ScanKit

// The fakes the tests share. Real parts are the rule (real detectors, sockets, processes, drivers); a
// fake stands in only at an edge a test must drive or observe.

/// An event sink that keeps every delivered event, and whether it was finished, for assertions.
public final class CollectingSink: EventSink, Sendable {
    private let state = Locked<(items: [EncodedEvent], finished: Bool)>(([], false))
    public init() {}
    /// Every event delivered so far, in order.
    public var events: [EncodedEvent] { state.withLock { $0.items } }
    /// True once `finish()` was called.
    public var finished: Bool { state.withLock { $0.finished } }
    public func deliver(_ event: EncodedEvent) { state.withLock { $0.items.append(event) } }
    public func finish() { state.withLock { $0.finished = true } }
}

/// Stands in for the capture layer's device-event reporting (the seam `--device` plugs into): the test
/// sends the events a camera would.
public final class ManualDeviceEvents: DeviceEventSource, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `handler` is touched only under `lock`.
    private let lock = Lock()
    private var handler: (@Sendable (DeviceEvent) -> Void)?
    public init() {}
    public func startReporting(_ handler: @escaping @Sendable (DeviceEvent) -> Void) { lock.withLock { self.handler = handler } }
    public func stopReporting() { lock.withLock { handler = nil } }
    /// Delivers `e` as the capture layer would, from the calling thread.
    public func send(_ e: DeviceEvent) { lock.withLock { handler }?(e) }
}
