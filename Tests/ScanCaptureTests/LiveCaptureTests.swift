import Testing
import ScanCore
import ScanCapture
#if canImport(Glibc)
import Glibc
#endif

/// Runs against a real V4L2 device named by `SCAND_TEST_DEVICE` (the VM suite sets it to vivid's node);
/// skipped elsewhere. Uses the public API only.
private let liveDevice: String? = getenv("SCAND_TEST_DEVICE").map { String(cString: $0) }

private final class EventLog: @unchecked Sendable {
    private let lock = Lock()
    private var events: [DeviceEvent] = []
    func append(_ e: DeviceEvent) { lock.withLock { events.append(e) } }
    var kinds: [DeviceEvent.Kind] { lock.withLock { events.map(\.kind) } }
}

/// Waits for a frame of `size`, for at most `seconds`.
private func frame(of size: PixelSize, from session: CaptureSession, within seconds: Double) throws -> Frame? {
    let deadline = MonotonicInstant.now.advanced(by: .seconds(seconds))
    while MonotonicInstant.now < deadline {
        if let f = try session.nextFrame(timeout: MonotonicInstant.now.duration(to: deadline)), f.size == size { return f }
    }
    return nil
}

@Suite(.serialized, .enabled(if: liveDevice != nil, "set SCAND_TEST_DEVICE to a capture device (the VM suite does)"))
struct LiveCaptureTests {
    @Test func commitConfigurationRestartsStreamingOnceAndRefusalsApplyNothing() throws {
        let vga = PixelSize(width: 640, height: 480), hd = PixelSize(width: 1280, height: 720)
        let session = CaptureSession(configuration: CaptureConfiguration(device: liveDevice!, frameSize: vga, frameRate: 15))
        let log = EventLog()
        session.addEventHandler { log.append($0) }
        #expect(session.canSetSessionPreset(.hd1280x720))
        try session.startRunning()
        defer { session.stopRunning() }
        let first = try #require(try frame(of: vga, from: session, within: 5))
        let second = try #require(try session.nextFrame(timeout: .seconds(2)))
        #expect(second.index > first.index && second.time > first.time)
        #expect(second.sequence! > first.sequence!)
        #expect(session.state == .running)
        #expect(session.info.isLive && session.info.frameRate == 15)

        session.beginConfiguration()
        session.frameSize = hd
        session.frameRate = nil
        try session.commitConfiguration()
        _ = try #require(try frame(of: hd, from: session, within: 5))
        #expect(session.statistics.streamStarts == 2)
        #expect(session.activeFormat?.size == hd)

        // A size the device does not offer: commit throws and nothing changes.
        session.beginConfiguration()
        session.frameSize = PixelSize(width: 1000, height: 701)
        #expect(throws: ScanError.self) { try session.commitConfiguration() }
        #expect(session.frameSize == hd)
        let after = try #require(try session.nextFrame(timeout: .seconds(2)))
        #expect(after.size == hd)
        #expect(session.statistics.streamStarts == 2)

        session.stopRunning()
        #expect(session.state == .stopped)
        #expect(try session.nextFrame() == nil)
        #expect(log.kinds == [.started, .started, .stopped])
    }

    @Test func theNewestFrameWinsAndLateFramesAreDropped() throws {
        let session = CaptureSession(configuration: CaptureConfiguration(device: liveDevice!, sessionPreset: .vga640x480, frameRate: 25))
        try session.startRunning()
        defer { session.stopRunning() }
        _ = try #require(try session.nextFrame(timeout: .seconds(5)))
        usleep(1_000_000)  // do not consume for a second: ~25 frames arrive, one slot keeps the newest
        let a = try #require(try session.nextFrame(timeout: .seconds(1)))
        let b = try #require(try session.nextFrame(timeout: .seconds(1)))
        #expect(session.statistics.framesDroppedLate >= 10)
        #expect(b.sequence! - a.sequence! <= 2)  // nothing queued behind the newest frame
        #expect(b.index - a.index <= 2)
    }

    @Test func deviceEventsArriveAsAnAsyncStream() async throws {
        let session = CaptureSession(configuration: CaptureConfiguration(device: liveDevice!, sessionPreset: .low))
        let events = session.deviceEvents()
        try session.startRunning()
        var iterator = events.makeAsyncIterator()
        let started = await iterator.next()
        #expect(started?.kind == .started)
        #expect(started?.reason?.contains("320x180") == true || started?.reason?.contains("320x240") == true)
        session.stopRunning()
        let stopped = await iterator.next()
        #expect(stopped?.kind == .stopped)
    }
}
