import Foundation
import Testing
import ScanCore
import ScanTestSupport
internal import SystemPackage
@testable import ScanCapture

// Seeded draws (ScanTestSupport's SplitMix), so every stream and split here is reproducible.

/// A 4:2:0 Y4M stream in memory with seeded noise luma (any misaligned read changes it) and its frames' luma.
private struct Stream {
    var bytes: [UInt8] = []
    var lumas: [[UInt8]] = []

    init(width: Int, height: Int, frames: Int, headerPad: Int = 0, frameParameters: Bool = false, seed: UInt64 = 1) {
        var header = "YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg"
        if headerPad > 0 { header += " X" + String(repeating: "p", count: headerPad) }
        bytes = Array((header + "\n").utf8)
        var rng = SplitMix(seed: seed)
        let chroma = 2 * ((width + 1) / 2) * ((height + 1) / 2)
        for i in 0..<frames {
            bytes += Array((frameParameters ? "FRAME Ip XSEQ=\(i)\n" : "FRAME\n").utf8)
            let luma = noise(width * height, &rng)
            lumas.append(luma)
            bytes += luma
            bytes += noise(chroma, &rng)
        }
    }
}

/// `count` seeded random bytes, eight from each draw.
private func noise(_ count: Int, _ rng: inout SplitMix) -> [UInt8] {
    let words = (0..<((count + 7) / 8)).map { _ in rng.next() }
    return words.withUnsafeBytes { Array($0.prefix(count)) }
}

private func allFrames(_ source: any FrameSource) throws -> [Frame] {
    var frames: [Frame] = []
    while let f = try source.nextFrame() { frames.append(f) }
    return frames
}

/// A Y4MSource over `bytes` written to a file, read through a ByteReader of `capacity` bytes.
private func source(_ bytes: [UInt8], in dir: TemporaryDirectory, name: String, capacity: Int = 1 << 16) throws -> Y4MSource {
    let url = dir.url.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    let fd = try FileDescriptor.open(FilePath(url.path), .readOnly)
    return try Y4MSource(reader: ByteReader(fd: fd, name: name, ownsDescriptor: true, capacity: capacity))
}

@Suite struct Y4MStreamTests {
    /// 106×206 frames are 32,760 bytes with their marker: with headers of 43…85 bytes the third and later
    /// FRAME markers fall on each side of, and across, the 64 KiB read buffer's boundaries.
    @Test func markersAcrossTheBufferBoundaryOf106x206() throws {
        let dir = try TemporaryDirectory()
        for pad in 0...40 {
            let stream = Stream(width: 106, height: 206, frames: 9, headerPad: pad, seed: UInt64(pad))
            let frames = try allFrames(try Y4MSource(path: {
                let url = dir.url.appendingPathComponent("odd-\(pad).y4m")
                try Data(stream.bytes).write(to: url)
                return url.path
            }()))
            #expect(frames.count == 9, "header pad \(pad)")
            #expect(frames.map(\.luma.bytes) == stream.lumas, "header pad \(pad)")
        }
    }

    /// Small buffers make every marker cross a buffer boundary at every offset: capacities 1…48 against
    /// frame sizes that are not multiples of them, with and without FRAME parameters.
    @Test func everyMarkerOffsetModuloTheBuffer() throws {
        let dir = try TemporaryDirectory()
        for (width, height) in [(5, 3), (7, 4), (13, 9)] {
            for parameters in [false, true] {
                let stream = Stream(width: width, height: height, frames: 7, frameParameters: parameters,
                                    seed: UInt64(width * 100 + height))
                for capacity in 1...48 {
                    let y4m = try source(stream.bytes, in: dir, name: "s-\(width)x\(height)-\(capacity).y4m", capacity: capacity)
                    let frames = try allFrames(y4m)
                    #expect(frames.map(\.luma.bytes) == stream.lumas, "\(width)x\(height) capacity \(capacity) params \(parameters)")
                }
            }
        }
    }

