internal import CScanMosquitto
import Foundation
public import Logging
public import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Publishes scand's events into an MQTT broker through libmosquitto: `<prefix>/events` (one JSON line per
/// message, `seq` kept; per-frame `metadata` only with ``MQTTConfiguration/metadata``), optionally
/// `<prefix>/<kind>`, a retained `<prefix>/availability` (plain `online`; `offline` as the last will and at a
/// clean stop), a retained `<prefix>/status` (JSON: `online` with the device and version at connect,
/// `offline` at a clean stop), and the tag, state and discovery topics of ``MQTTFleetTopics``.
///
/// Delivery is at least once with QoS 1 (the default): every event goes through an ``MQTTOutbox`` and stays
/// there until the broker acknowledges it; after a lost connection the unacknowledged ones are sent again, in
/// order, once a new connection (same client id, clean_session=false) is up; reconnection waits double from
/// `reconnectMin` to `reconnectMax`. ``deliver(_:)`` only appends to the outbox: it never blocks the
/// pipeline or another sink. When the outbox is full the oldest messages go and an `overflow` event says how
/// many.
///
/// One thread (started by ``start()``) owns the `struct mosquitto *`: it creates it, runs its network loop
/// (`mosquitto_loop_read/write/misc` on its socket with `poll`), publishes, and destroys it; libmosquitto's
/// callbacks run on that thread, inside those calls. Other threads touch only the outbox (locked) and the
/// wake-up eventfd.
public final class MQTTClient: EventSink, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `stopping`, `drainDeadline`, `started` and `stats*` are touched only
    // under `lock`; `handle`, `connackCode`, `connectDeadline`, `lostConnection`, `midToSend`,
    // `acceptedHandled`, `offline*` and `lastReported` only on the client thread (libmosquitto calls its
    // callbacks there); `outbox` is itself locked; the wake-up pipe is written with write(2) from any thread,
    // which is thread-safe; the rest is immutable.
    public let configuration: MQTTConfiguration
    public let outbox: MQTTOutbox
    /// `<prefix>/events`, made once: every queued message shares this one string's storage.
    private let eventsTopic: String
    /// The tag and state topics derived from `appeared`/`lost`, and the start-up discovery messages.
    private let fleet: MQTTFleetState
    private let logger: Logger
    private let onConnection: @Sendable (MQTTConnectionEvent) -> Void
    private let lock = Lock()
    /// The wake-up pipe: `deliver` and `finish` write a byte, the client thread's poll wakes and drains it.
    private let wakeFD: Int32
    private let wakeWriteFD: Int32
    private var stopping = false
    private var drainDeadline = MonotonicInstant.now
    private var statsConnected = false
    private var statsConnections = 0
    private var statsLastError: String?
    /// Set when the client thread ended.
    private let finished = Locked(false)
    private var started = false

    // Client thread only.
    private var handle: OpaquePointer?
    private var connackCode: Int32?
    private var lostConnection = false
    private var midToSend: [Int32: UInt64] = [:]
    private var lastReported: String?
    /// When the connection attempt in progress (no CONNACK yet) is given up; nil before the first.
    private var connectDeadline: MonotonicInstant?

    /// - Parameters:
    ///   - onConnection: called on the client thread at each connection change (see ``MQTTConnectionEvent``);
    ///     it must not block (the daemon publishes it as an event, which only queues).
    public init(
        configuration: MQTTConfiguration, logger: Logger,
        onConnection: @escaping @Sendable (MQTTConnectionEvent) -> Void = { _ in }
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        self.onConnection = onConnection
        eventsTopic = configuration.eventsTopic
        fleet = MQTTFleetState(configuration: configuration)
        let spool = configuration.spoolDirectory.map {
            MQTTSpool(
                directory: $0, id: configuration.id, byteLimit: configuration.spoolBytes,
                syncInterval: configuration.spoolSync, logger: logger)
        }
        outbox = MQTTOutbox(
            capacity: configuration.queueLimit, byteCapacity: configuration.queueBytes,
            overflowTopic: configuration.eventsTopic, spool: spool)
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw ScanError.invalidArgument("MQTT: pipe failed: \(Errno.last.description)")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
        _ = Self.libraryInitialised
        // The spool goes first, before any event of this run can be delivered.
        let spooled = outbox.restoreSpool()
        if spooled > 0 {
            logger.notice(
                "mqtt: \(spooled) message(s) from the spool queued first",
                metadata: ["spool": "\(configuration.spoolDirectory ?? "")"])
        }
        outbox.append(fleet.startMessages())
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    private static let libraryInitialised: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    /// Starts the client thread (the spool, messages a previous run could not deliver, was queued by init).
    public func start() {
        let first = lock.withLock { () -> Bool in
            defer { started = true }
            return !started
        }
        guard first else { return }
        // A named pthread (Foundation's Thread on Linux left it with the name of the thread that started it,
        // a libdispatch worker's: `oot.default-qos`, which hid it in thread counts by name).
        _ = WorkerThread(name: "scand-mqtt") { [self] in
            run()
            finished.withLock { $0 = true }
            finished.broadcast()
        }
    }

    public var statistics: MQTTClientStatistics {
        let s = lock.withLock { (statsConnected, statsConnections, statsLastError) }
        return MQTTClientStatistics(connected: s.0, connections: s.1, lastError: s.2, outbox: outbox.statistics)
    }

    // MARK: EventSink

    /// Queues `event` for `<prefix>/events` (and `<prefix>/<kind>`; `metadata` only when configured), and
    /// the tag and state messages it leads to; never blocks.
    public func deliver(_ event: EncodedEvent) {
        var payload = event.line
        if payload.last == 0x0A { payload.removeLast() }
        var messages: [MQTTMessage] = []
        if event.name != "metadata" || configuration.metadata {
            messages.append(MQTTMessage(topic: eventsTopic, payload: payload))
            if configuration.kindTopics {
                messages.append(
                    MQTTMessage(topic: configuration.topicPrefix + "/" + event.name, payload: payload, isEvent: false))
            }
            // Every camera of a multi-camera run, those a reload added included.
            if let camera = event.camera, !configuration.cameras.isEmpty {
                messages.append(
                    MQTTMessage(topic: fleet.topics.camera(camera).events, payload: payload, isEvent: false))
            }
        }
        messages += fleet.messages(for: event, payload: payload)
        guard !messages.isEmpty else { return }
        outbox.append(messages)
        wake()
    }

    /// Stops taking events; gives the broker up to 5 s to acknowledge what is queued, publishes the
    /// `offline` status, disconnects, and spools what is left (with `--mqtt-spool`).
    public func finish() { finish(timeout: .seconds(5)) }

    /// Like ``finish()`` with the drain time given. Returns false when the client thread did not end in time
    /// (it is then abandoned).
    @discardableResult
    public func finish(timeout: Duration) -> Bool {
        let wasStarted = lock.withLock { () -> Bool in
            stopping = true
            drainDeadline = .now.advanced(by: timeout)
            return started
        }
        guard wasStarted else { return true }
        wake()
        let ended: (Bool) -> Bool = { $0 }
        return finished.withLock(waitingUntil: ended, deadline: .now.advanced(by: timeout + .seconds(3))) { $0 }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeWriteFD, &one, 1)  // EAGAIN when full: a wake-up is pending anyway
    }

    private func drainWake() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(wakeFD, &buffer, buffer.count) > 0 {}
    }

    // MARK: client thread

    private func run() {
        var backoff = configuration.reconnectMin
        var nextAttempt = MonotonicInstant(nanoseconds: 0)
        while true {
            if let why = outbox.takeSpoolError() {
                logger.error("mqtt: \(why)")
                onConnection(.spoolFailed(why))
            }
            let (stop, deadline) = lock.withLock { (stopping, drainDeadline) }
            // The spool's records reach the disk within `spoolSync` s (no wake-up when nothing is unsynced).
            let syncIn = outbox.syncSpoolIfDue() ?? .seconds(1)
            let now = MonotonicInstant.now
            if handle == nil {
                if stop { break }
                if now < nextAttempt {
                    waitForWake(timeout: min(now.duration(to: nextAttempt), syncIn))
                    continue
                }
                if connect() {
                    // connected at TCP (and TLS) level; CONNACK decides
                } else {
                    nextAttempt = .now.advanced(by: .seconds(backoff))
                    backoff = min(backoff * 2, configuration.reconnectMax)
                }
                continue
            }
            if stop && (outbox.isEmpty || now >= deadline || connackCode != 0) { break }
            if connackCode == nil, let connectDeadline, now >= connectDeadline {
                // No CONNACK in time: a black-holed broker (SYNs dropped), a TLS handshake or a broker that
                // never answers. The attempt is abandoned; the next one waits for the backoff.
                dropConnection(
                    reason:
                        "\(configuration.endpoint): connection failed: no answer within \(formatSeconds(configuration.connectTimeout)) s",
                    wasUp: false)
                nextAttempt = .now.advanced(by: .seconds(backoff))
                backoff = min(backoff * 2, configuration.reconnectMax)
                continue
            }
            if connackCode == 0 {
                if !acceptedHandled {
                    acceptedHandled = true
                    connectionAccepted()
                }
                backoff = configuration.reconnectMin
                publishQueued()
            }
            let rc = pumpNetwork(
                timeout: min(
                    stop ? min(.milliseconds(100), max(.zero, now.duration(to: deadline))) : .seconds(1), syncIn))
            if let code = connackCode, code != 0 {
                let reason =
                    "\(configuration.endpoint) refused the connection: \(String(cString: mosquitto_connack_string(code)))"
                    + (code == 4 || code == 5
                        ? (configuration.username.map { " (username '\($0)')" } ?? " (no username given)") : "")
                dropConnection(reason: reason, wasUp: false)
                nextAttempt = .now.advanced(by: .seconds(backoff))
                backoff = min(backoff * 2, configuration.reconnectMax)
            } else if rc != MOSQ_ERR_SUCCESS.rawValue || lostConnection {
                let wasUp = connackCode == 0
                let detail =
                    rc == MOSQ_ERR_ERRNO.rawValue
                    ? Errno.last.description : String(cString: mosquitto_strerror(rc))
                dropConnection(
                    reason: "\(configuration.endpoint): \(wasUp ? "connection lost" : "connection failed"): \(detail)",
                    wasUp: wasUp)
                nextAttempt = .now.advanced(by: .seconds(wasUp ? configuration.reconnectMin : backoff))
                if !wasUp { backoff = min(backoff * 2, configuration.reconnectMax) }
            }
        }
        shutdown()
    }

    /// Creates the handle and opens the TCP (and TLS) connection; CONNACK arrives later in the loop.
    private func connect() -> Bool {
        guard let h = mosquitto_new(configuration.clientID, false, Unmanaged.passUnretained(self).toOpaque()) else {
            report(failure: "\(configuration.endpoint): cannot create an MQTT client (out of memory)")
            return false
        }
        handle = h
        connackCode = nil
        lostConnection = false
        acceptedHandled = false
        midToSend.removeAll()
        _ = mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        _ = mosquitto_max_inflight_messages_set(h, UInt32(configuration.maxInFlight))
        mosquitto_connect_callback_set(h) { _, obj, rc in
            Unmanaged<MQTTClient>.fromOpaque(obj!).takeUnretainedValue().connackCode = rc
        }
        mosquitto_disconnect_callback_set(h) { _, obj, _ in
            Unmanaged<MQTTClient>.fromOpaque(obj!).takeUnretainedValue().lostConnection = true
        }
        mosquitto_publish_callback_set(h) { _, obj, mid in
            let me = Unmanaged<MQTTClient>.fromOpaque(obj!).takeUnretainedValue()
            if let id = me.midToSend.removeValue(forKey: mid) { me.outbox.acknowledge(id) }
            if mid == me.offlineMid { me.offlineAcked = true }
        }
        // The one last will of the connection: plain `offline` on the availability topic (what Home Assistant
        // and Frigate read); the JSON status is updated at connect and at a clean stop.
        let will = Array("offline".utf8)
        _ = will.withUnsafeBytes {
            mosquitto_will_set(h, configuration.availabilityTopic, Int32($0.count), $0.baseAddress, 1, true)
        }
        if let user = configuration.username {
            _ = mosquitto_username_pw_set(h, user, configuration.password)
        }
        if configuration.endpoint.tls {
            let rc = mosquitto_tls_set(
                h, configuration.caFile, configuration.caFile == nil ? "/etc/ssl/certs" : nil,
                configuration.certFile, configuration.keyFile, nil)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                dropConnection(
                    reason: "\(configuration.endpoint): TLS setup failed: \(String(cString: mosquitto_strerror(rc)))",
                    wasUp: false)
                return false
            }
        }
        // Non-blocking: the TCP connect (and TLS handshake) go on in the network loop, which polls the socket
        // and the wake-up pipe, so a stop is never held up; `connectDeadline` bounds the attempt. (The name
        // lookup still blocks: give an address, or a name /etc/hosts resolves, where DNS may be down.)
        connectDeadline = .now.advanced(by: .seconds(configuration.connectTimeout))
        let rc = mosquitto_connect_async(
            h, configuration.endpoint.host, Int32(configuration.endpoint.port), Int32(configuration.keepalive))
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            let detail =
                rc == MOSQ_ERR_ERRNO.rawValue
                ? Errno.last.description : String(cString: mosquitto_strerror(rc))
            dropConnection(reason: "\(configuration.endpoint): cannot connect: \(detail)", wasUp: false)
            return false
        }
        return true
    }

    /// Hands queued messages to libmosquitto while the in-flight window has room.
    private func publishQueued() {
        guard let h = handle else { return }
        while let (id, m) = outbox.next(maxInFlight: configuration.maxInFlight) {
            var mid: Int32 = 0
            let rc = m.payload.withUnsafeBytes {
                mosquitto_publish(h, &mid, m.topic, Int32($0.count), $0.baseAddress, Int32(configuration.qos), m.retain)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                // The connection went away under us: the loop notices; the message is requeued with the rest.
                lostConnection = true
                return
            }
            midToSend[mid] = id
        }
    }

    /// One round of libmosquitto's network loop: waits (poll) for the socket or a wake-up, then reads,
    /// writes and runs keepalive/retry housekeeping. Returns libmosquitto's status.
    private func pumpNetwork(timeout: Duration) -> Int32 {
        guard let h = handle else { return MOSQ_ERR_NO_CONN.rawValue }
        let sock = mosquitto_socket(h)
        guard sock >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        var fds = [
            pollfd(fd: sock, events: Int16(POLLIN) | (mosquitto_want_write(h) ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        let n = poll(&fds, 2, Int32(max(0, min(timeout.inSeconds, 1.0)) * 1000))
        if n > 0 && fds[1].revents != 0 { drainWake() }
        if n > 0 && fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            let rc = mosquitto_loop_read(h, 100)
            if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
        }
        if mosquitto_want_write(h) {
            let rc = mosquitto_loop_write(h, 100)
            if rc != MOSQ_ERR_SUCCESS.rawValue { return rc }
        }
        return mosquitto_loop_misc(h)
    }

    private func waitForWake(timeout: Duration) {
        var fd = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        if poll(&fd, 1, Int32(max(1, min(timeout.inSeconds, 1.0) * 1000))) > 0 { drainWake() }
    }

    /// Closes the handle; messages in flight go back to the queue. Reports the change once.
    private func dropConnection(reason: String, wasUp: Bool) {
        if let h = handle { mosquitto_destroy(h) }
        handle = nil
        connackCode = nil
        midToSend.removeAll()
        outbox.requeueInFlight()
        lock.withLock {
            statsConnected = false
            statsLastError = reason
        }
        if wasUp {
            lastReported = nil
            logger.warning("mqtt: \(reason); queueing until the broker is back")
            onConnection(.disconnected(reason))
        } else {
            report(failure: reason)
        }
    }

    private func report(failure reason: String) {
        if reason != lastReported {
            lastReported = reason
            logger.error("mqtt: \(reason); retrying (up to every \(configuration.reconnectMax) s)")
            onConnection(.failed(reason))
        } else {
            logger.debug("mqtt: \(reason)")
        }
    }

    /// The connection was accepted: publish `online` and report.
    private func connectionAccepted() {
        guard let h = handle else { return }
        let online = statusPayload(online: true, reason: nil)
        _ = online.withUnsafeBytes {
            mosquitto_publish(h, nil, configuration.statusTopic, Int32($0.count), $0.baseAddress, 1, true)
        }
        publishAvailability(h, "online", mid: nil)
        let n = lock.withLock { () -> Int in
            statsConnected = true
            statsConnections += 1
            statsLastError = nil
            return statsConnections
        }
        lastReported = nil
        logger.notice(
            "mqtt: connected",
            metadata: [
                "broker": "\(configuration.endpoint)", "topic": "\(configuration.eventsTopic)",
                "queued": "\(outbox.statistics.messages)", "connection": "\(n)",
            ])
        onConnection(.connected)
    }

    private var acceptedHandled = false
    private var offlineMid: Int32 = -1
    private var offlineAcked = false

    /// At the end: `offline` status and a clean disconnect when connected; spool what is left.
    private func shutdown() {
        if let h = handle, connackCode == 0 {
            let offline = statusPayload(online: false, reason: "stopped")
            _ = offline.withUnsafeBytes {
                mosquitto_publish(h, nil, configuration.statusTopic, Int32($0.count), $0.baseAddress, 1, true)
            }
            var mid: Int32 = 0
            let rc = publishAvailability(h, "offline", mid: &mid)
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                offlineMid = mid
                let end = MonotonicInstant.now.advanced(by: .seconds(1))
                while !offlineAcked && MonotonicInstant.now < end {
                    if pumpNetwork(timeout: .milliseconds(50)) != MOSQ_ERR_SUCCESS.rawValue { break }
                }
            }
            _ = mosquitto_disconnect(h)
            _ = mosquitto_loop_write(h, 1)
        }
        if let h = handle { mosquitto_destroy(h) }
        handle = nil
        lock.withLock { statsConnected = false }
        let onDisk = outbox.closeSpool()
        let rest = outbox.removeAll()
        if let onDisk, onDisk > 0 {
            logger.notice(
                "mqtt: \(onDisk) undelivered message(s) kept in the spool for the next start",
                metadata: ["spool": "\(configuration.spoolDirectory ?? "")"])
        }
        if rest.count > (onDisk ?? 0) {
            logger.warning(
                "mqtt: \(rest.count - (onDisk ?? 0)) message(s) not delivered to \(configuration.endpoint) before the stop"
            )
        }
    }

    /// Publishes plain `online`/`offline` on the availability topic, retained, QoS 1.
    @discardableResult
    private func publishAvailability(_ h: OpaquePointer, _ text: String, mid: UnsafeMutablePointer<Int32>?) -> Int32 {
        Array(text.utf8).withUnsafeBytes {
            mosquitto_publish(h, mid, configuration.availabilityTopic, Int32($0.count), $0.baseAddress, 1, true)
        }
    }

    /// `{"status":"online"|"offline","id":…,"device":…,"version":…,"reason":…,"timestamp":…}`.
    private func statusPayload(online: Bool, reason: String?) -> [UInt8] {
        struct Status: Encodable {
            var status: String
            var id: String
            var device: String
            var version: String
            var reason: String?
            var timestamp: Double?
        }
        let s = Status(
            status: online ? "online" : "offline", id: configuration.id, device: configuration.device,
            version: configuration.version, reason: reason,
            timestamp: (wallClockSeconds() * 1000).rounded() / 1000)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(s)) ?? Data())
    }
}

/// `10`, `0.5`: seconds for a message, without a trailing `.0`.
private func formatSeconds(_ s: Double) -> String {
    s == s.rounded() ? String(Int(s)) : String(s)
}
