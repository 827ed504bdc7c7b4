import Testing
import ScanCore
import ScanTestSupport
@testable import ScanDetection

/// Issue 50: `trackID` on every code object of a stream (``CodeTracker``).
@Suite("Code tracks")
struct CodeTrackerTests {
    static let ean: [UInt8] = Array("9506000134352".utf8)

    /// A code object of `payload` whose box (pixels of a 640×480 frame) is `size` square at (`x`, `y`).
    static func code(_ x: Double, _ y: Double, size: Double = 40, payload: [UInt8] = ean) -> MetadataObject {
        MetadataObject(
            type: .ean13, bounds: NormalizedRect(x: x / 640, y: y / 480, width: size / 640, height: size / 480),
            stringValue: String(decoding: payload, as: UTF8.self), payload: payload)
    }

    @Test("50 identical codes on a grid, all drifting and each missed on some frames, keep their IDs")
    func fiftyCodes() {
        let tracker = CodeTracker()
        var ids: [[Int?]] = Array(repeating: [], count: 50)
        var generator = SplitMix(seed: 50)
        for frame in 0..<60 {
            let t = Double(frame) / 30
            var objects: [MetadataObject] = []
            var which: [Int] = []
            for k in 0..<50 {
                // One frame in five a symbol goes unread (glare, blur).
                if Int.random(in: 0..<5, using: &generator) == 0 && frame > 0 { continue }
                let x = Double(k % 10) * 60 + 10 + Double(frame) * 2
                let y = Double(k / 10) * 90 + 20 + Double(frame) * 0.5
                objects.append(Self.code(x, y))
                which.append(k)
            }
            objects.shuffle(using: &generator)  // the reader's order means nothing
            let tracked = tracker.update(objects, source: "belt", time: t, width: 640, height: 480)
            #expect(tracked.count == objects.count)
            for o in tracked {
                let k = which.first { k in
                    let x = Double(k % 10) * 60 + 10 + Double(frame) * 2
                    return abs(o.bounds.x * 640 - x) < 0.5 && abs(o.bounds.y * 480 - (Double(k / 10) * 90 + 20 + Double(frame) * 0.5)) < 0.5
                }!
                ids[k].append(o.trackID)
            }
        }
        for k in 0..<50 { #expect(Set(ids[k]).count == 1, "code \(k): \(Set(ids[k].compactMap { $0 }))") }
        #expect(Set(ids.compactMap { $0.first ?? nil }).count == 50, "an ID was given to two codes")
    }

    @Test("a code lost and read again far away is a new track; near where it was, the same one")
    func farAndNear() {
        let tracker = CodeTracker()
        let a = tracker.update([Self.code(100, 100)], source: "s", time: 0, width: 640, height: 480)[0].trackID
        let near = tracker.update([Self.code(110, 100)], source: "s", time: 0.3, width: 640, height: 480)[0].trackID
        #expect(a != nil && near == a)
        let far = tracker.update([Self.code(500, 400)], source: "s", time: 0.4, width: 640, height: 480)[0].trackID
        #expect(far != nil && far != a)
        // Missed for longer than the tracker keeps a track: a new ID even in place, and no ID is given twice.
        let late = tracker.update([Self.code(500, 400)], source: "s", time: 2.0, width: 640, height: 480)[0].trackID
        #expect(late != far && late != a)
    }

    @Test("a long label leaving and the next one entering its own length behind it are two tracks")
    func nextLabelBehind() {
        let tracker = CodeTracker()
        // 300×60 px labels moving right at 180 px/s (6 px a frame): the first is read from x 0 to 300, then cut off
        // by the frame's edge; 7 frames later the next is read at x 40.
        func label(_ x: Double) -> MetadataObject {
            MetadataObject(
                type: .code128, bounds: NormalizedRect(x: x / 640, y: 200.0 / 480, width: 300.0 / 640, height: 60.0 / 480),
                stringValue: "PARCEL-0042", payload: Array("PARCEL-0042".utf8))
        }
        var first: Set<Int> = []
        for f in 0...50 { first.insert(tracker.update([label(Double(f) * 6)], source: "s", time: Double(f) / 30, width: 640, height: 480)[0].trackID!) }
        var next: Set<Int> = []
        for f in 57...100 { next.insert(tracker.update([label(Double(f - 57) * 6 + 40)], source: "s", time: Double(f) / 30, width: 640, height: 480)[0].trackID!) }
        #expect(first.count == 1 && next.count == 1 && first != next, "\(first) \(next)")
    }

    @Test("two codes with different payloads never share a track, however close")
    func payloads() {
        let tracker = CodeTracker()
        let other = Array("4006381333931".utf8)
        let first = tracker.update([Self.code(100, 100)], source: "s", time: 0, width: 640, height: 480)[0].trackID
        let swapped = tracker.update([Self.code(101, 100, payload: other)], source: "s", time: 0.03, width: 640, height: 480)[0]
        #expect(swapped.trackID != first)
    }

    @Test("two identical codes passing each other keep their IDs (motion continues)")
    func crossing() {
        let tracker = CodeTracker()
        var left: [Int?] = [], right: [Int?] = []
        for frame in 0..<40 {
            let t = Double(frame) / 30
            let a = Self.code(100 + Double(frame) * 10, 200)  // moves right
            let b = Self.code(490 - Double(frame) * 10, 215)  // moves left, a little lower
            let out = tracker.update([a, b], source: "s", time: t, width: 640, height: 480)
            left.append(out[0].trackID)
            right.append(out[1].trackID)
        }
        #expect(Set(left).count == 1 && Set(right).count == 1 && left[0] != right[0], "\(left) \(right)")
    }

    @Test("faces are left alone; a new source starts new tracks numbered from 1, a restarted one goes on")
    func sources() {
        let tracker = CodeTracker()
        let face = MetadataObject(type: .face, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.2, height: 0.2), faceID: 3)
        let out = tracker.update([face, Self.code(100, 100), Self.code(400, 100)], source: "a", time: 5, width: 640, height: 480)
        #expect(out.map(\.trackID) == [nil, 1, 2])
        // The same source from its start again (time goes back): new tracks, the numbers go on.
        let again = tracker.update([Self.code(100, 100)], source: "a", time: 0, width: 640, height: 480)[0].trackID
        #expect(again == 3)
        // Another source: its own numbers, as its own frame numbers.
        let other = tracker.update([Self.code(100, 100)], source: "b", time: 0, width: 640, height: 480)[0].trackID
        #expect(other == 1)
    }
}

