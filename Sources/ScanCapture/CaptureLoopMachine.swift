import ScanCore

/// What the capture thread knows about its device and what it must report, as a state machine. Pure: no
/// device, clock or lock. ``CaptureSession``'s thread feeds it what happened (an open succeeded or failed,
/// a read result, a stall) and performs the actions it returns (events, closing the stream, backing off).
///
/// ```
///            start (device absent, waitForDevice)
///                 │
///                 ▼            open ok: deviceConnected, started
///             waiting ─────────────────────────────────────────┐
///                                                              ▼
///  start ──► fresh ──── open ok: started ──────────────────► streaming ◄──── frame: interruptionEnded ──┐
///              │  └─ open refused: fatal ──► failed          │   │                                     │
///              │                                             │   └── no frame for stallTimeout:        │
///              └─ node gone at open: deviceDisconnected      │       wasInterrupted ──► interrupted ───┘
///                           │                                │                           │ (reopens)
///                           ▼            gone: deviceDisconnected                        │
///                     disconnected ◄─────────────────────────┴───────────────────────────┘
///                           │ open ok: deviceConnected, started
///                           └──► streaming (or interrupted, if it was)
/// ```
struct CaptureLoopMachine: Sendable {
    /// The link to the device, as far as events are concerned.
    enum Link: Equatable, Sendable {
        /// Started while the device was absent (``CaptureConfiguration/waitForDevice``): `waiting` was reported.
        case waiting
        /// Not streamed yet with this configuration: a refused format is fatal here.
        case fresh
        /// Frames flow (or the stream was reopened after EIO/an error, with nothing to report).
        case streaming
        /// No frame for the stall timeout: `wasInterrupted` was reported; reopening until a frame comes.
        case interrupted
        /// The node went away: `deviceDisconnected` was reported; `wasInterrupted` says whether it was
        /// interrupted before (then the first frame after reconnecting ends that interruption).
        case disconnected(wasInterrupted: Bool)
        /// A fatal error stopped the session.
        case failed
    }

    /// Why an open failed, as the capture layer classifies it.
    enum OpenFailure: Equatable, Sendable {
        /// The node does not exist (or vanished between the check and the open).
        case absent(String)
        /// Another process holds the device.
        case busy(String)
        /// The device refuses the configuration (size, format).
        case refused(String)
        /// Any other error worth reporting.
        case other(String)
        /// Gone or not a capture device now: wait quietly for it to return.
        case quiet
    }

    /// One read from the stream (``V4L2Stream/next(timeout:)`` without the pixels).
    enum Read: Equatable, Sendable {
        case frame, corrupt, timeout, eio, gone
        case error(String)
    }

    /// What the capture thread does next, in order.
    enum Action: Equatable, Sendable {
        case emit(DeviceEvent.Kind, String?)
        /// Close the stream (it is reopened on the next turn).
        case closeStream
        /// Wait the current retry interval (waking on stop or restart), then double it.
        case backOff
        /// Set the retry interval back to its shortest.
        case resetBackOff
        /// Stop the session with this error.
        case fail(String)
    }

    private(set) var link: Link
    /// Consecutive `EIO`s tolerated before the stream is reopened.
    let eioReopenThreshold: Int
    private var consecutiveEIO = 0
    private var busyReported = false
    private var lastReported: String?

    init(waitingForDevice: Bool, eioReopenThreshold: Int) {
        link = waitingForDevice ? .waiting : .fresh
        self.eioReopenThreshold = eioReopenThreshold
    }

    /// What ``CaptureSession/isInterrupted`` says: between `wasInterrupted`/`deviceDisconnected` and the next frame.
    var isInterrupted: Bool {
        switch link {
        case .interrupted, .disconnected: return true
        default: return false
        }
    }

    /// The events a session reports when its thread starts.
    mutating func started() -> [Action] {
        link == .waiting ? [.emit(.waiting, "no such device yet; starting when it appears")] : []
    }

    /// A new configuration was committed: it has not streamed yet.
    mutating func restarted() {
        if link == .streaming { link = .fresh }
        consecutiveEIO = 0
    }

    /// The stream opened on `path`; `summary` describes the negotiated format.
    mutating func opened(path: String, summary: String) -> [Action] {
        var actions: [Action] = []
        switch link {
        case .waiting:
            actions.append(.emit(.connected, path))
            link = .streaming
        case .disconnected(let wasInterrupted):
            actions.append(.emit(.connected, path))
            link = wasInterrupted ? .interrupted : .streaming
        case .fresh, .streaming, .failed: link = .streaming
        case .interrupted: break
        }
        actions += [.emit(.started, summary), .resetBackOff]
        busyReported = false
        lastReported = nil
        consecutiveEIO = 0
        return actions
    }

    /// The open failed.
    mutating func openFailed(_ failure: OpenFailure) -> [Action] {
        var actions: [Action] = []
        switch failure {
        case .absent(let why):
            // A stalled device whose node then goes (a USB camera pulled while it sent nothing, a loopback device
            // removed) is unplugged too: reported once, and still interrupted when it comes back.
            if link == .fresh || link == .interrupted {
                link = .disconnected(wasInterrupted: link == .interrupted)
                actions.append(.emit(.disconnected, why))
            }
        case .busy(let why):
            if !busyReported {
                busyReported = true
                actions.append(.emit(.runtimeError, why + "; retrying"))
            }
        case .refused(let why):
            if link == .fresh || link == .waiting {
                link = .failed
                return [.emit(.runtimeError, why), .fail(why)]
            }
            actions += report(why)
        case .other(let why):
            actions += report(why)
        case .quiet:
            break
        }
        return actions + [.backOff]
    }

    private mutating func report(_ why: String) -> [Action] {
        guard lastReported != why else { return [] }
        lastReported = why
        return [.emit(.runtimeError, why + "; retrying")]
    }

    /// A read from the open stream.
    mutating func read(_ result: Read) -> [Action] {
        switch result {
        case .frame:
            consecutiveEIO = 0
            if link == .interrupted {
                link = .streaming
                return [.emit(.interruptionEnded, nil)]
            }
            return []
        case .corrupt, .timeout:
            return []
        case .eio:
            consecutiveEIO += 1
            guard consecutiveEIO >= eioReopenThreshold else { return [] }
            defer { consecutiveEIO = 0 }
            return [
                .emit(.runtimeError, "\(consecutiveEIO) consecutive EIO errors from DQBUF; reopening the device"),
                .closeStream,
            ]
        case .gone:
            link = .disconnected(wasInterrupted: link == .interrupted)
            return [
                .closeStream, .emit(.disconnected, "the device went away (POLLERR/ENODEV); waiting for it to return"),
                .resetBackOff,
            ]
        case .error(let why):
            return [.emit(.runtimeError, why + "; reopening"), .closeStream, .backOff]
        }
    }

    /// No frame for `stallTimeout` seconds on an open stream.
    mutating func stalled(stallTimeout: Double) -> [Action] {
        var actions: [Action] = []
        if link == .streaming || link == .fresh {
            link = .interrupted
            actions.append(.emit(.interrupted, "no frame for \(formatRate(stallTimeout)) s; reopening the device"))
        }
        return actions + [.closeStream]
    }
}