    /// A real producer process writes the stream in random writes of 1 byte to 64 KiB (several seeds),
    /// with the FRAME lines split byte by byte; the in-process reader on the pipe gets every frame exactly.
    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func chunkedProducerOverAPipe(seed: Int) throws {
        let dir = try TemporaryDirectory()
        let stream = Stream(width: 320, height: 240, frames: 10, frameParameters: seed % 2 == 0, seed: UInt64(seed))
        let file = dir.url.appendingPathComponent("clip.y4m")
        try Data(stream.bytes).write(to: file)
        let pipe = Pipe()
        let producer = try TestProcess.start("/usr/bin/python3", [Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/y4m_producer.py").path,
                                                                  "chunk", "--seed", "\(seed)", file.path],
                                             stdout: .pipe(pipe), stderr: .inherited)
        try? pipe.fileHandleForWriting.close()
        let readEnd = FileDescriptor(rawValue: dup(pipe.fileHandleForReading.fileDescriptor))
        try? pipe.fileHandleForReading.close()
        let y4m = try Y4MSource(reader: ByteReader(fd: readEnd, name: "pipe", ownsDescriptor: true))
        let frames = try allFrames(y4m)
        y4m.close()
        producer.waitUntilExit()
        #expect(producer.terminationStatus == 0)
        #expect(frames.count == stream.lumas.count)
        #expect(frames.map(\.index) == Array(0..<stream.lumas.count))
        for (i, (frame, luma)) in zip(frames, stream.lumas).enumerated() {
            #expect(frame.luma.bytes == luma, "seed \(seed) frame \(i)")
        }
    }

    /// FRAME parameters and the header's I, A and X tags are accepted and ignored; "FRAMEX" is no marker.
    @Test func frameParametersAndHeaderTagsAreIgnored() throws {
        let dir = try TemporaryDirectory()
        let bytes = Array("YUV4MPEG2 W4 H2 Im A0:0 XCOLORRANGE=FULL F30000:1001 C420mpeg2 Xyz\nFRAME\n".utf8)
            + [UInt8](1...8) + [UInt8](repeating: 128, count: 4)
        let tagged = try source(bytes, in: dir, name: "tags.y4m")
        #expect(tagged.size == PixelSize(width: 4, height: 2))
        #expect(abs((tagged.info.frameRate ?? 0) - 29.97) < 0.01)
        #expect(try allFrames(tagged).map(\.luma.bytes) == [[1, 2, 3, 4, 5, 6, 7, 8]])
        let stream = Stream(width: 16, height: 8, frames: 4, frameParameters: true)
        #expect(try allFrames(try source(stream.bytes, in: dir, name: "p.y4m")).map(\.luma.bytes) == stream.lumas)
        // "FRAMEX" is not a FRAME marker.
        var bad = Stream(width: 16, height: 8, frames: 2).bytes
        let second = bad.firstIndex(of: 0x0A)! + 1 + 6 + 16 * 8 + 2 * 8 * 4
        #expect(Array(bad[second..<(second + 6)]) == Array("FRAME\n".utf8))
        bad.replaceSubrange(second..<(second + 6), with: Array("FRAMEX\n".utf8))
        let y4m = try source(bad, in: dir, name: "framex.y4m")
        #expect(try y4m.nextFrame() != nil)
        do { _ = try y4m.nextFrame(); Issue.record("FRAMEX accepted") } catch {
            #expect("\(error)".contains("frame 1: missing FRAME marker"))
        }
    }

    /// `XCOLORRANGE=LIMITED`: luma 16–235 is stretched to 0–255 (rounded, clamped outside); `FULL` or no tag
    /// keeps it (above).
    @Test func limitedRangeLumaIsStretched() throws {
        let dir = try TemporaryDirectory()
        let luma: [UInt8] = [16, 235, 0, 255, 125, 17, 234, 128]
        for tag in ["XCOLORRANGE=LIMITED", "XCOLORRANGE=limited"] {
            let bytes = Array("YUV4MPEG2 W4 H2 F25:1 C420jpeg \(tag)\nFRAME\n".utf8) + luma + [UInt8](repeating: 128, count: 4)
            #expect(try allFrames(try source(bytes, in: dir, name: "limited.y4m")).map(\.luma.bytes) == [[0, 255, 0, 255, 127, 1, 254, 130]])
        }
        #expect(Y4MSource.fullRange.count == 256 && zip(Y4MSource.fullRange, Y4MSource.fullRange.dropFirst()).allSatisfy { $0 <= $1 })
    }

