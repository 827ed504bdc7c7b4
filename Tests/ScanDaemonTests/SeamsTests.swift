import Testing
import Foundation
import ScanCore
import ScanKit
import ScanDaemon
import ScanOutput
import ScanCapture
import ScanTestSupport
import Logging

/// The seams other services plug into: the event fan-out and the frame output, on the real pipeline
/// (zbar on the generated QR clip).
@Suite struct SeamsTests {
    /// Runs the daemon on `clip-mono.y4m` without pacing until its source ends, then stops it.
    func runClip(_ body: (Daemon) -> Void = { _ in }) throws -> (Daemon, CollectingSink) {
        let path = Fixtures.path("clip-mono.y4m")
        let sink = CollectingSink()
        let ended = Monitor()
        nonisolated(unsafe) var end: DaemonEnd?
        let source = DaemonSource(name: path, canReopen: true) { try openFileSource(path: path) }
        var configuration = DaemonConfiguration(pacing: false)
        configuration.output.metadataObjectTypes = [.qr]
        let daemon = Daemon(configuration: configuration, source: source, sinks: [sink], logger: Logger(label: "test")) { e in
            ended.withLock { end = e; ended.broadcast() }
        }
        body(daemon)
        try daemon.start()
        let deadline = MonotonicInstant.now.advanced(by: .seconds(60))
        ended.withLock { while end == nil && MonotonicInstant.now < deadline { ended.wait(until: deadline) } }
        #expect(ended.withLock { end } == .sourceEnded)
        daemon.stop()
        return (daemon, sink)
    }

    @Test("a subscribed sink and an event stream get the same numbered events as the fixed sinks")
    func fanOutGivesEverySubscriberTheSameStream() async throws {
        let extra = CollectingSink()
        nonisolated(unsafe) var stream: AsyncStream<PublishedEvent>?
        let (_, fixed) = try runClip { daemon in
            _ = daemon.events.subscribe(extra)
            stream = daemon.events.events(bufferingNewest: 10_000)
        }
        var published: [PublishedEvent] = []
        for await e in stream! { published.append(e) } // ends: the daemon closed the fan-out
        let fixedSeqs = fixed.events.compactMap(\.seq)
        #expect(fixedSeqs.count > 10 && fixedSeqs == Array(1...UInt64(fixedSeqs.count)))
        #expect(extra.events.compactMap(\.seq) == fixedSeqs)
        #expect(published.map(\.seq) == fixedSeqs)
        #expect(published.map(\.encoded.line) == fixed.events.map(\.line))
        let appeared = published.compactMap { p -> String? in
            if case .presence(let e) = p.event, e.transition == .appeared { return e.value }
            return nil
        }
        #expect(appeared.contains("FRAME-GROUP-1"), "appeared: \(appeared)")
    }

    @Test("an unsubscribed sink gets nothing more")
    func unsubscribeStopsDelivery() throws {
        let extra = CollectingSink()
        let fanOut = EventFanOut(sinks: [], logger: Logger(label: "test"))
        let token = fanOut.subscribe(extra)
        fanOut.emit([.device(DeviceEvent(kind: .started, device: "a"))])
        fanOut.unsubscribe(token)
        fanOut.emit([.device(DeviceEvent(kind: .stopped, device: "a"))])
        #expect(extra.events.compactMap(\.seq) == [1])
        #expect(fanOut.count == 2)
    }

