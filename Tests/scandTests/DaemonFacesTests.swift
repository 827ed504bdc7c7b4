import Foundation
import Testing
import ScanTestSupport

/// `scand run` on a replay with codes and a face (the demo clip): presence for both, one stream of seq.
@Suite struct DaemonFacesTests {
    @Test func replayWithCodesAndAFaceGivesOneAppearedEachAndGaplessSeq() throws {
        let dir = try TemporaryDirectory()
        let clip = dir.url.appendingPathComponent("demo.y4m").path
        _ = try runTool("/usr/bin/python3", [Fixtures.repositoryRoot.appendingPathComponent("demo/make-demo-clip.py").path, clip])
        let r = try ScandBinary.run(["run", "--input", clip, "--stdout", "--exit-at-end", "--no-pacing",
                                     "--types", "qr,ean13,face", "--no-metadata"])
        #expect(r.status == 0)
        let events = try r.jsonLines()
        let seqs = events.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...events.count))
        let appeared = events.filter { $0["event"] as? String == "appeared" }
        #expect(appeared.filter { $0["type"] as? String == "qr" }.map { $0["value"] as? String } == ["https://example.com/login?t=demo-7f3a"])
        #expect(appeared.filter { $0["type"] as? String == "ean13" }.count == 1)
        let faces = appeared.filter { $0["type"] as? String == "face" }
        #expect(faces.count == 1)
        let faceID = try #require(faces.first?["faceID"] as? Int)
        let lostFace = events.filter { $0["event"] as? String == "lost" && $0["type"] as? String == "face" }
        #expect(lostFace.map { $0["faceID"] as? Int } == [faceID])
        // The QR is held up from frame 8 to 37 (15 fps): it appears then, and is lost after the grace period.
        let qrAppeared = try #require(appeared.first { $0["type"] as? String == "qr" })
        #expect(abs((qrAppeared["time"] as? Double ?? -1) - 8.0 / 15.0) < 1e-6)
        #expect(events.contains { $0["event"] as? String == "lost" && $0["type"] as? String == "qr" })
    }
}

/// Face tracking across a SIGHUP reload, and the one face grace setting (issue 14). Fixtures from
/// scripts/make-face-fixtures.
@Suite struct DaemonFaceReloadTests {
    static let faces = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/generated/faces").path

    @Test func sighupInTheMiddleOfAClipKeepsEveryFaceID() throws {
        let dir = DaemonPaths.tempDir("facehup")
        defer { DaemonPaths.remove(dir) }
        let config = dir + "/scand.json"
        try #"{"metadata": true}"#.write(toFile: config, atomically: true, encoding: .utf8)
        // The clip comes through a FIFO from a producer that stops after 80 frames and sends the rest only
        // once the reload is applied, so the reload is in the middle of the clip however slow the machine
        // (under ASan an unpaced file could end before the reload). Unpaced, so no frame is dropped.
        let (producer, d) = try Self.daemonOnGatedClip(dir: dir, config: config, first: 80, rest: 80..<240)
        defer { producer.release(); producer.wait() }
        #expect(d.waitReady())
        #expect(daemonEventually(60) { daemonReadText(d.stdoutPath).split(separator: "\n").count > 60 })
        try #"{"metadata": true, "presence": {"lostAfter": 2.0}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        #expect(daemonEventually(60) { d.stderr.contains("configuration applied") })
        // The reload really happened in the middle of the clip: at most the first 80 frames were reported.
        let reportedAtReload = daemonReadText(d.stdoutPath).split(separator: "\n").count
        #expect(reportedAtReload < 100, "more than the first 80 frames before the reload: \(reportedAtReload) lines")
        producer.release()
        #expect(DaemonRun.wait(d.process, timeout: 120) == 0)
        let events = daemonReadText(d.stdoutPath).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let metadata = events.filter { $0["event"] as? String == "metadata" }
        #expect(metadata.count >= 200, "frames reported: \(metadata.count)")
        let ids = metadata.flatMap { ($0["objects"] as? [[String: Any]] ?? []).compactMap { $0["faceID"] as? Int } }
        #expect(Set(ids) == [1, 2], "faceIDs seen across the reload: \(Set(ids).sorted())")
        let appeared = events.filter { $0["event"] as? String == "appeared" && $0["type"] as? String == "face" }
        #expect(appeared.compactMap { $0["faceID"] as? Int }.sorted() == [1, 2], "one appeared per face: \(appeared)")
        let lost = events.filter { $0["event"] as? String == "lost" && $0["type"] as? String == "face" }
        // Lost only at the end of the input, once per face.
        #expect(lost.compactMap { $0["faceID"] as? Int }.sorted() == [1, 2], "\(lost)")
        #expect(lost.allSatisfy { ($0["frame"] as? Int ?? 0) >= 230 }, "\(lost)")
    }

