import Testing
import Foundation
import ScanCore
import ScanKit
import ScanDaemon
import ScanOutput
import ScanCapture
import Logging
import ScanTestSupport

@Suite struct DaemonPipelineTests {
    /// A blank mono Y4M file of `frames` frames at 25 fps.
    func blankY4M(frames: Int) throws -> String {
        let path = NSTemporaryDirectory() + "scand-blank-\(getpid())-\(Int.random(in: 0..<1_000_000)).y4m"
        var data = Data("YUV4MPEG2 W64 H48 F25:1 Ip A1:1 Cmono\n".utf8)
        for _ in 0..<frames { data += Data("FRAME\n".utf8); data += Data(repeating: 128, count: 64 * 48) }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func deviceEventsAreNumberedInTheSameStreamAndEveryFrameIsPublished() throws {
        let path = try blankY4M(frames: 50)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = CollectingSink()
        let devices = ManualDeviceEvents()
        let ended = Lock()
        nonisolated(unsafe) var end: DaemonEnd?
        let source = DaemonSource(name: path, canReopen: true, deviceEvents: devices) { try openFileSource(path: path) }
        let daemon = Daemon(configuration: DaemonConfiguration(pacing: false), source: source, sinks: [sink],
                            logger: Logger(label: "test")) { e in ended.withLock { end = e } }
        try daemon.start()
        // A camera reports its own `started` (with the negotiated format); the daemon adds none for it.
        devices.send(DeviceEvent(kind: .started, device: "/dev/video0", reason: "640x480 YU12 at 30 fps"))
        devices.send(DeviceEvent(kind: .interrupted, device: "/dev/video0"))
        devices.send(DeviceEvent(kind: .interruptionEnded, device: "/dev/video0"))
        let deadline = Date().addingTimeInterval(20)
        while ended.withLock({ end == nil }) && Date() < deadline { usleep(10_000) }
        #expect(ended.withLock { end } == .sourceEnded)
        daemon.stop()
        let events = sink.events
        #expect(events.compactMap(\.seq) == Array(1...UInt64(events.count)))
        #expect(events.filter { $0.name == "metadata" }.count == 50, "--no-pacing drops no frame")
        let device = events.filter { $0.name == "device" }.map { String(decoding: $0.line, as: UTF8.self) }
        #expect(device.count == 4)
        #expect(device.first?.contains(#""kind":"started""#) == true && device.last?.contains(#""kind":"stopped""#) == true)
        #expect(device.filter { $0.contains(#""kind":"started""#) }.count == 1, "one started event: \(device)")
        #expect(device.contains { $0.contains(#""kind":"wasInterrupted""#) } && device.contains { $0.contains(#""kind":"interruptionEnded""#) })
        #expect(daemon.statistics.framesProcessed == 50)
    }

    @Test func loopingContinuesStreamTimeAndStopEndsIt() throws {
        let path = try blankY4M(frames: 10)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = CollectingSink()
        let source = DaemonSource(name: path, canReopen: true) { try openFileSource(path: path) }
        var config = DaemonConfiguration(pacing: false, loop: true)
        config.emitMetadata = true
        let daemon = Daemon(configuration: config, source: source, sinks: [sink], logger: Logger(label: "test")) { _ in }
        try daemon.start()
        let deadline = Date().addingTimeInterval(20)
        while sink.events.count < 40 && Date() < deadline { usleep(10_000) }
        daemon.stop()
        let frames = sink.events.filter { $0.name == "metadata" }.count
        #expect(frames >= 35, "the 10-frame file loops")
        #expect(sink.events.last.map { String(decoding: $0.line, as: UTF8.self).contains(#""kind":"stopped""#) } == true)
    }
}
