import Foundation
import Logging
import ScanCapture
import ScanCore
import ScanDaemon
import ScanDetection
import ScanKit
import ScanOutput
import ScanTestSupport
import Testing

/// The cameras of one run (issue 49), on the real pipeline: zbar on the generated QR clip, two cameras.
@Suite struct CameraSetTests {
    @Test("two cameras on one bus: one seq, each event under its camera, the set ends once, after the last")
    func twoCamerasOneBus() throws {
        let path = Fixtures.path("clip-mono.y4m")
        let sink = CollectingSink()
        let bus = EventFanOut(sinks: [sink], logger: Logger(label: "test"))
        let ends = Locked<[DaemonEnd]>([])
        var configuration = DaemonConfiguration()
        configuration.pacing = false
        let members = ["left", "right"].map { name in
            CameraSet.Member(
                name: name, configuration: configuration,
                source: DaemonSource(name: path, canReopen: false) { try openFileSource(path: path) })
        }
        let cameras = CameraSet(members: members, bus: bus, logger: Logger(label: "test")) { end in
            ends.withLock { $0.append(end) }
            ends.broadcast()
        }
        try cameras.start()
        let ended = ends.withLock(waitingUntil: { !$0.isEmpty }, deadline: .now.advanced(by: .seconds(60))) { $0 }
        cameras.stop()
        #expect(ended == [.sourceEnded])
        let events = sink.events
        #expect(events.compactMap(\.seq) == (1...UInt64(events.count)).map { $0 })
        #expect(Set(events.compactMap(\.camera)) == ["left", "right"] && events.allSatisfy { $0.camera != nil })
        let appeared = { (camera: String) in
            events.filter { $0.camera == camera && $0.name == "appeared" }.map { String(decoding: $0.line, as: UTF8.self) }
        }
        #expect(appeared("left").count == appeared("right").count && !appeared("left").isEmpty)
        #expect(appeared("left").allSatisfy { $0.contains(#""camera":"left""#) })
        // Both cameras' frames and the counters summed.
        #expect(cameras.statistics.framesProcessed == 2 * cameras.daemons[0].statistics.framesProcessed)
        #expect(Set(cameras.sourceStates().compactMap(\.camera)) == ["left", "right"])
    }

    @Test("the same value in view of two cameras is two presences, each lost on its own camera")
    func presenceIsPerCamera() {
        let bus = EventFanOut(sinks: [], logger: Logger(label: "test"))
        let qr = PresenceEvent(transition: .appeared, type: .qr, value: "A", payload: Array("A".utf8), source: "s", frame: 0, time: 0)
        bus.emit([.presence(qr)], camera: "left")
        bus.emit([.presence(qr)], camera: "right")
        #expect(bus.snapshot().present.compactMap(\.camera) == ["left", "right"])
        var lost = qr
        lost.transition = .lost
        bus.emit([.presence(lost)], camera: "left")
        #expect(bus.snapshot().present.compactMap(\.camera) == ["right"])
        bus.emit([.device(DeviceEvent(kind: .started, device: "/dev/video0"))], camera: "left")
        #expect(bus.lastDeviceKind("/dev/video0", camera: "left") == .started)
        #expect(bus.lastDeviceKind("/dev/video0", camera: "right") == nil)
    }

    @Test("trackers that share a sequence never hand out one identifier twice")
    func sharedIdentifiers() {
        let ids = IdentifierSequence()
        let a = CodeTracker(identifiers: ids)
        let b = CodeTracker(identifiers: ids)
        let object = MetadataObject(
            type: .qr, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.2), stringValue: "A")
        let first = a.update([object], source: "a", time: 0, width: 640, height: 480).compactMap(\.trackID)
        let second = b.update([object], source: "b", time: 0, width: 640, height: 480).compactMap(\.trackID)
        #expect(first == [1] && second == [2])
        // A tracker of its own numbers from 1, as before.
        #expect(CodeTracker().update([object], source: "c", time: 0, width: 640, height: 480).compactMap(\.trackID) == [1])
    }

    @Test("the config file's cameras take the top level's settings and their own over them")
    func configCameras() throws {
        let text = #"""
            {"types": ["qr"], "scanDensity": 3, "fps": 15, "presence": {"lostAfter": 2},
             "cameras": {"plate": {"device": "/dev/video1", "types": ["ean13"], "presence": {"cooldown": 1}},
                         "door": {"input": "door.y4m", "preset": "hd1280x720"}}}
            """#
        let file = try DaemonConfigFile.parse(Array(text.utf8), name: "t.json")
        #expect(file.cameras.map(\.name) == ["door", "plate"])
        let door = file.cameras[0].settings
        let plate = file.cameras[1].settings
        #expect(door.input == "door.y4m" && door.device == nil && door.types == "qr" && door.scanDensity == 3)
        #expect(door.preset == .hd1280x720 && door.fps == 15)
        #expect(plate.device == "/dev/video1" && plate.input == nil && plate.types == "ean13" && plate.scanDensity == 3)
        #expect(plate.presence.lostAfter == 2 && plate.presence.cooldown == 1)
        #expect(file.presence.cooldown == nil, "an entry never changes the top level")
    }
}