    @Test func sighupWhileTheSourceIsStalledIsAppliedAtOnce() throws {
        let dir = DaemonPaths.tempDir("stallhup")
        defer { DaemonPaths.remove(dir) }
        let config = dir + "/scand.json"
        try #"{"metadata": true}"#.write(toFile: config, atomically: true, encoding: .utf8)
        // A producer that sends 5 frames and then nothing until released: the daemon has no frame to
        // apply the reload "before"; it must still apply it (and say so) while waiting.
        let (producer, d) = try Self.daemonOnGatedClip(dir: dir, config: config, first: 5, rest: 5..<10)
        defer { producer.release(); producer.wait() }
        #expect(d.waitReady())
        #expect(daemonEventually(60) { daemonReadText(d.stdoutPath).components(separatedBy: "\"metadata\"").count - 1 == 5 })
        try #"{"metadata": false}"#.write(toFile: config, atomically: true, encoding: .utf8)
        d.signal(SIGHUP)
        // No frame can come until `release()` below, so a reload applied now was applied while the source
        // stalled. (No time bound: reading the file and building the detectors takes seconds under ASan.)
        #expect(daemonEventually(60) { d.stderr.contains("configuration applied") }, "\(d.stderr)")
        producer.release()
        #expect(DaemonRun.wait(d.process, timeout: 60) == 0)
        let events = daemonReadText(d.stdoutPath).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // The 5 frames after the reload were processed under the new configuration: no metadata events.
        let frames = events.filter { $0["event"] as? String == "metadata" }.compactMap { $0["frame"] as? Int }
        #expect(frames == Array(0..<5), "metadata frames: \(frames)")
        #expect(d.stderr.contains("frames=10"), "\(d.stderr)")
    }

    /// `scand run --config config --types face --no-pacing` on `steady.y4m` (240 frames of 640×480) played
    /// through a FIFO in `dir`: the header and the first `first` frames at once, the frames `rest` once the
    /// returned writer is released. The caller releases and waits for the writer.
    static func daemonOnGatedClip(dir: String, config: String, first: Int, rest: Range<Int>) throws
        -> (GatedFIFOWriter, DaemonProcess) {
        let clip = try Data(contentsOf: URL(fileURLWithPath: faces + "/steady.y4m"))
        let headerEnd = try #require(clip.firstIndex(of: 0x0A)) + 1
        let frameBytes = 6 + 640 * 480 * 3 / 2
        #expect((clip.count - headerEnd) % frameBytes == 0 && (clip.count - headerEnd) / frameBytes == 240)
        let fifo = dir + "/steady.y4m"
        signal(SIGPIPE, SIG_IGN) // the producer may outlive a daemon that fails
        #expect(mkfifo(fifo, 0o600) == 0)
        let producer = GatedFIFOWriter(path: fifo, first: clip.prefix(headerEnd + first * frameBytes),
                                       rest: clip[(headerEnd + rest.lowerBound * frameBytes)..<(headerEnd + rest.upperBound * frameBytes)])
        let d = try DaemonProcess(["run", "--config", config, "--input", fifo, "--stdout", "--exit-at-end",
                                   "--no-pacing", "--types", "face", "--log-level", "notice"], dir: dir)
        return (producer, d)
    }

    /// The frame of the face `lost` event of the first faceID, with `args` setting the grace.
    func lostFrame(_ args: [String]) throws -> Int {
        let r = try ScandBinary.run(["run", "--input", Self.faces + "/reenter.y4m", "--stdout", "--exit-at-end", "--no-pacing",
                                     "--types", "face", "--no-metadata"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        let lost = try r.jsonLines().filter { $0["event"] as? String == "lost" && $0["type"] as? String == "face" }
        #expect(Set(lost.compactMap { $0["faceID"] as? Int }).count == lost.count, "one lost per faceID: \(lost)")
        return try #require(lost.first?["frame"] as? Int)
    }

    @Test func presenceEventsFollowTheOneFaceGraceSetting() throws {
        // The face leaves the picture around frame 24 (30 fps); lost comes one grace period after it was last seen.
        let short = try lostFrame(["--face-grace", "0.1"])
        let long = try lostFrame(["--face-grace", "0.5"])
        let alias = try lostFrame(["--face-lost-after", "0.5"])
        #expect(alias == long, "--face-lost-after is an alias of --face-grace")
        #expect(abs((long - short) - 12) <= 2, "0.4 s more grace is 12 frames later: \(short) vs \(long)")
        #expect(short >= 20 && short <= 32, "\(short)")
    }
}

/// Writes `first` into a FIFO as soon as a reader opens it, then `rest` once `release()` is called, then
/// closes it. Gives up (closing the FIFO) if no reader comes within 60 s or `release()` within 180 s.
final class GatedFIFOWriter: @unchecked Sendable {
    // Invariant: the only mutable state is inside `gate` and `done`, which are thread-safe.
    private let gate = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let thread: Thread

    init(path: String, first: Data, rest: Data) {
        let gate = gate, done = done
        thread = Thread {
            defer { done.signal() }
            // Non-blocking open fails with ENXIO until the reader is there; then writes block as usual.
            let deadline = Date().addingTimeInterval(60)
            var fd: Int32 = -1
            while fd < 0 && Date() < deadline {
                fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd < 0 { usleep(20_000) }
            }
            guard fd >= 0 else { return }
            defer { close(fd) }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            func writeAll(_ data: Data) -> Bool {
                data.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                        if n < 0 { if errno == EINTR { continue }; return false }
                        offset += n
                    }
                    return true
                }
            }
            guard writeAll(first) else { return }
            _ = gate.wait(timeout: .now() + 180)
            _ = writeAll(rest)
        }
        thread.start()
    }

    /// Lets the rest of the data go (idempotent enough: extra signals are harmless once the writer is done).
    func release() { gate.signal() }

    /// Waits for the writer to finish (at most 250 s).
    func wait() { if done.wait(timeout: .now() + 250) == .success { done.signal() } }
}

