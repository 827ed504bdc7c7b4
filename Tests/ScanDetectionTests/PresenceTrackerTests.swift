import Testing
import ScanCore
import ScanDetection

@Suite struct PresenceTrackerTests {
    func code(_ value: String, _ type: MetadataObjectType = .qr) -> MetadataObject {
        MetadataObject(type: type, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.2),
                       stringValue: value, payload: Array(value.utf8))
    }

    /// Feeds `frames` (objects per frame) at `fps`, returning "t:transition:value" strings.
    func run(_ tracker: PresenceTracker, _ frames: [[MetadataObject]], fps: Double = 10) -> [String] {
        var out: [String] = []
        for (i, objects) in frames.enumerated() {
            for e in tracker.update(objects: objects, source: "s", frame: i, time: Double(i) / fps) {
                out.append("\(i):\(e.transition.rawValue):\(e.value ?? e.faceID.map(String.init) ?? "?")")
            }
        }
        return out
    }

    @Test func oneAppearedPerShowingThenLostAfterGrace() {
        let t = PresenceTracker(configuration: PresenceConfiguration(lostAfter: 0.5, cooldown: 0))
        let a = code("A")
        // Seen frames 0-9, a one-frame dropout at 5, gone from 10; back at 30-34.
        var frames: [[MetadataObject]] = (0..<40).map { $0 < 10 || (30..<35).contains($0) ? [a] : [] }
        frames[5] = []
        #expect(run(t, frames) == ["0:appeared:A", "14:lost:A", "30:appeared:A", "39:lost:A"])
    }

    @Test func cooldownSuppressesAReturnUntilItEnds() {
        let t = PresenceTracker(configuration: PresenceConfiguration(lostAfter: 0.3, cooldown: 1.0))
        let a = code("A")
        // Seen 0-4, lost at frame 7 (0.4 + 0.3); cooldown until 1.7 s; seen again from 10 to 25.
        let frames: [[MetadataObject]] = (0..<26).map { $0 < 5 || $0 >= 10 ? [a] : [] }
        #expect(run(t, frames) == ["0:appeared:A", "7:lost:A", "17:appeared:A"])
    }

    @Test func debounceNeedsEnoughSightings() {
        let t = PresenceTracker(configuration: PresenceConfiguration(appearAfterFrames: 3, lostAfter: 0.2, cooldown: 0))
        let a = code("A")
        let frames: [[MetadataObject]] = [[a], [a], [], [], [], [a], [a], [a], [a]]
        #expect(run(t, frames) == ["7:appeared:A"])
    }

    @Test func valuesAndTypesAreSeparatePresences() {
        let t = PresenceTracker(configuration: PresenceConfiguration(lostAfter: 0.15, cooldown: 0))
        let frames: [[MetadataObject]] = [[code("A"), code("B"), code("A", .code128)], [code("A")], [code("A")], [code("A")]]
        #expect(run(t, frames) == ["0:appeared:A", "0:appeared:B", "0:appeared:A", "2:lost:B", "2:lost:A"])
        #expect(t.flush(source: "s", frame: 4, time: 0.4).map(\.value) == ["A"])
        #expect(t.trackedCount == 0)
    }

    @Test func facesAreTrackedByFaceIDWithTheirOwnGrace() {
        let t = PresenceTracker(configuration: PresenceConfiguration(lostAfter: 5, cooldown: 5, faceLostAfter: 0.2))
        func face(_ id: Int) -> MetadataObject {
            MetadataObject(type: .face, bounds: NormalizedRect(x: 0, y: 0, width: 0.1, height: 0.1), faceID: id)
        }
        let frames: [[MetadataObject]] = [[face(1)], [face(1), face(2)], [face(2)], [face(2)], [face(2)], [face(1)]]
        #expect(run(t, frames) == ["0:appeared:1", "1:appeared:2", "3:lost:1", "5:appeared:1"])
    }

    @Test func externallyTrackedTypesAreLeftAlone() {
        let t = PresenceTracker(configuration: PresenceConfiguration(lostAfter: 0.2, cooldown: 0))
        t.externallyTracked = [.face]
        let face = MetadataObject(type: .face, bounds: NormalizedRect(x: 0, y: 0, width: 0.1, height: 0.1), faceID: 7)
        #expect(run(t, [[face, code("A")], [face], [face], [face]]) == ["0:appeared:A", "2:lost:A"])
    }
}
