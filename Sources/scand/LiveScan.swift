import ArgumentParser
import Dispatch
import Logging
import ScanCore
import ScanCapture
import ScanKit
import ScanOutput
#if canImport(Glibc)
import Glibc
#endif

/// `scand scan --device`: scans a live capture session until --frames, --duration, SIGINT or SIGTERM.
/// Metadata events and device events (`{"event":"device",…}`) are JSON lines on stdout; device events are
/// also logged on stderr.
enum LiveScan {
    static func run(configuration: CaptureConfiguration, frames: Int?, duration: Double?,
                    output: MetadataOutput, logger: Logger, mode: ScanOutputMode = .json, oneshot: Bool = false,
                    quiet: Bool = false) throws {
        let session = CaptureSession(configuration: configuration)
        let sink = FileDescriptorSink(onFailure: { [session] _ in
            DispatchQueue.global().async { session.stopRunning() }
        })
        let encoder = JSONLinesEncoder()
        session.addEventHandler { event in
            if mode == .json { sink.deliver(encoder.encode(.device(event))) } // --raw: values only
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
            if case .invalidArgument(let m) = error { throw ValidationError(m) }
            logger.critical("\(error)")
            throw ExitCode(ExitStatus.failure)
        }

        var signalSources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { session.stopRunning() }
            source.resume()
            signalSources.append(source)
        }
        if let duration {
            DispatchQueue.global().asyncAfter(deadline: .now() + duration) { session.stopRunning() }
        }

        var scanner = FileScanner(output: output, logger: logger, frameLimit: frames)
        scanner.mode = mode
        scanner.oneshot = oneshot
        scanner.quiet = quiet
        var summary = ScanSummary()
        var failure: (any Error)?
        do {
            try scanner.scan(source: session, sink: sink, summary: &summary)
        } catch {
            failure = error
        }
        session.stopRunning()
        for s in signalSources { s.cancel() }
        let stats = session.statistics
        logger.info("\(configuration.device): captured \(stats.framesCaptured), scanned \(summary.frames), dropped late \(stats.framesDroppedLate), error buffers \(stats.errorBuffers), EIO \(stats.eioErrors), stream starts \(stats.streamStarts)")
        if let failure {
            logger.critical("\(failure)")
            throw ExitCode(ExitStatus.failure)
        }
        if let failure = sink.failure {
            if failure == .readerGone { return }
            logger.critical("\(failure)")
            throw ExitCode(ExitStatus.failure)
        }
        if stats.framesCaptured == 0 {
            let why = session.lastError.map { ": \($0)" } ?? ""
            logger.critical("\(configuration.device): no frame captured\(why)")
            throw ExitCode(ExitStatus.failure)
        }
    }
}
