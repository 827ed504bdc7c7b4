import Foundation
import Testing
@testable import ScanHTTP
import ScanCore
import ScanOutput

@Suite("ScanHTTP parts", .timeLimit(.minutes(3)))
struct ScanHTTPTests {
    static func frame(_ index: Int, width: Int = 64, height: Int = 48) -> (Frame, MetadataEvent) {
        let luma = LumaPlane(width: width, height: height, bytes: [UInt8](repeating: UInt8(index % 256), count: width * height))
        return (Frame(luma: luma, index: index, time: Double(index) / 15),
                MetadataEvent(source: "t", frame: index, time: Double(index) / 15, width: width, height: height, objects: []))
    }

    @Test("offering frames encodes nothing; a viewer's JPEG is encoded once per frame however many ask")
    func encodesOnlyOnRequest() async throws {
        let frames = PreviewFrames()
        for i in 0..<100 { let (f, e) = Self.frame(i); frames.offer(f, event: e) }
        #expect(frames.encodeCount == 0)
        let latest = try #require(frames.latest)
        #expect(latest.frame.index == 99)
        let a = try frames.jpeg(of: latest), b = try frames.jpeg(of: latest)
        #expect(a == b && a.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(frames.encodeCount == 1)
    }

    @Test("stream viewers waiting for a part share one encoding of the newest frame; close ends their waits")
    func partsEncodedOncePerFrame() async throws {
        let frames = PreviewFrames()
        defer { frames.close() }
        for i in 0..<10 { let (f, e) = Self.frame(i); frames.offer(f, event: e) }
        #expect(frames.encodeCount == 0, "offering frames encoded them")
        let build: @Sendable (PreviewFrame, [UInt8]) -> [UInt8] = { frame, jpeg in Array("\(frame.frame.index):".utf8) + jpeg }
        // Ten viewers ask for a part newer than nothing: all get frame 9's, encoded once.
        let parts = await withTaskGroup(of: PreviewPart?.self) { group in
            for _ in 0..<10 { group.addTask { await frames.nextPart(after: 0, build: build) } }
            return await group.reduce(into: [PreviewPart?]()) { $0.append($1) }
        }
        #expect(parts.count == 10 && parts.allSatisfy { $0?.bytes.starts(with: Array("9:".utf8)) == true })
        #expect(frames.encodeCount == 1)
        let seen = try #require(parts.first??.generation)
        // Nothing newer: a viewer waits; a new frame is encoded for it; close ends a later wait.
        let waiter = Task { await frames.nextPart(after: seen, build: build) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(frames.encodeCount == 1)
        let (f, e) = Self.frame(10); frames.offer(f, event: e)
        let next = try #require(await waiter.value)
        #expect(next.bytes.starts(with: Array("10:".utf8)) && next.generation > seen)
        #expect(frames.encodeCount == 2)
        let ended = Task { await frames.nextPart(after: next.generation, build: build) }
        try await Task.sleep(for: .milliseconds(50))
        frames.close()
        #expect(await ended.value == nil)
    }

    @Test("the encoding cap: parts for a viewer that always waits are encoded at most maxFramesPerSecond apart")
    func encodingCap() async throws {
        let frames = PreviewFrames(maxFramesPerSecond: 10)
        defer { frames.close() }
        // When each part was built (on the encoder thread), monotonic seconds.
        let log = BuildLog()
        let build: @Sendable (PreviewFrame, [UInt8]) -> [UInt8] = { _, jpeg in log.record(); return jpeg }
        // The pipeline offers a frame every 10 ms (100 fps) on a thread of its own until the viewer is done,
        // however long that takes (the viewer runs on the shared cooperative pool, which other suites' blocking
        // tests can starve for tens of seconds: a producer that stopped early left it waiting for ever).
        // After 120 s a watchdog closes the frames instead: the wait ends and the expectations below fail.
        let started = MonotonicInstant.now
        let producer = WorkerThread(name: "test-producer") {
            var i = 0
            while !log.stopped {
                if started.elapsed.inSeconds > 120 { frames.close(); break }
                let (f, e) = Self.frame(i); frames.offer(f, event: e); i += 1; usleep(10_000)
            }
        }
        // A viewer that asks for the next part as soon as it has one, six times.
        var got: [UInt64] = []
        var seen: UInt64 = 0
        while got.count < 6, let p = await frames.nextPart(after: seen, build: build) { got.append(p.generation); seen = p.generation }
        log.stop()
        _ = producer.join()
        let t = log.times
        #expect(got.count == 6 && t.count == 6 && frames.encodeCount == 6)
        #expect(got == got.sorted() && Set(got).count == got.count, "parts come in frame order, none twice")
        // Uncapped, parts would follow the frames (10 ms apart). With a cap of 10 fps they are 100 ms apart,
        // but the first after an idle spell (a slow viewer) may come 50 ms early; a loaded machine only makes
        // gaps longer.
        let gaps = zip(t.dropFirst(), t).map { $1.duration(to: $0).inSeconds }
        #expect(gaps.allSatisfy { $0 >= 0.045 }, "gaps between encodings: \(gaps)")
        #expect(gaps.reduce(0, +) / Double(gaps.count) >= 0.08, "gaps between encodings: \(gaps)")
    }

    @Test("a waiting viewer gets the newest frame, skipping what it missed; close ends the wait")
    func newestWins() async throws {
        let frames = PreviewFrames()
        for i in 0..<5 { let (f, e) = Self.frame(i); frames.offer(f, event: e) }
        let first = try #require(await frames.next(after: 0))
        #expect(first.frame.index == 4)
        let waiter = Task { await frames.next(after: first.generation) }
        try await Task.sleep(for: .milliseconds(50))
        let (f, e) = Self.frame(5); frames.offer(f, event: e)
        #expect(await waiter.value?.frame.index == 5)
        let ended = Task { await frames.next(after: first.generation + 1) }
        try await Task.sleep(for: .milliseconds(50))
        frames.close()
        #expect(await ended.value == nil)
    }

    @Test("a WebSocket client's queue drops its oldest lines and says how many with an overflow line")
    func clientOverflow() async throws {
        let client = EventClient(id: 1, limit: 3)
        for i in 1...5 {
            client.push(EncodedEvent(name: "device", objectTypes: [], line: Array("{\"n\":\(i)}\n".utf8), seq: UInt64(i)))
        }
        let lines = try #require(await client.next()).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count == 4)
        #expect(lines[0].contains("\"event\":\"overflow\"") && lines[0].contains("\"dropped\":2"))
        #expect(lines.dropFirst() == ["{\"n\":3}\n", "{\"n\":4}\n", "{\"n\":5}\n"])
    }

    @Test("HOST:PORT and token files are checked, with errors that name the input")
    func configuration() throws {
        #expect(try HTTPConfiguration.parseAddress("127.0.0.1:8080") == ("127.0.0.1", 8080))
        #expect(try HTTPConfiguration.parseAddress("[::1]:0") == ("::1", 0))
        #expect(throws: ScanError.self) { try HTTPConfiguration.parseAddress("localhost") }
        #expect(throws: ScanError.self) { try HTTPConfiguration.parseAddress("h:70000") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scand-http-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good"), bad = dir.appendingPathComponent("bad")
        try Data("0123456789abcdef0123\n".utf8).write(to: good)
        try Data("short token\n".utf8).write(to: bad)
        #expect(try HTTPConfiguration.readToken(path: good.path) == "0123456789abcdef0123")
        #expect { try HTTPConfiguration.readToken(path: bad.path) } throws: { "\($0)".contains(bad.path) }
        #expect { try HTTPConfiguration.readToken(path: dir.appendingPathComponent("none").path) } throws: { "\($0)".contains("none") }
        #expect(BearerTokenMiddleware.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!BearerTokenMiddleware.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!BearerTokenMiddleware.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
    }

    @Test("a face box is turned by its roll about its centre, in frame pixels")
    func faceOutline() {
        let face = MetadataObject(type: .face, bounds: NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5), rollAngle: 90)
        let pts = Annotator.outline(of: face, frameSize: PixelSize(width: 200, height: 100))
        // 100×50 px box centred at (100, 50), turned 90° clockwise: top-left (50,25) → (125, 0).
        #expect(abs(pts[0].0 - 125) < 1e-9 && abs(pts[0].1 - 0) < 1e-9)
        #expect(abs(pts[2].0 - 75) < 1e-9 && abs(pts[2].1 - 100) < 1e-9)
    }
}

/// When the encoder built each part, and the producer's stop flag.
private final class BuildLog: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `recorded` and `stopFlag` are touched only under `lock`.
    private let lock = Lock()
    private var recorded: [MonotonicInstant] = []
    private var stopFlag = false
    func record() { lock.withLock { recorded.append(.now) } }
    var times: [MonotonicInstant] { lock.withLock { recorded } }
    func stop() { lock.withLock { stopFlag = true } }
    var stopped: Bool { lock.withLock { stopFlag } }
}
