public import Logging
public import ScanCapture
import ScanCore
import ScanOutput
public import ServiceLifecycle

/// How `scand scan --device` ended.
public enum LiveScanEnd: Sendable, Equatable {
    /// Frames, duration, a signal, `--oneshot`, or the stdout reader going away.
    case finished
    /// The device could not be opened: a usage error (bad format, size, …); the message says why.
    case invalidArgument(String)
    /// The device, the scan or stdout failed, or no frame was captured; the message says what.
    case failed(String)
}

/// `scand scan --device`: scans a live capture session until `frames`, `duration`, SIGINT or SIGTERM.
/// Metadata events and device events (`{"event":"device",…}`) are JSON lines on stdout; device events are
/// also logged on stderr.
///
/// The scan runs on a thread of its own inside a ``LiveScanService``, in a `ServiceGroup` whose graceful
/// shutdown (SIGTERM/SIGINT) stops the session: the same service code as `scand run`.
public enum LiveScan {
    public static func run(
        configuration: CaptureConfiguration, frames: Int?, duration: Double?,
        output: sending MetadataOutput, logger: Logger, mode: ScanOutputMode = .json,
        oneshot: Bool = false, quiet: Bool = false
    ) async throws -> LiveScanEnd {
        let session = CaptureSession(configuration: configuration)
        let sink = FileDescriptorSink(onFailure: { [session] _ in
            _ = WorkerThread(name: "scand-stop") { session.stopRunning() }
        })
        let encoder = JSONLinesEncoder()
        session.addEventHandler { event in
            if mode == .json { sink.deliver(encoder.encode(.device(event))) }  // --raw: values only
            let text = "\(event.device): \(event.kind.rawValue)" + (event.reason.map { ": \($0)" } ?? "")
            switch event.kind {
            case .runtimeError: logger.error("\(text)")
            case .disconnected, .interrupted: logger.warning("\(text)")
            default: logger.info("\(text)")
            }
        }
        do {
            try session.startRunning()
        } catch let error as ScanError {
            if case .invalidArgument(let m) = error { return .invalidArgument(m) }
            return .failed("\(error)")
        }

        var scanner = FileScanner(output: output, logger: logger, frameLimit: frames)
        scanner.mode = mode
        scanner.oneshot = oneshot
        scanner.quiet = quiet
        let service = LiveScanService(session: session, duration: duration) { [scanner] in
            var summary = ScanSummary()
            do {
                try scanner.scan(source: session, sink: sink, summary: &summary)
                return .success(summary.frames)
            } catch {
                return .failure(.init(message: "\(error)"))
            }
        }
        // The scan ending by itself (frames, duration, --oneshot, stdout gone) ends the group normally.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        let scanned = service.result ?? .success(0)

        session.stopRunning()
        let stats = session.statistics
        let frameCount = (try? scanned.get()) ?? 0
        logger.info(
            "\(configuration.device): captured \(stats.framesCaptured), scanned \(frameCount), dropped late \(stats.framesDroppedLate), error buffers \(stats.errorBuffers), EIO \(stats.eioErrors), stream starts \(stats.streamStarts)"
        )
        if case .failure(let failure) = scanned { return .failed(failure.message) }
        if let failure = sink.failure {
            if failure == .readerGone { return .finished }
            return .failed("\(failure)")
        }
        if stats.framesCaptured == 0 {
            let why = session.lastError.map { ": \($0)" } ?? ""
            return .failed("\(configuration.device): no frame captured\(why)")
        }
        return .finished
    }
}

/// A scan failure's text, as an `Error` for `Result`.
public struct LiveScanFailure: Error, Sendable { public var message: String }

/// Scans a running `CaptureSession` on a dedicated thread (its reads block) until the scan ends by itself,
/// `duration` seconds pass, or the group shuts down gracefully; the last two stop the session, which ends
/// the scan after its current frame.
public final class LiveScanService: Service, Sendable {
    private let session: CaptureSession
    private let duration: Double?
    /// Called once, by ``run()``, on a thread of its own: the only user of the state it captured.
    private let scan: HandOver<() -> Result<Int, LiveScanFailure>>
    private let outcome = Locked<Result<Int, LiveScanFailure>?>(nil)

    public init(session: CaptureSession, duration: Double?, scan: sending @escaping () -> Result<Int, LiveScanFailure>)
    {
        self.session = session
        self.duration = duration
        self.scan = HandOver(scan)
    }

    /// The scan's result (frames scanned, or its failure) once ``run()`` returned.
    public var result: Result<Int, LiveScanFailure>? { outcome.withLock { $0 } }

    public func run() async throws {
        let session = self.session
        let duration = self.duration
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                let scan = self.scan
                let r = await onDedicatedThread { scan.value() }
                self.outcome.withLock { $0 = r }
            }
            group.addTask {
                // Ends on graceful shutdown (stop the session) or when cancelled (the scan ended first).
                if (try? await gracefulShutdown()) != nil { session.stopRunning() }
            }
            if let duration {
                group.addTask {
                    if (try? await Task.sleep(for: .seconds(duration))) != nil { session.stopRunning() }
                }
            }
            await group.next()
            // Whatever ended first, the session stops so the scan thread returns; then wait for it.
            session.stopRunning()
            group.cancelAll()
        }
    }
}
