public import ScanCore
public import ScanKit

// The fakes the tests share. Real parts are the rule (real detectors, sockets, processes, drivers); a
// fake stands in only at an edge a test must drive or observe.

/// An event sink that keeps every delivered event, for assertions.
public final class CollectingSink: EventSink, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `items` is touched only under `lock`.
    private let lock = Lock()
    private var items: [EncodedEvent] = []
    public init() {}
    /// Every event delivered so far, in order.
    public var events: [EncodedEvent] { lock.withLock { items } }
    public func deliver(_ event: EncodedEvent) { lock.withLock { items.append(event) } }
    public func finish() {}
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
