import Foundation
import Logging
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit
import ScanOutput
import ScanRun
import ScanTestSupport
import Testing

/// A frame source in memory: the test hands it frames; `nextFrame` waits for the next one and returns nil once
/// the source is closed (the daemon closes it when it stops).
final class MemorySource: FrameSource {
    let info = SourceInfo(name: "memory", isLive: true)
    private let frames = BlockingQueue<Frame>()
    private let closedState = Locked(false)
    private let count = Locked(0)

    func push(_ frame: Frame) {
        var f = frame
        f.index = count.withLock { n in
            defer { n += 1 }
            return n
        }
        f.captureClock = .now
        frames.put(f)
    }

    func nextFrame() throws -> Frame? { frames.take() }

    func close() {
        closedState.withLock { $0 = true }
        frames.close()
    }

    var isClosed: Bool { closedState.withLock { $0 } }
}

extension CollectingSink {
    /// The events as JSON objects.
    var objects: [[String: Any]] {
        events.compactMap { try? JSONSerialization.jsonObject(with: Data($0.line)) as? [String: Any] }
    }

    /// Every event's line as text (for failure messages).
    var lines: [String] { events.map { String(decoding: $0.line, as: UTF8.self) } }

    /// Waits (at most `seconds`) until an event passes `test`; returns it.
    func wait(seconds: Double = 120, for test: ([String: Any]) -> Bool) async -> [String: Any]? {
        let deadline = MonotonicInstant.now.advanced(by: .seconds(seconds))
        while MonotonicInstant.now < deadline {
            if let e = objects.first(where: test) { return e }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

/// The daemon's service graph (`DaemonAssembly`, what `scand run` runs) built around an in-memory source and
/// sink instead of a file and stdout, with hangups sent in memory instead of SIGHUP: it starts, applies a
/// reload while running and stops gracefully, in this process and with the real pipeline (zbar, zxing-cpp).
@Suite struct AssemblyTests {
    static func frame(_ fixture: String) throws -> Frame {
        try #require(try ImageSource(path: Fixtures.path(fixture)).nextFrame())
    }

    static func appeared(_ type: String, _ value: String) -> ([String: Any]) -> Bool {
        { $0["event"] as? String == "appeared" && $0["type"] as? String == type && $0["value"] as? String == value }
    }

    @Test("start, reload and graceful stop of the assembled daemon, with an in-memory source and sink")
    func startReloadStop() async throws {
        let qr = try Self.frame("exact.png")  // QR "LOGIN:ab12"
        let ean = try Self.frame("sym-01-ean13.png")  // EAN-13 4006381333931
        var plan = DaemonPlan()
        plan.daemon.output.metadataObjectTypes = [.qr]
        plan.daemon.emitMetadata = false
        var reloaded = plan
        reloaded.daemon.output.metadataObjectTypes = [.qr, .ean13]
        let replanned = reloaded
        let options = DaemonRunOptions(version: "assembly-test", configPath: "memory.conf") { replanned }

        let memory = MemorySource()
        let sink = CollectingSink()
        let (hangups, sendHangup) = HangupTrap.inMemory()
        let source = DaemonSource(name: "memory", canReopen: false) { memory }
        var logger = Logger(label: "assembly-test")
        logger.logLevel = .error
        let assembly = try DaemonAssembly(
            plan: plan, options: options, source: source, sinks: [sink], hangups: hangups, signals: false,
            logger: logger)
        let running = Task { try await assembly.run() }

        // A live source: the daemon keeps only the newest frame, so frames are fed until what is awaited happens
        // (under a sanitizer a frame takes a second or more).
        func feed(_ frame: Frame, until done: () -> Bool) async throws -> Bool {
            let deadline = MonotonicInstant.now.advanced(by: .seconds(120))
            while !done() && MonotonicInstant.now < deadline {
                memory.push(frame)
                try await Task.sleep(for: .milliseconds(30))
            }
            return done()
        }
        let processed = { assembly.daemon.statistics.framesProcessed }

        // Start: frames flow from the source through the stages to the sink.
        let appeared = try await feed(qr) { sink.objects.contains(where: Self.appeared("qr", "LOGIN:ab12")) }
        #expect(appeared, "the QR code appeared: \(sink.lines)")
        // Before the reload, EAN-13 is not a type this run reads.
        let before = processed()
        #expect(try await feed(ean) { processed() >= before + 3 }, "EAN-13 frames were processed")
        #expect(!sink.objects.contains(where: Self.appeared("ean13", "4006381333931")))

        // Reload (what SIGHUP does): the new types apply to the running pipeline, and every sink is told.
        sendHangup()
        let configuration = await sink.wait { $0["event"] as? String == "configuration" }
        let changed = try #require(configuration?["changed"] as? [String: Any], "\(sink.lines)")
        #expect(Set(changed.keys) == ["types"], "only the types changed: \(changed)")
        let ean13 = try await feed(ean) { sink.objects.contains(where: Self.appeared("ean13", "4006381333931")) }
        #expect(ean13, "after the reload the EAN-13 is read: \(sink.lines)")

        // Graceful stop (what SIGTERM does): the pipeline stops first, closes its source, tells the sink what
        // is no longer present, and finishes the sink; run() returns without an error.
        await assembly.stop()
        try await running.value
        // The source thread may be blocked in a read nothing interrupts (stdin with no data); the daemon does not
        // wait for it, and it closes the source as soon as that read returns, reading no further frame.
        memory.push(qr)
        let closeDeadline = MonotonicInstant.now.advanced(by: .seconds(10))
        while !memory.isClosed && MonotonicInstant.now < closeDeadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(memory.isClosed, "the source was closed once its read returned")
        #expect(sink.finished, "the sink was finished")
        let lost = sink.objects.filter { $0["event"] as? String == "lost" }.compactMap { $0["value"] as? String }
        #expect(Set(lost) == ["LOGIN:ab12", "4006381333931"], "both codes were reported lost: \(sink.lines)")
        let seqs = sink.objects.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...seqs.count), "the sink saw every event once, in order")
    }
}