    /// ffmpeg's Y4M of a grey ramp (a PGM of 0…255 and back): its yuv420p output is limited range and says so
    /// (`XCOLORRANGE=LIMITED`), and the frame scand reads is the picture's own grey levels within 1 (before:
    /// 16…235, a sixth less contrast than the same picture read as an image).
    @Test func ffmpegLimitedRangeMatchesThePicture() throws {
        let dir = try TemporaryDirectory()
        let width = 512, height = 16
        let ramp = (0..<height).flatMap { _ in (0..<width).map { UInt8($0 < 256 ? $0 : 511 - $0) } }
        let pgm = dir.url.appendingPathComponent("ramp.pgm")
        try Data(Array("P5\n\(width) \(height)\n255\n".utf8) + ramp).write(to: pgm)
        let y4m = try runTool("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-i", pgm.path, "-frames:v", "1",
                                                  "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"])
        let header = String(decoding: y4m.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(header.contains("XCOLORRANGE=LIMITED"), "\(header)")
        let frames = try allFrames(try source([UInt8](y4m), in: dir, name: "ramp.y4m"))
        let got = try #require(frames.first).luma.bytes
        #expect(frames.count == 1 && got.count == ramp.count)
        let worst = zip(got, ramp).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 1, "largest difference \(worst)")
    }

    /// The last frame cut short: earlier frames are delivered, then one error naming the input, the frame's
    /// index and how many of its bytes arrived; the same when the input ends inside the FRAME line.
    @Test func truncatedLastFrameIsNamedWithItsIndex() throws {
        let dir = try TemporaryDirectory()
        let stream = Stream(width: 106, height: 206, frames: 9)
        let frameBytes = 106 * 206 + 2 * 53 * 103
        for (cut, detail) in [(100, "got \(frameBytes - 100) of \(frameBytes) bytes"),
                              (frameBytes, "got 0 of \(frameBytes) bytes"),
                              (frameBytes + 3, "the input ends after 3 bytes of its FRAME line")] {
            let y4m = try source(Array(stream.bytes.dropLast(cut)), in: dir, name: "cut-\(cut).y4m")
            var delivered: [[UInt8]] = []
            do {
                while let frame = try y4m.nextFrame() { delivered.append(frame.luma.bytes) }
                Issue.record("cut \(cut): no error")
            } catch {
                #expect("\(error)" == "cut-\(cut).y4m: cannot decode: truncated: frame 8 is incomplete (\(detail))")
            }
            #expect(delivered == Array(stream.lumas.prefix(8)))
        }
    }

    /// On a regular file a frame's chroma planes are seeked over, not read: after each 640×480 frame the
    /// descriptor's offset is exactly that frame's end (reading them through the 64 KiB buffer leaves it up to a
    /// buffer further on), the frames are exact, and a file cut inside the last frame's chroma still comes up
    /// short by exactly the missing bytes.
    @Test func chromaIsSeekedOverOnARegularFile() throws {
        let dir = try TemporaryDirectory()
        let stream = Stream(width: 640, height: 480, frames: 4, seed: 77)
        let header = "YUV4MPEG2 W640 H480 F25:1 Ip A1:1 C420jpeg\n".utf8.count
        let frameBytes = 640 * 480 + 2 * 320 * 240
        for cut in [0, 100] {
            let url = dir.url.appendingPathComponent("seek-\(cut).y4m")
            try Data(stream.bytes.dropLast(cut)).write(to: url)
            let fd = try FileDescriptor.open(FilePath(url.path), .readOnly)
            let probe = dup(fd.rawValue) // shares the file offset
            defer { close(probe) }
            let y4m = try Y4MSource(reader: ByteReader(fd: fd, name: "seek-\(cut).y4m", ownsDescriptor: true))
            for i in 0..<(cut == 0 ? 4 : 3) {
                let frame = try #require(try y4m.nextFrame())
                #expect(frame.luma.bytes == stream.lumas[i], "cut \(cut) frame \(i)")
                #expect(lseek(probe, 0, SEEK_CUR) == off_t(header + (i + 1) * ("FRAME\n".utf8.count + frameBytes)),
                        "cut \(cut) frame \(i)")
            }
            if cut == 0 {
                #expect(try y4m.nextFrame() == nil)
            } else {
                do { _ = try y4m.nextFrame(); Issue.record("cut \(cut): no error") } catch {
                    #expect("\(error)" == "seek-100.y4m: cannot decode: truncated: frame 3 is incomplete (got \(frameBytes - 100) of \(frameBytes) bytes)")
                }
            }
        }
    }

    /// The frame size is checked against the pixel budget before a frame is allocated; 16384×16384
    /// (268 MP) was accepted before.
    @Test func frameSizeIsCheckedAgainstDecoderLimits() throws {
        let dir = try TemporaryDirectory()
        let huge = dir.url.appendingPathComponent("huge.y4m")
        try Data("YUV4MPEG2 W16384 H16384 F25:1 C420jpeg\nFRAME\n".utf8).write(to: huge)
        do { _ = try Y4MSource(path: huge.path); Issue.record("16384x16384 accepted") } catch {
            #expect("\(error)".contains("huge.y4m"))
            #expect("\(error)".contains("pixel budget"))
        }
        let small = Stream(width: 64, height: 48, frames: 1)
        let url = dir.url.appendingPathComponent("small.y4m")
        try Data(small.bytes).write(to: url)
        #expect(throws: ScanError.self) { try Y4MSource(path: InputPath(url.path), limits: DecoderLimits(maxPixels: 64 * 48 - 1)) }
        let ok = try Y4MSource(path: InputPath(url.path), limits: DecoderLimits(maxPixels: 64 * 48))
        #expect(try allFrames(ok).count == 1)
        for header in ["W0 H10", "W10", "W99999999999999999999999 H2", "W4611686018427387904 H4"] {
            let url = dir.url.appendingPathComponent("bad.y4m")
            try Data("YUV4MPEG2 \(header) C420jpeg\nFRAME\n".utf8).write(to: url)
            #expect(throws: ScanError.self, "\(header)") { try Y4MSource(path: url.path) }
        }
    }
}

