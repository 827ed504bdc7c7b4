import Testing
import ScanCore
import ScanOutput

@Suite struct SubscriptionTests {
    func event(_ name: String, _ types: Set<MetadataObjectType>) -> EncodedEvent {
        EncodedEvent(name: name, objectTypes: types, line: Array("{}\n".utf8), seq: 1)
    }

    @Test func parsesTypesAndEvents() throws {
        let s = try Subscription.parse(command: Array(#"{"subscribe":{"types":["qr"],"events":["appeared","lost"]}}"#.utf8))
        #expect(s.types == [.qr] && s.events == ["appeared", "lost"])
        #expect(s.matches(event("appeared", [.qr])))
        #expect(!s.matches(event("appeared", [.ean13])))
        #expect(!s.matches(event("metadata", [.qr])))
        let all = try Subscription.parse(command: Array(#"{"subscribe":{}}"#.utf8))
        #expect(all.matches(event("metadata", [])) && all.matches(event("device", [])))
    }

    @Test func cameraFilterKeepsThoseCamerasAndTheProcesssOwnEvents() throws {
        let s = try Subscription.parse(command: Array(#"{"subscribe":{"cameras":["door"],"types":["qr"]}}"#.utf8))
        #expect(s.cameras == ["door"] && s.types == [.qr])
        func on(_ camera: String?, _ name: String = "appeared") -> EncodedEvent {
            EncodedEvent(name: name, objectTypes: [.qr], line: Array("{}\n".utf8), seq: 1, camera: camera)
        }
        #expect(s.matches(on("door")) && !s.matches(on("plate")))
        #expect(s.matches(on(nil, "device")), "an output's failure names no camera: every client gets it")
        #expect(s.matches(camera: "door") && !s.matches(camera: "plate") && s.matches(camera: nil))
        #expect(Subscription().matches(on("plate")))
        let line = String(decoding: ClientLines.subscribed(s), as: UTF8.self)
        #expect(line.contains(#""cameras":["door"]"#), "\(line)")
    }

    @Test func typeFilterPassesDeviceEventsAndMixedFrames() throws {
        let s = try Subscription.parse(command: Array(#"{"subscribe":{"types":["qr"]}}"#.utf8))
        #expect(s.matches(event("device", [])))
        #expect(s.matches(event("metadata", [.qr, .ean13])))
        #expect(!s.matches(event("metadata", [])))
    }

    @Test func rejectsBadCommandsWithAReason() {
        let bad: [(String, String)] = [
            ("nonsense", "malformed"), (#"{"watch":true}"#, "unknown command"),
            (#"{"subscribe":{"types":["qrr"]}}"#, "unknown type 'qrr'"),
            (#"{"subscribe":{"events":["everything"]}}"#, "unknown event 'everything'"),
            (#"{"subscribe":{"types":"qr"}}"#, "malformed"),
        ]
        for (text, reason) in bad {
            #expect(throws: CommandError.self) { try Subscription.parse(command: Array(text.utf8)) }
            do { _ = try Subscription.parse(command: Array(text.utf8)) } catch { #expect(error.message.contains(reason), "\(text): \(error.message)") }
        }
        do { _ = try Subscription.parse(command: [0xFF, 0xFE]) } catch { #expect(error.message.contains("UTF-8")) }
    }
}
