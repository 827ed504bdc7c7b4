import ScanCore
import Testing

@testable import ScanKit

#if canImport(Glibc)
    import Glibc
#endif

/// A file-like source of `count` tiny frames at `fps` (frame i at i / fps seconds), failing after `failAfter`
/// frames when set; or, with `blocking`, a source whose read waits until it is closed (stdin with no data).
private final class ScriptedSource: FrameSource {
    let info: SourceInfo
    private let count: Int
    private let fps: Double
    private let failAfter: Int?
    private let blocking: Bool
    private let state = Locked((next: 0, closed: false))

    init(name: String = "scripted", count: Int, fps: Double = 100, failAfter: Int? = nil, blocking: Bool = false) {
        info = SourceInfo(name: name, frameRate: fps, isLive: false)
        self.count = count
        self.fps = fps
        self.failAfter = failAfter
        self.blocking = blocking
    }

    var isClosed: Bool { state.withLock { $0.closed } }

    func nextFrame() throws -> Frame? {
        if blocking {
            let closed: ((next: Int, closed: Bool)) -> Bool = { $0.closed }
            state.withLock(waitingUntil: closed) { _ in }
            return nil
        }
        let index = try state.withLock { s -> Int? in
            guard !s.closed, s.next < count else { return nil }
            if let failAfter, s.next >= failAfter { throw ScanError.undecodableInput(input: info.name, reason: "cut") }
            defer { s.next += 1 }
            return s.next
        }
        guard let index else { return nil }
        return Frame(
            luma: LumaPlane(width: 4, height: 4, bytes: [UInt8](repeating: 0, count: 16)), index: index,
            time: Double(index) / fps, captureClock: .now)
    }

    func close() {
        state.withLock { $0.closed = true }
        state.broadcast()
    }
}

/// Returns the frame's index after sleeping `seconds` (a detector that takes that long); throws on `failOn`.
private struct SleepyProcessor: FrameProcessor {
    var seconds = 0.0
    var failOn: Int?
    func processFrame(_ frame: Frame, source: SourceInfo) throws -> Int {
        if frame.index == failOn { throw ScanError.detector("stuck on \(frame.index)") }
        if seconds > 0 { usleep(UInt32(seconds * 1e6)) }
        return frame.index
    }
}

/// Records what it was given; stops after `stopAfter` frames; rethrows a processing error when `rethrow`.
private struct Recorder: FrameConsumer {
    typealias Processor = SleepyProcessor
    var results: [Int] = []
    var items: [PipelineFrame] = []
    var failures: [Int] = []
    var stopAfter: Int?
    var rethrow = false

    mutating func consume(_ item: PipelineFrame, _ result: Int) -> Bool {
        results.append(result)
        items.append(item)
        return stopAfter.map { results.count < $0 } ?? true
    }

    mutating func processingFailed(_ item: PipelineFrame, error: any Error) throws {
        failures.append(item.frame.index)
        if rethrow { throw error }
    }
}

private final class ReadCounts: Sendable {
    let state = Locked((read: 0, dropped: 0))
    var observer: ReadObserver {
        ReadObserver(frameRead: { [state] dropped in
            state.withLock {
                $0.read += 1
                $0.dropped += dropped
            }
        })
    }
    var read: Int { state.withLock { $0.read } }
    var dropped: Int { state.withLock { $0.dropped } }
}

@Suite struct FramePipelineTests {
    @Test(
        "lossless hand-offs give every frame in order, read on this thread or ahead on a source thread",
        arguments: [0, 3])
    func losslessKeepsEveryFrame(readAhead: Int) throws {
        let source = ScriptedSource(count: 20)
        let counts = ReadCounts()
        var pipeline = FramePipeline(
            settings: PipelineSettings(handOff: .lossless(readAhead: readAhead)),
            processor: SleepyProcessor(seconds: 0.002))
        var recorder = Recorder()
        let end = try pipeline.run(source: source, observer: counts.observer, consumer: &recorder)
        guard case .sourceEnded = end else {
            Issue.record("ended \(end)")
            return
        }
        #expect(recorder.results == Array(0..<20))
        #expect(recorder.items.map(\.number) == Array(0..<20))
        #expect(counts.read == 20 && counts.dropped == 0)
        #expect(pipeline.control.joinReader(timeout: .seconds(5)))
        #expect(source.isClosed)
    }

    @Test("newest wins: a slow detector skips frames, each skipped frame is counted, and the last frame is read")
    func newestWinsDropsAndCounts() throws {
        let source = ScriptedSource(count: 60, fps: 200)
        let counts = ReadCounts()
        var pipeline = FramePipeline(
            settings: PipelineSettings(handOff: .newestWins, pacing: true), processor: SleepyProcessor(seconds: 0.02))
        var recorder = Recorder()
        _ = try pipeline.run(source: source, observer: counts.observer, consumer: &recorder)
        #expect(counts.read == 60)
        #expect(recorder.results.count < 40)
        #expect(counts.dropped == 60 - recorder.results.count)
        #expect(recorder.results == recorder.results.sorted() && Set(recorder.results).count == recorder.results.count)
        #expect(recorder.results.last == 59)
    }

