public import Logging
public import ServiceLifecycle

/// The systemd watchdog (`WatchdogSec=` in the unit): `WATCHDOG=1` every half timeout, but only while the
/// pipeline makes progress. A pipeline thread that has been inside one frame for more than half the timeout
/// (a detector stuck in a C call) stops the pings, and systemd kills and restarts scand; one waiting for
/// frames (a camera being waited for, a stalled pipe, the input's end) is not stuck and keeps them going.
/// With several cameras, the busiest one decides. A process that hangs as a whole stops them too: the check
/// takes each camera's lock.
///
/// Created only when systemd asked for a watchdog (``SystemdNotifier/watchdogTimeout``). It stops with the
/// group's graceful shutdown (systemd does not enforce the watchdog while the unit stops).
public final class WatchdogService: Service, Sendable {
    private let cameras: CameraSet
    private let notifier: SystemdNotifier
    private let logger: Logger
    /// systemd's timeout, in seconds.
    public let timeout: Double

    /// nil when systemd set no watchdog.
    public init?(cameras: CameraSet, notifier: SystemdNotifier, logger: Logger) {
        guard let timeout = notifier.watchdogTimeout else { return nil }
        self.cameras = cameras
        self.notifier = notifier
        self.logger = logger
        self.timeout = timeout
    }

    public func run() async throws {
        let period = timeout / 2
        logger.notice(
            "systemd watchdog: pinging every \(period) s while frames are processed",
            metadata: ["WatchdogSec": "\(timeout)"])
        try? await cancelWhenGracefulShutdown { [self] in
            var stuck = false
            while !Task.isCancelled {
                if let busy = cameras.busyWithFrameFor?.inSeconds, busy > period {
                    if !stuck {
                        stuck = true
                        logger.critical(
                            "the pipeline has been inside one frame for \(Int(busy)) s: watchdog pings stopped; systemd restarts scand within \(timeout) s"
                        )
                        notifier.notify("STATUS=pipeline stuck in a frame for \(Int(busy)) s")
                    }
                } else {
                    if stuck {
                        stuck = false
                        logger.notice("the pipeline moves again: watchdog pings resumed")
                    }
                    notifier.notify("WATCHDOG=1")
                }
                try await Task.sleep(for: .seconds(period))
            }
        }
    }
}