/// Issue 50: `--presence instance` and `--duplicate-filter` (``PresenceTracker``).
@Suite("Presence by instance, duplicate filter")
struct PresenceInstanceTests {
    static func code(_ id: Int?, _ value: String = "A") -> MetadataObject {
        MetadataObject(
            type: .qr, bounds: NormalizedRect(x: 0.1, y: 0.1, width: 0.1, height: 0.1), stringValue: value,
            payload: Array(value.utf8), trackID: id)
    }

    /// The events of feeding `frames` (the objects of each frame, 10 frames a second).
    static func events(_ p: PresenceConfiguration, _ frames: [[MetadataObject]]) -> [PresenceEvent] {
        let tracker = PresenceTracker(configuration: p)
        var out: [PresenceEvent] = []
        for (i, objects) in frames.enumerated() {
            out += tracker.update(objects: objects, source: "s", frame: i, time: Double(i) / 10)
        }
        return out + tracker.flush(source: "s", frame: frames.count, time: Double(frames.count) / 10)
    }

    @Test("by value two symbols of one payload are one presence; by instance, two, each with its trackID")
    func byInstance() {
        let frames = Array(repeating: [Self.code(1), Self.code(2)], count: 5)
        let byValue = Self.events(PresenceConfiguration(), frames)
        #expect(byValue.map(\.transition) == [.appeared, .lost])
        #expect(byValue.allSatisfy { $0.trackID == nil })
        let byTrack = Self.events(PresenceConfiguration(by: .instance), frames)
        #expect(byTrack.filter { $0.transition == .appeared }.map(\.trackID) == [1, 2])
        #expect(Set(byTrack.filter { $0.transition == .lost }.compactMap(\.trackID)) == [1, 2])
    }