    @Test("a beforeSinks subscriber gets each event before the daemon's own sinks (the MQTT spool: printed implies spooled)")
    func beforeSinksSubscriberIsFirst() throws {
        final class Recorder: EventSink, @unchecked Sendable {
            // Invariant for @unchecked Sendable: `order` is touched only under `lock`.
            let lock = Lock(); var order: [String] = []; let name: String; let shared: Recorder?
            init(_ name: String, shared: Recorder?) { self.name = name; self.shared = shared }
            func deliver(_ event: EncodedEvent) { let r = shared ?? self; r.lock.withLock { r.order.append("\(name)\(event.seq ?? 0)") } }
            func finish() {}
        }
        let log = Recorder("log", shared: nil)
        let fanOut = EventFanOut(sinks: [Recorder("stdout", shared: log)], logger: Logger(label: "test"))
        _ = fanOut.subscribe(Recorder("late", shared: log))
        let early = fanOut.subscribe(Recorder("early", shared: log), beforeSinks: true)
        fanOut.emit([.device(DeviceEvent(kind: .started, device: "a")), .device(DeviceEvent(kind: .stopped, device: "a"))])
        fanOut.unsubscribe(early)
        fanOut.emit([.device(DeviceEvent(kind: .started, device: "a"))])
        #expect(log.lock.withLock { log.order } == ["early1", "stdout1", "late1", "early2", "stdout2", "late2", "stdout3", "late3"])
    }

    @Test("frames carry their own metadata objects and encode to a JPEG of the frame's size")
    func frameOutputDeliversFramesWithTheirObjects() async throws {
        nonisolated(unsafe) var frames: AsyncStream<VideoFrame>?
        let (daemon, _) = try runClip { daemon in frames = daemon.frameOutput.frames(bufferingNewest: 1000) }
        var got: [VideoFrame] = []
        for await f in frames! { got.append(f) }
        #expect(got.count == daemon.statistics.framesProcessed)
        #expect(got.map(\.frame.index) == Array(0..<got.count))
        for f in got { #expect(f.metadata.frame == f.frame.index && f.metadata.width == f.size.width) }
        let withQR = try #require(got.first { $0.metadata.objects.contains { $0.stringValue == "FRAME-GROUP-1" } })
        let jpeg = try withQR.jpegData(quality: 90)
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        // Decoded again (libjpeg-turbo through ImageSource), it is the same picture: same size, close pixels.
        let decoded = try #require(try ImageSource(name: "preview.jpg", bytes: jpeg).nextFrame())
        #expect(decoded.size == withQR.size)
        var diff = 0
        for y in 0..<decoded.height { for x in 0..<decoded.width { diff += abs(Int(decoded.luma[x, y]) - Int(withQR.frame.luma[x, y])) } }
        #expect(Double(diff) / Double(decoded.width * decoded.height) < 4, "mean absolute difference per pixel")
    }

    @Test("a subscriber that never reads slows nothing: every frame is processed and it keeps only the newest")
    func stalledSubscriberKeepsOnlyTheNewest() async throws {
        nonisolated(unsafe) var frames: AsyncStream<VideoFrame>?
        let (daemon, fixed) = try runClip { daemon in frames = daemon.frameOutput.frames(bufferingNewest: 1) }
        let processed = daemon.statistics.framesProcessed
        #expect(fixed.events.filter { $0.name == "metadata" }.count == processed)
        var got: [Int] = []
        for await f in frames! { got.append(f.frame.index) }
        #expect(got == [processed - 1])
    }

    @Test("with no subscriber nothing is built for the frame output")
    func noSubscriberNoWork() async {
        let output = VideoDataOutput()
        let frame = Frame(luma: LumaPlane(width: 2, height: 2, bytes: [0, 0, 0, 0]), index: 0, time: 0)
        let meta = MetadataEvent(source: "s", frame: 0, time: 0, width: 2, height: 2, objects: [])
        nonisolated(unsafe) var built = 0
        output.publish { built += 1; return VideoFrame(frame: frame, metadata: meta) }
        #expect(built == 0 && !output.hasSubscribers)
        let stream = output.frames()
        output.publish { built += 1; return VideoFrame(frame: frame, metadata: meta) }
        #expect(built == 1 && output.hasSubscribers)
        output.close()
        var n = 0
        for await _ in stream { n += 1 }
        #expect(n == 1)
    }
}