@Suite struct RawByteInputTests {
    /// A file whose name is not UTF-8 opens by its bytes and is shown escaped.
    @Test func nonUTF8FileNameOpensAndIsShownEscaped() throws {
        let dir = try TemporaryDirectory()
        let nameBytes: [UInt8] = [0xFF, 0xFE] + Array(".png".utf8)
        let pathBytes = Array(dir.url.path.utf8) + [0x2F] + nameBytes
        let png = try Fixtures.bytes("qr-utf8.png")
        let fd = (pathBytes + [0]).withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        }
        #expect(fd >= 0)
        _ = png.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let source = try openFileSource(path: InputPath(bytes: pathBytes), limits: DecoderLimits())
        #expect(source.info.name == dir.url.path + "/\\xff\\xfe.png")
        #expect(source.info.name.utf8.allSatisfy { $0 < 0x80 })
        let frame = try #require(try source.nextFrame())
        #expect(frame.luma.width > 0)
        // A missing non-UTF-8 name is reported under its escaped form.
        do {
            _ = try openFileSource(path: InputPath(bytes: pathBytes + [0x80]), limits: DecoderLimits())
            Issue.record("missing file opened")
        } catch {
            #expect("\(error)" == dir.url.path + "/\\xff\\xfe.png\\x80: cannot read: no such file")
        }
    }

    /// `/dev/zero` never ends: refused when opened, in well under a second (it read 512 MiB before);
    /// a directory is refused when opened, too.
    @Test func devicesAndDirectoriesAreRefusedAtOnce() throws {
        let dir = try TemporaryDirectory()
        do { _ = try openFileSource(path: InputPath(dir.url.path), limits: DecoderLimits()); Issue.record("directory opened") } catch {
            #expect("\(error)" == "\(dir.url.path): cannot read: is a directory")
        }
        let started = Date()
        do { _ = try openFileSource(path: InputPath("/dev/zero"), limits: DecoderLimits()); Issue.record("opened /dev/zero") } catch {
            #expect("\(error)" == "/dev/zero: cannot read: is a device, not a file or a pipe")
        }
        #expect(Date().timeIntervalSince(started) < 2)
    }

    /// A FIFO with an endless writer is read only up to maxFileBytes, then refused.
    @Test func endlessFifoStopsAtTheFileLimit() throws {
        let dir = try TemporaryDirectory()
        let fifo = dir.url.appendingPathComponent("endless")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let writer = try TestProcess.start("/bin/sh", ["-c", "cat /dev/zero > \"$0\"", fifo.path], stdout: .inherited, stderr: .inherited)
        defer { if writer.isRunning { writer.terminate() }; writer.waitUntilExit() }
        let started = Date()
        let limit = 8 << 20
        do {
            _ = try openFileSource(path: InputPath(fifo.path), limits: DecoderLimits(maxFileBytes: limit))
            Issue.record("endless FIFO accepted")
        } catch {
            #expect("\(error)" == "\(fifo.path): cannot decode: input goes on past \(limit) bytes, over the limit of \(limit) bytes for a still image")
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// A regular file over maxFileBytes is refused from its size, before it is read (a sparse 2 GiB file).
    @Test func largeRegularFileIsRefusedBeforeReading() throws {
        let dir = try TemporaryDirectory()
        let url = dir.url.appendingPathComponent("big.png")
        try Data(Fixtures.bytes("qr-utf8.png")).write(to: url)
        #expect(truncate(url.path, 2 << 30) == 0)
        let started = Date()
        do { _ = try openFileSource(path: InputPath(url.path), limits: DecoderLimits()); Issue.record("2 GiB file read") } catch {
            #expect("\(error)" == "\(url.path): cannot decode: file is \(2 << 30) bytes, over the limit of \(DecoderLimits.defaultMaxFileBytes) bytes for a still image")
        }
        #expect(Date().timeIntervalSince(started) < 1)
        // At the limit exactly, a file is read (and then decoded as usual).
        let png = try Fixtures.bytes("qr-utf8.png")
        let exact = dir.url.appendingPathComponent("exact.png")
        try Data(png).write(to: exact)
        #expect(throws: Never.self) { try openFileSource(path: InputPath(exact.path), limits: DecoderLimits(maxFileBytes: png.count)) }
        #expect(throws: ScanError.self) { try openFileSource(path: InputPath(exact.path), limits: DecoderLimits(maxFileBytes: png.count - 1)) }
    }
}

@Suite struct InputPathDisplayNameTests {
    static let cases: [([UInt8], String)] = [
        ([UInt8]("plain/name.png".utf8), "plain/name.png"),
        ([UInt8]("grüße/東京.png".utf8), "grüße/東京.png"),
        ([UInt8]("back\\slash.png".utf8), "back\\slash.png"),
        ([0xFF, 0xFE] + [UInt8](".png".utf8), "\\xff\\xfe.png"),
        ([UInt8]("a\nb\tc\u{1B}[31m".utf8), "a\\x0ab\\x09c\\x1b[31m"),
        ([UInt8]("del\u{7F}".utf8), "del\\x7f"),
        ([0xC0, 0x80], "\\xc0\\x80"),                // overlong NUL
        ([0xED, 0xA0, 0x80], "\\xed\\xa0\\x80"),      // a UTF-16 surrogate
        ([0xE2, 0x82], "\\xe2\\x82"),                // a sequence cut short
        ([0xF4, 0x90, 0x80, 0x80], "\\xf4\\x90\\x80\\x80"), // past U+10FFFF
        ([UInt8]("line\u{2028}sep".utf8), "line\\u{2028}sep"),
        ([UInt8]("a\\b".utf8) + [0xFF], "a\\\\b\\xff"), // once escaped, a real backslash is doubled
    ]

    @Test(arguments: InputPathDisplayNameTests.cases)
    func displayNameIsValidEscapedUTF8(bytes: [UInt8], shown: String) {
        let name = InputPath(bytes: bytes).displayName
        #expect(name == shown)
        #expect(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
    }

    @Test func standardInputAndExtensions() {
        #expect(InputPath("-").isStandardInput)
        #expect(!InputPath("./-").isStandardInput)
        #expect(InputPath("dir.y4m/clip.Y4M").lowercasedExtension == "y4m")
        #expect(InputPath("dir.mp4/noext").lowercasedExtension == "")
        #expect(InputPath(".hidden").lowercasedExtension == "")
        #expect(InputPath(bytes: [0xFF, 0x2E, 0x4D, 0x50, 0x34]).lowercasedExtension == "mp4")
    }
}