    @Test("pacing offers file frames at their stream time and stamps each as captured when it was due")
    func pacingFollowsStreamTime() throws {
        let source = ScriptedSource(count: 11, fps: 50)
        var pipeline = FramePipeline(
            settings: PipelineSettings(handOff: .newestWins, pacing: true), processor: SleepyProcessor())
        var recorder = Recorder()
        let t0 = MonotonicInstant.now
        _ = try pipeline.run(source: source, consumer: &recorder)
        #expect(t0.elapsed.inSeconds >= 0.19)
        #expect(recorder.results == Array(0..<11))
        let clocks = recorder.items.compactMap(\.frame.captureClock)
        #expect(clocks.count == 11)
        #expect(clocks.first!.duration(to: clocks.last!) >= .milliseconds(190))
    }

    @Test("loop reopens the source at its end, stream times go on, the frame limit counts across passes")
    func loopAndLimit() throws {
        let opened = Locked(0)
        var pipeline = FramePipeline(
            settings: PipelineSettings(loop: true, frameLimit: 7), processor: SleepyProcessor())
        var recorder = Recorder()
        _ = try pipeline.run(
            source: ScriptedSource(count: 3, fps: 10),
            reopen: {
                opened.withLock { $0 += 1 }
                return ScriptedSource(count: 3, fps: 10)
            }, consumer: &recorder)
        #expect(recorder.results == [0, 1, 2, 0, 1, 2, 0])
        #expect(recorder.items.map(\.number) == Array(0..<7))
        let times = recorder.items.map { ($0.streamTime * 10).rounded() }
        #expect(times == [0, 1, 2, 3, 4, 5, 6])
        #expect(opened.withLock { $0 } == 2)
    }

    @Test(
        "a source that fails: the frames read before it are processed, then the failure ends the run, named",
        arguments: [0, 4])
    func sourceFailureEndsAfterEarlierFrames(readAhead: Int) throws {
        let counts = ReadCounts()
        var pipeline = FramePipeline(
            settings: PipelineSettings(handOff: .lossless(readAhead: readAhead)), processor: SleepyProcessor())
        var recorder = Recorder()
        let end = try pipeline.run(
            source: ScriptedSource(name: "cut.y4m", count: 10, failAfter: 4), observer: counts.observer,
            consumer: &recorder)
        guard case .sourceFailed(let name, let error) = end else {
            Issue.record("ended \(end)")
            return
        }
        #expect(name == "cut.y4m")
        #expect("\(error)".contains("cut"))
        #expect(recorder.results == [0, 1, 2, 3])
        #expect(counts.read == 4)
    }

    @Test("a detector error: the consumer either goes on with the next frame or ends the run with it")
    func processingFailures() throws {
        var pipeline = FramePipeline(settings: PipelineSettings(), processor: SleepyProcessor(failOn: 2))
        var goOn = Recorder()
        _ = try pipeline.run(source: ScriptedSource(count: 5), consumer: &goOn)
        #expect(goOn.results == [0, 1, 3, 4] && goOn.failures == [2])
        var stopHere = Recorder(rethrow: true)
        #expect(throws: ScanError.self) { try pipeline.run(source: ScriptedSource(count: 5), consumer: &stopHere) }
        #expect(stopHere.results == [0, 1])
    }

    @Test("a consumer that stops ends the run at once, and the source is closed")
    func consumerStops() throws {
        let source = ScriptedSource(count: 100)
        var pipeline = FramePipeline(settings: PipelineSettings(), processor: SleepyProcessor())
        var recorder = Recorder(stopAfter: 3)
        let end = try pipeline.run(source: source, consumer: &recorder)
        guard case .consumerStopped = end else {
            Issue.record("ended \(end)")
            return
        }
        #expect(recorder.results == [0, 1, 2])
        #expect(source.isClosed)
    }

    @Test("stop() ends a run whose source thread is blocked in a read; the thread ends once the read returns")
    func stopWhileTheSourceBlocks() throws {
        let source = ScriptedSource(count: 0, blocking: true)
        let control = PipelineControl()
        var pipeline = FramePipeline(
            settings: PipelineSettings(handOff: .newestWins), processor: SleepyProcessor(), control: control)
        let stopper = WorkerThread(name: "test-stop") {
            usleep(100_000)
            control.stop()
        }
        var recorder = Recorder()
        let t0 = MonotonicInstant.now
        let end = try pipeline.run(source: source, consumer: &recorder)
        stopper.join()
        guard case .stopped = end else {
            Issue.record("ended \(end)")
            return
        }
        #expect(t0.elapsed.inSeconds < 5)
        #expect(!control.joinReader(timeout: .seconds(0.1)))
        source.close()
        #expect(control.joinReader(timeout: .seconds(5)))
    }
}