    @Test("by instance, a new track of a value just lost appears at once (no cooldown)")
    func noCooldownByInstance() {
        var frames = Array(repeating: [Self.code(1)], count: 3)
        frames += Array(repeating: [], count: 12)  // 1.2 s: lost after 1 s
        frames += Array(repeating: [Self.code(2)], count: 3)
        let e = Self.events(PresenceConfiguration(cooldown: 5, by: .instance), frames)
        #expect(e.map(\.transition) == [.appeared, .lost, .appeared, .lost])
        #expect(e.map(\.trackID) == [1, 1, 2, 2])
    }

    /// One value in view, gone for 2 s, back: two presences.
    static let twice: [[MetadataObject]] =
        Array(repeating: [code(nil)], count: 5) + Array(repeating: [], count: 20) + Array(repeating: [code(nil)], count: 5)

    @Test("the duplicate filter: off reports each appearance, once the first only, a window those outside it")
    func duplicateFilter() {
        func appeared(_ f: DuplicateFilter) -> [Int] {
            Self.events(PresenceConfiguration(duplicateFilter: f), Self.twice).filter { $0.transition == .appeared }.map(\.frame)
        }
        #expect(appeared(.off) == [0, 25])
        #expect(appeared(.once) == [0])
        #expect(appeared(.within(5)) == [0])
        #expect(appeared(.within(2)) == [0, 25])
        // A filtered appearance has no `lost` either.
        let once = Self.events(PresenceConfiguration(duplicateFilter: .once), Self.twice)
        #expect(once.map(\.transition) == [.appeared, .lost])
        #expect(once.map(\.frame) == [0, 14])
    }

    @Test("the duplicate filter is per value, and faces are never filtered")
    func perValue() {
        let frames = [[Self.code(nil, "A"), Self.code(nil, "B")]]
        let e = Self.events(PresenceConfiguration(duplicateFilter: .once), frames)
        #expect(e.filter { $0.transition == .appeared }.compactMap(\.value).sorted() == ["A", "B"])
        let face = MetadataObject(type: .face, bounds: NormalizedRect(x: 0, y: 0, width: 0.1, height: 0.1), faceID: 1)
        let faces = Self.events(
            PresenceConfiguration(duplicateFilter: .once),
            [[face]] + Array(repeating: [], count: 10) + [[face]])
        #expect(faces.filter { $0.transition == .appeared }.count == 2)
    }

    @Test("the filter's values parse and print as the flag and the config file give them")
    func parsing() {
        #expect(DuplicateFilter(parsing: "off") == .off)
        #expect(DuplicateFilter(parsing: "ONCE") == .once)
        #expect(DuplicateFilter(parsing: "2.5") == .within(2.5))
        #expect(DuplicateFilter(parsing: "never") == nil)
        #expect(DuplicateFilter(parsing: "nan") == nil)
        #expect(throws: InvalidSetting.self) { try PresenceConfiguration(duplicateFilter: .within(0)).validate() }
        #expect(throws: Never.self) { try PresenceConfiguration(duplicateFilter: .within(0.5)).validate() }
    }
}


/// Several cameras spread their face searches (issue 49): camera k of n shifts its cycle by k / n of the gap
/// between network passes, so two cameras started together never run the network on the same frame.
@Suite struct FaceSearchOffsetTests {
    @Test func twoCamerasNeverSearchOnTheSameFrame() {
        for interval in [4, 8, 16] {
            let passes = { (offset: Double) in
                Set((1..<64).filter { f in
                    let t = FaceTracker.turn(frame: f, interval: interval, searchOffset: offset)
                    return t.position == 0 || t.position == interval / 2
                })
            }
            let first = passes(0), second = passes(0.5)
            #expect(abs(first.count - second.count) <= 1 && first.count >= 63 / interval * 2 - 1, "interval \(interval)")
            #expect(first.isDisjoint(with: second), "interval \(interval): \(first.intersection(second).sorted())")
            #expect(FaceTracker.turn(frame: 0, interval: interval, searchOffset: 0.5).first)
        }
        // One camera alone keeps the cycle it always had.
        #expect((0..<16).map { FaceTracker.turn(frame: $0, interval: 8, searchOffset: 0).position } == (0..<16).map { $0 % 8 })
    }
}
