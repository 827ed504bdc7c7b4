import Foundation
import Testing
import ScanTestSupport

/// What scand printed and returned at the end of a pipeline.
private struct PipedRun {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    /// Every stdout line parsed as a JSON object; throws if a line is not one.
    func jsonLines() throws -> [[String: Any]] {
        try String(decoding: stdout, as: UTF8.self).split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt, userInfo: [NSDebugDescriptionErrorKey: "not a JSON object: \(line)"])
            }
            return object
        }
    }
}

/// `producer | scand scan <arguments>`: both processes real, connected by a pipe; returns scand's result.
private func pipeline(_ producer: String, _ producerArguments: [String], into arguments: [String] = ["-"],
                      directory: URL) throws -> (result: PipedRun, producerStatus: Int32) {
    let dir = try TemporaryDirectory()
    let outURL = dir.url.appendingPathComponent("stdout"), errURL = dir.url.appendingPathComponent("stderr")
    let pipe = Pipe()
    let source = try TestProcess.start(producer, producerArguments, directory: directory, stdout: .pipe(pipe))
    let scand = try TestProcess.start(ScandBinary.url.path, ["scan"] + arguments, directory: directory, stdin: .pipe(pipe),
                                      stdout: .file(outURL.path), stderr: .file(errURL.path))
    try? pipe.fileHandleForWriting.close()
    try? pipe.fileHandleForReading.close()
    scand.waitUntilExit()
    source.waitUntilExit()
    let result = PipedRun(status: scand.terminationStatus, stdout: [UInt8](try Data(contentsOf: outURL)),
                                    stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    return (result, source.terminationStatus)
}

private let producerScript = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/y4m_producer.py").path

/// Writes `y4m_producer.py make <arguments>` to `file`.
private func makeStream(_ file: URL, _ arguments: [String]) throws {
    try runTool("/usr/bin/python3", [producerScript, "make"] + arguments).write(to: file)
}

/// The `value` of each line's objects.
private func values(_ lines: [[String: Any]]) -> [[String]] {
    lines.map { (($0["objects"] as? [[String: Any]]) ?? []).compactMap { $0["value"] as? String } }
}

@Suite(.serialized) struct Y4MProducerTests {
    /// ffmpeg's own Y4M pipe (header `... Ip A1:1 C420jpeg XYSCSS=420JPEG`) at three sizes: every frame
    /// arrives (before: 11, 1 and 0 of 12 lines, "header line longer than 1024 bytes", exit 2).
    @Test(arguments: [(320, 240), (640, 480), (1280, 720)])
    func ffmpegPipe(width: Int, height: Int) throws {
        let dir = try TemporaryDirectory()
        let (run, _) = try pipeline("/usr/bin/ffmpeg", [
            "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=10",
            "-frames:v", "12", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"], into: ["-q", "-"], directory: dir.url)
        // testsrc holds no code: exit 4 (as zbarimg), and -q keeps stderr free of the note saying so.
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let lines = try run.jsonLines()
        #expect(lines.count == 12)
        #expect(lines.map { $0["frame"] as? Int } == Array(0..<12))
        #expect(lines.allSatisfy { $0["width"] as? Int == width && $0["height"] as? Int == height && $0["source"] as? String == "-" })
    }

    /// A QR code made by qrencode, looped into a Y4M pipe by ffmpeg: decoded on every frame.
    @Test func ffmpegPipeOfARealQRCode() throws {
        let dir = try TemporaryDirectory()
        let text = "scand reads ffmpeg's Y4M pipe"
        _ = try runTool("/usr/bin/qrencode", ["-o", dir.url.appendingPathComponent("qr.png").path, "-s", "8", "-m", "4", text])
        let (run, _) = try pipeline("/usr/bin/ffmpeg", [
            "-nostdin", "-loglevel", "error", "-loop", "1", "-i", "qr.png", "-vf", "pad=640:480:(ow-iw)/2:(oh-ih)/2:white",
            "-frames:v", "10", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"], directory: dir.url)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.jsonLines()
        #expect(lines.map { $0["frame"] as? Int } == Array(0..<10))
        #expect(values(lines) == Array(repeating: [text], count: 10))
    }

    /// A blurred Data Matrix in a 2592×1944 photo (a 5 MP camera; `photo_third_datamatrix.jpg`, made by
    /// `Tests/Fixtures/make_reader_fixtures.py`), looped into a Y4M pipe by ffmpeg: every frame arrives and the
    /// code is read, from the frame where the stream's rotation reaches the pyramid's ⅙ level on, with its exact
    /// value and nothing else. Before (half size only on streams) none of the 24 frames read it.
    @Test func ffmpegPipeOfALargeBlurredDataMatrix() throws {
        let fixtures = Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/generated/reader")
        let meta = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: fixtures.appendingPathComponent("fixtures.json")))
                                as? [String: Any], "run /usr/bin/python3 Tests/Fixtures/make_reader_fixtures.py")
        let fixture = try #require(meta["photo_third"] as? [String: Any])
        let file = try #require(fixture["file"] as? String), value = try #require(fixture["value"] as? String)
        let dir = try TemporaryDirectory()
        let (run, producerStatus) = try pipeline("/usr/bin/ffmpeg", [
            "-nostdin", "-loglevel", "error", "-loop", "1", "-i", fixtures.appendingPathComponent(file).path,
            "-frames:v", "24", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"], into: ["--types", "codes", "-"], directory: dir.url)
        #expect(producerStatus == 0)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.jsonLines()
        #expect(lines.map { $0["frame"] as? Int } == Array(0..<24))
        #expect(lines.allSatisfy { $0["width"] as? Int == 2592 && $0["height"] as? Int == 1944 })
        let read = values(lines)
        let first = try #require(read.firstIndex { !$0.isEmpty }, "no frame read the Data Matrix")
        #expect(read[first...].allSatisfy { $0 == [value] }, "\(String(describing: read))")
        #expect(read[..<first].allSatisfy { $0.isEmpty })
    }

    /// Two inputs in one `scand scan`, each an EAN-13 made by zint and turned into a Y4M clip by ffmpeg, at
    /// the same place in the frame: the second input's code is reported from its first frame, and a one-frame
    /// input's code at all. Before, the reader's stream memory ran on across inputs, so the conflict rule across
    /// frames took the second code for a misread of the first and held it back a frame (a one-frame input lost it).
    @Test func eachInputStartsAFreshStream() throws {
        let dir = try TemporaryDirectory()
        for (name, digits, frames) in [("a", "400638133393", 4), ("b", "590123412345", 3), ("c", "978020137962", 1)] {
            _ = try runTool("/usr/bin/zint", ["-b", "13", "-d", digits, "--scale", "2", "-o", dir.url.appendingPathComponent("\(name).png").path])
            _ = try runTool("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-loop", "1", "-i",
                                                 dir.url.appendingPathComponent("\(name).png").path,
                                                 "-vf", "pad=640:480:(ow-iw)/2:(oh-ih)/2:white", "-frames:v", "\(frames)",
                                                 "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe",
                                                 dir.url.appendingPathComponent("\(name).y4m").path])
        }
        let run = try ScandBinary.run(["scan"] + ["a", "b", "c"].map { dir.url.appendingPathComponent("\($0).y4m").path })
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.jsonLines()
        #expect(lines.map { ($0["source"] as? String).map { String($0.suffix(5)) } ?? "" } == ["a.y4m", "a.y4m", "a.y4m", "a.y4m", "b.y4m", "b.y4m", "b.y4m", "c.y4m"])
        #expect(values(lines) == Array(repeating: ["4006381333931"], count: 4) + Array(repeating: ["5901234123457"], count: 3) + [["9780201379624"]])
    }

    /// A producer that writes in random sizes from 1 byte to 64 KiB and splits every FRAME line byte by
    /// byte (before: a Swift trap in ByteReader.readLine, or "header line longer than 1024 bytes"). Each
    /// frame carries a QR code of its own index, so a frame read at the wrong offset shows.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func chunkedProducer(seed: Int) throws {
        let dir = try TemporaryDirectory()
        let clip = dir.url.appendingPathComponent("qr.y4m")
        try makeStream(clip, ["--size", "320x240", "--frames", "12", "--qr", "frame-"] + (seed % 2 == 0 ? ["--frame-params"] : []))
        let (run, producerStatus) = try pipeline("/usr/bin/python3", [producerScript, "chunk", "--seed", "\(seed)", clip.path],
                                                 directory: dir.url)
        #expect(producerStatus == 0)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try run.jsonLines()
        #expect(lines.map { $0["frame"] as? Int } == Array(0..<12))
        #expect(values(lines) == (0..<12).map { ["frame-\($0)"] })
    }

    /// A 106×206 file whose FRAME markers cross the 64 KiB read buffer's boundary (header of 43…65 bytes):
    /// all 9 frames (before: 6 or 8 frames, then an error or a trap).
    @Test func markersAcrossTheReadBuffer() throws {
        let dir = try TemporaryDirectory()
        for pad in [0, 1, 2, 3, 14, 15, 16, 17, 18, 19, 20] {
            let file = dir.url.appendingPathComponent("odd-\(pad).y4m")
            try makeStream(file, ["--size", "106x206", "--frames", "9", "--pad", "\(pad)"])
            let run = try ScandBinary.run(["scan", file.path])
            #expect(run.status == 4, "pad \(pad): every frame read, no code in them (4): \(run.stderr)")
            #expect(try run.jsonLines().map { $0["frame"] as? Int } == Array(0..<9), "pad \(pad)")
        }
    }

    /// FRAME parameters are ignored; a short last frame gives one error naming the input, the frame and
    /// the bytes that arrived, after the earlier frames; exit 2 alone, 1 with another good input.
    @Test func truncatedLastFrameWithFrameParameters() throws {
        let dir = try TemporaryDirectory()
        let cut = dir.url.appendingPathComponent("cut.y4m"), good = dir.url.appendingPathComponent("good.y4m")
        try makeStream(cut, ["--size", "160x120", "--frames", "9", "--frame-params", "--qr", "f", "--cut", "100"])
        try makeStream(good, ["--size", "160x120", "--frames", "3", "--frame-params", "--qr", "g"])
        let message = "cannot decode: truncated: frame 8 is incomplete (got \(160 * 120 * 3 / 2 - 100) of \(160 * 120 * 3 / 2) bytes)"

        let alone = try ScandBinary.run(["scan", "cut.y4m"], directory: dir.url)
        #expect(alone.status == 2)
        #expect(values(try alone.jsonLines()) == (0..<8).map { ["f\($0)"] })
        #expect(alone.stderr.contains("cut.y4m: " + message))
        #expect(alone.stderr.split(separator: "\n").count == 2, "the error, then the summary: \(alone.stderr)")
        #expect(alone.stderr.split(separator: "\n").last?.hasPrefix("scanned 8 objects from 1 input (8 frames)") == true)

        let both = try ScandBinary.run(["scan", "cut.y4m", "good.y4m"], directory: dir.url)
        #expect(both.status == 1)
        #expect(values(try both.jsonLines()) == (0..<8).map { ["f\($0)"] } + (0..<3).map { ["g\($0)"] })

        let (piped, _) = try pipeline("/bin/cat", [cut.path], directory: dir.url)
        #expect(piped.status == 2)
        #expect(try piped.jsonLines().count == 8)
        #expect(piped.stderr.contains("-: " + message))
    }

    /// `scand scan /dev/zero good.y4m`: /dev/zero is refused at once as a device and the other input is
    /// still scanned (before: 11 s and 1.6 GB read before "larger than 536870912 bytes").
    @Test func devZeroIsRefusedAtOnce() throws {
        let dir = try TemporaryDirectory()
        try makeStream(dir.url.appendingPathComponent("good.y4m"), ["--size", "160x120", "--frames", "2", "--qr", "g"])
        let started = Date()
        let run = try ScandBinary.run(["scan", "/dev/zero", "good.y4m"], directory: dir.url)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(run.status == 1)
        #expect(run.stderr.contains("/dev/zero: cannot read: is a device, not a file or a pipe"))
        #expect(values(try run.jsonLines()) == [["g0"], ["g1"]])
    }

    /// `ffmpeg -re … | scand run --input - --stdout`: a live-paced producer gives every frame and a normal
    /// `stopped` at its end, after frame 19 (before: a `runtimeError` "header line longer than 1024 bytes" after frame 0).
    @Test func runReadsALivePacedFfmpegPipe() throws {
        let dir = try TemporaryDirectory()
        let outURL = dir.url.appendingPathComponent("stdout"), errURL = dir.url.appendingPathComponent("stderr")
        let pipe = Pipe()
        let ffmpeg = try TestProcess.start("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i", "testsrc=size=640x480:rate=20",
                                                               "-frames:v", "20", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"],
                                           stdin: .handle(.standardInput), stdout: .pipe(pipe))
        let scand = try TestProcess.start(ScandBinary.url.path, ["run", "--input", "-", "--stdout"], directory: dir.url, stdin: .pipe(pipe),
                                          stdout: .file(outURL.path), stderr: .file(errURL.path))
        try? pipe.fileHandleForWriting.close()
        try? pipe.fileHandleForReading.close()
        defer { if scand.isRunning { scand.terminate() }; scand.waitUntilExit(); ffmpeg.waitUntilExit() }
        let deadline = Date().addingTimeInterval(30)
        var text = ""
        while Date() < deadline {
            text = String(decoding: try Data(contentsOf: outURL), as: UTF8.self)
            if text.contains("\"stopped\"") || text.contains("runtimeError") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let events = try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let deviceKinds = events.filter { $0["event"] as? String == "device" }.compactMap { $0["kind"] as? String }
        let stderr = String(decoding: try Data(contentsOf: errURL), as: UTF8.self)
        #expect(deviceKinds == ["started", "stopped"], "\(stderr)")
        let frames = events.filter { $0["event"] as? String == "metadata" }.compactMap { $0["frame"] as? Int }
        // `run` may drop a late frame (newest wins), so the proof that every frame was read is the last index.
        #expect(frames.first == 0)
        #expect(frames.last == 19)
        #expect(frames == frames.sorted() && Set(frames).count == frames.count)
    }
}
