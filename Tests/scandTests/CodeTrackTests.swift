import Foundation
import Testing
import ScanTestSupport

/// Issue 50, as a user runs it: `trackID` on stream objects, `--presence instance`, `--duplicate-filter`.
/// Fixtures: Tests/Fixtures/make_code_tracks.py (the five-card conveyor, a QR that leaves and comes back).
@Suite("Codes as tracked objects (scand)")
struct CodeTrackTests {
    static var conveyor: String { CodeTrackFixtures.path("conveyor.y4m") }
    static var returning: String { CodeTrackFixtures.path("return.y4m") }

    /// The events of `scand run --input INPUT --no-pacing --stdout --no-metadata` with `extra` flags.
    static func presence(_ input: String, _ extra: [String], directory: URL? = nil) throws -> [[String: Any]] {
        let r = try ScandBinary.run(
            ["run", "--input", input, "--no-pacing", "--stdout", "--exit-at-end", "--no-metadata"] + extra,
            directory: directory)
        #expect(r.status == 0, "\(r.stderr)")
        return try r.jsonLines().filter { $0["event"] as? String == "appeared" || $0["event"] as? String == "lost" }
    }

    @Test("the conveyor: two objects wherever two labels are whole in view, one trackID per label, none shared")
    func conveyorObjects() throws {
        let truth = try CodeTrackFixtures.conveyorTruth()
        let r = try ScandBinary.run(["scan", Self.conveyor])
        #expect(r.status == 0, "\(r.stderr)")
        var twoInView = 0, twoReported = 0
        var idsByCard: [Int: [Int]] = [:]
        for line in try r.jsonLines() {
            let frame = try #require(line["frame"] as? Int)
            let cards = truth.frames[frame]
            let objects = line["objects"] as? [[String: Any]] ?? []
            // A label is in view when it is, with half its quiet zones at least (the card has a 10 px margin, the
            // label's quiet zones are 22 and 14 px): zbar needs a quiet zone, and so does any reader.
            if cards.filter({ $0.left + 20 >= 0 && $0.right - 20 <= truth.width }).count == 2 {
                twoInView += 1
                if objects.count == 2 { twoReported += 1 }
            }
            for o in objects {
                #expect(o["value"] as? String == truth.value)
                let b = try #require(o["bounds"] as? [String: Double])
                let x0 = b["x"]! * truth.width, x1 = (b["x"]! + b["width"]!) * truth.width
                let card = try #require(cards.first { x0 >= $0.left && x1 <= $0.right }, "frame \(frame): object at \(x0)...\(x1) on no card")
                idsByCard[card.card, default: []].append(try #require(o["trackID"] as? Int, "a stream object without trackID"))
            }
        }
        #expect(twoInView > 80)
        #expect(twoReported == twoInView, "two labels in view on \(twoInView) frames, two objects on \(twoReported)")
        #expect(idsByCard.keys.sorted() == [0, 1, 2, 3, 4])
        for (card, ids) in idsByCard {
            let switches = zip(ids, ids.dropFirst()).filter { $0 != $1 }.count
            #expect(switches <= 1, "card \(card): trackIDs \(ids)")
        }
        let owners = idsByCard.flatMap { card, ids in Set(ids).map { ($0, card) } }
        #expect(Set(owners.map(\.0)).count == owners.count, "a trackID passed from one label to another")
    }

    @Test("--presence instance: five appeared and five lost, one per label; by value (the default) one")
    func conveyorPresence() throws {
        let instance = try Self.presence(Self.conveyor, ["--presence", "instance"])
        let appeared = instance.filter { $0["event"] as? String == "appeared" }
        #expect(appeared.count == 5)
        let ids = appeared.compactMap { $0["trackID"] as? Int }
        #expect(Set(ids).count == 5)
        #expect(Set(instance.filter { $0["event"] as? String == "lost" }.compactMap { $0["trackID"] as? Int }) == Set(ids))
        let value = try Self.presence(Self.conveyor, [])
        #expect(value.map { $0["event"] as? String } == ["appeared", "lost"])
        #expect(value.allSatisfy { $0["trackID"] == nil })
        // The other spellings: --presence=instance, --presence-by instance.
        #expect(try Self.presence(Self.conveyor, ["--presence=instance"]).count == 10)
        #expect(try Self.presence(Self.conveyor, ["--presence-by", "instance"]).count == 10)
    }

    /// A producer this project did not write: ffmpeg overlays three identical Code 128 labels (zint, 330 px wide,
    /// 400 px apart) on its mandelbrot source, moving right at 180 px/s, written as Y4M. One label is
    /// whole in view at a time; the next enters as the last leaves. (The first tracker gave the third label the
    /// second one's trackID.)
    @Test("ffmpeg's three labels on mandelbrot: three appeared by instance, three trackIDs")
    func ffmpegLabels() throws {
        let dir = try TemporaryDirectory()
        let label = dir.url.appendingPathComponent("label.png").path
        _ = try runTool("/usr/bin/zint", ["-b", "20", "-d", "PARCEL-0042", "--scale", "1", "--whitesp=10", "--vwhitesp=6",
                                          "-o", label])
        let clip = dir.url.appendingPathComponent("labels.y4m").path
        _ = try runTool("/usr/bin/ffmpeg", [
            "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "mandelbrot=s=640x480:r=30", "-i", label,
            "-filter_complex",
            "[1]split=3[c1][c2][c3];[0][c1]overlay=x='t*180-250':y=200[a];[a][c2]overlay=x='t*180-650':y=200[b];[b][c3]overlay=x='t*180-1050':y=200",
            "-t", "10", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", clip])
        let events = try Self.presence(clip, ["--presence", "instance"])
        let appeared = events.filter { $0["event"] as? String == "appeared" }
        #expect(appeared.count == 3, "\(events)")
        #expect(Set(appeared.compactMap { $0["trackID"] as? Int }).count == 3)
        #expect(appeared.allSatisfy { $0["value"] as? String == "PARCEL-0042" })
    }

    /// Issue 50's blurred EAN/UPC class. On the stream's 8th frame the plain pass reads nothing and zbar's
    /// upscaled image gives "1713031134352" for 9506000134352 on 14 scan lines: a left half misread on one
    /// line, joined to the right half read on every line after it (the check digit happens to hold); the still
    /// (the stream's last frame) gives the same on 4 lines. Before the rule that such a read needs a re-read
    /// (ReadConfirmation, `bothHalvesSeen`), scand reported both.
    @Test("a blurred EAN-13 whose left half was misread once: no object with other digits, stream or still")
    func blurredHalf() throws {
        let truth = try CodeTrackFixtures.conveyorTruth()
        let r = try ScandBinary.run(["scan", CodeTrackFixtures.path("blurred-ean.y4m"), CodeTrackFixtures.path("blurred-ean.png")])
        // 4: no object in the input (nothing else reads the blurred label on these frames).
        #expect([0, 4].contains(r.status), "\(r.stderr)")
        let lines = try r.jsonLines()
        #expect(lines.count == 14)
        let values = lines.flatMap { ($0["objects"] as? [[String: Any]] ?? []).map { $0["value"] as? String } }
        #expect(values.allSatisfy { $0 == truth.value }, "\(values)")
    }

    @Test("--duplicate-filter once: one appeared per value in a run, by instance and by value")
    func once() throws {
        let conveyor = try Self.presence(Self.conveyor, ["--presence", "instance", "--duplicate-filter", "once"])
        #expect(conveyor.map { $0["event"] as? String } == ["appeared", "lost"])
        #expect(try Self.presence(Self.returning, []).filter { $0["event"] as? String == "appeared" }.count == 2)
        #expect(try Self.presence(Self.returning, ["--duplicate-filter", "once"]).count == 2)
    }

    @Test("--duplicate-filter SECONDS: not again within that long of the last appeared")
    func window() throws {
        // The QR is in view at 0 s and again at 3 s (frames 0-29 and 90-149 at 30 fps).
        let within5 = try Self.presence(Self.returning, ["--duplicate-filter", "5"])
        #expect(within5.filter { $0["event"] as? String == "appeared" }.map { $0["frame"] as? Int } == [0])
        let within2 = try Self.presence(Self.returning, ["--duplicate-filter", "2"])
        #expect(within2.filter { $0["event"] as? String == "appeared" }.map { $0["frame"] as? Int } == [0, 90])
    }

    @Test("the config file's presence.by and presence.duplicateFilter, and --check-config shows them")
    func configFile() throws {
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("scand.json")
        try Data(#"{"presence": {"by": "instance", "duplicateFilter": "once"}}"#.utf8).write(to: config)
        let events = try Self.presence(Self.conveyor, ["--config", config.path])
        #expect(events.map { $0["event"] as? String } == ["appeared", "lost"])
        #expect(events.first?["trackID"] as? Int != nil)
        let check = try ScandBinary.run(["run", "--check-config", config.path, "--input", Self.conveyor])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdoutText.contains(#""presence.by":"instance""#), "\(check.stdoutText)")
        #expect(check.stdoutText.contains(#""presence.duplicateFilter":"once""#))
        try Data(#"{"presence": {"duplicateFilter": 30}}"#.utf8).write(to: config)
        let seconds = try ScandBinary.run(["run", "--check-config", config.path, "--input", Self.conveyor])
        #expect(seconds.stdoutText.contains(#""presence.duplicateFilter":30"#), "\(seconds.stdoutText)")
    }

    @Test("bad values are usage errors that name the setting")
    func badValues() throws {
        let word = try ScandBinary.run(["run", "--input", Self.returning, "--duplicate-filter", "never"])
        #expect(word.status == 64)
        #expect(word.stderr.contains("--duplicate-filter"), "\(word.stderr)")
        let zero = try ScandBinary.run(["run", "--input", Self.returning, "--duplicate-filter", "0"])
        #expect(zero.status != 0)
        #expect(zero.stderr.contains("--duplicate-filter"), "\(zero.stderr)")
        let mode = try ScandBinary.run(["run", "--input", Self.returning, "--presence-by", "symbol"])
        #expect(mode.status == 64)
        #expect(mode.stderr.contains("--presence-by"), "\(mode.stderr)")
        let dir = try TemporaryDirectory()
        let config = dir.url.appendingPathComponent("scand.json")
        try Data(#"{"presence": {"duplicateFilter": "twice"}}"#.utf8).write(to: config)
        let file = try ScandBinary.run(["run", "--check-config", config.path, "--input", Self.returning])
        #expect(file.status == 1)
        #expect(file.stderr.contains("duplicateFilter"), "\(file.stderr)")
    }

    @Test("structured append as a user sees it: the whole once with sequenceSize, parts marked, a stream joined")
    func structuredAppend() throws {
        let message = "TICKET 2026-11-29 SEAT 14C GATE B7 FLIGHT SK1429"
        let whole = try ScandBinary.run(["scan", CodeTrackFixtures.path("sequence-whole.png")]).jsonLines()
        let objects = try #require(whole.first?["objects"] as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects.first?["value"] as? String == message)
        #expect(objects.first?["sequenceSize"] as? Int == 3 && objects.first?["sequenceIndex"] == nil)
        let parts = try ScandBinary.run(["scan", CodeTrackFixtures.path("sequence-parts.png")]).jsonLines()
        let partObjects = try #require(parts.first?["objects"] as? [[String: Any]])
        #expect(Set(partObjects.compactMap { $0["sequenceIndex"] as? Int }) == [0, 2])
        #expect(partObjects.allSatisfy { $0["sequenceSize"] as? Int == 3 })
        // A stream that shows the parts one after another: the whole message appears once, when the last is read.
        let events = try Self.presence(CodeTrackFixtures.path("sequence.y4m"), [])
        let appeared = events.filter { $0["event"] as? String == "appeared" }
        #expect(appeared.filter { $0["value"] as? String == message }.count == 1, "\(appeared)")
        // Every presence line says what it is: the whole (its size, no place) or a part (its place and the size),
        // so a kiosk that waits for the whole can pass the parts by.
        for e in events {
            #expect(e["sequenceSize"] as? Int == 3, "\(e)")
            let isWhole = e["value"] as? String == message
            #expect((e["sequenceIndex"] == nil) == isWhole, "\(e)")
        }
        #expect(Set(appeared.compactMap { $0["sequenceIndex"] as? Int }) == [0, 1], "\(appeared)")
    }
}
