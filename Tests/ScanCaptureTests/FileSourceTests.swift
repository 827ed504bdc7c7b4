import Foundation
import Testing
import ScanCore
import ScanTestSupport
@testable import ScanCapture

private func allFrames(_ source: any FrameSource) throws -> [Frame] {
    var frames: [Frame] = []
    while let f = try source.nextFrame() { frames.append(f) }
    return frames
}

@Suite struct Y4MTests {
    @Test(arguments: ["420jpeg", "422", "444", "mono"])
    func everyChromaLayoutGivesTheSameLuma(colour: String) throws {
        let reference = try allFrames(Y4MSource(path: Fixtures.path("clip-420jpeg.y4m")))
        let source = try Y4MSource(path: Fixtures.path("clip-\(colour).y4m"))
        #expect(source.info.frameRate == 15)
        #expect(source.size == PixelSize(width: 321, height: 240))
        let frames = try allFrames(source)
        #expect(frames.count == 12)
        #expect(frames.map(\.index) == Array(0..<12))
        #expect(abs(frames[3].time - 0.2) < 1e-9)
        for (a, b) in zip(frames, reference) { #expect(a.luma.bytes == b.luma.bytes) }
    }

    @Test func truncatedStreamNamesInputAndFrame() throws {
        let source = try Y4MSource(path: Fixtures.path("clip-truncated.y4m"))
        var count = 0
        do {
            while try source.nextFrame() != nil { count += 1 }
            Issue.record("truncated stream did not throw")
        } catch let error as ScanError {
            #expect(count == 11)
            #expect("\(error)".contains("clip-truncated.y4m"))
            #expect("\(error)".contains("frame 11"))
        }
    }

    @Test func rejectsNonY4MAndUnsupportedColourSpaces() throws {
        #expect(throws: ScanError.self) { try Y4MSource(path: Fixtures.path("multi.pgm")) }
        let tmp = try TemporaryDirectory(); let dir = tmp.url.path
        let bad = dir + "/c420p10.y4m"
        try Data(Array("YUV4MPEG2 W4 H4 F1:1 C420p10\nFRAME\n".utf8)).write(to: URL(fileURLWithPath: bad))
        do { _ = try Y4MSource(path: bad); Issue.record("accepted 10-bit") } catch {
            #expect("\(error)".contains("C420p10"))
        }
    }
}

@Suite struct ImageDecodingTests {
    @Test(arguments: ["multi.jpg", "multi.bmp", "multi.pgm", "multi.ppm", "multi.tiff"])
    func everyContainerDecodesToTheSamePicture(name: String) throws {
        let png = try ImageDecoder.decode(Fixtures.bytes("multi.png"), name: "multi.png")
        let other = try ImageDecoder.decode(Fixtures.bytes(name), name: name)
        #expect(other.size == png.size)
        // JPEG is lossy; the others are exact up to RGB→luma rounding.
        let tolerance = name.hasSuffix(".jpg") ? 40 : 1
        var worst = 0
        for i in stride(from: 0, to: png.bytes.count, by: 7) { worst = max(worst, abs(Int(png.bytes[i]) - Int(other.bytes[i]))) }
        #expect(worst <= tolerance)
    }

    @Test func asciiNetpbm() throws {
        let p2 = Array("P2\n# comment\n3 2\n255\n0 128 255\n10 20 30\n".utf8)
        let plane = try ImageDecoder.decode(p2, name: "a.pgm")
        #expect(plane.bytes == [0, 128, 255, 10, 20, 30])
        let p1 = Array("P1\n2 2\n1 0\n0 1\n".utf8)
        #expect(try ImageDecoder.decode(p1, name: "a.pbm").bytes == [0, 255, 255, 0])
    }

    @Test(arguments: [("truncated.png", "PNG"), ("truncated.jpg", "truncated"), ("corrupt.png", "corrupt.png"),
                      ("empty.png", "empty"), ("not-an-image.png", "not-an-image.png")])
    func brokenFilesGiveErrorsNamingThem(name: String, mention: String) throws {
        do {
            _ = try ImageSource(path: Fixtures.path(name))
            Issue.record("\(name) decoded")
        } catch let error as ScanError {
            #expect("\(error)".contains(name))
            #expect("\(error)".contains(mention))
        }
    }

    @Test func missingFileAndDirectory() {
        #expect(throws: ScanError.unreadableInput(input: "/nonexistent/x.png", reason: "no such file")) {
            try openFileSource(path: "/nonexistent/x.png")
        }
        #expect(throws: ScanError.unreadableInput(input: "/tmp", reason: "is a directory")) {
            try openFileSource(path: "/tmp")
        }
    }

    @Test func imageIsOneFrameAtTimeZero() throws {
        let source = try openFileSource(path: Fixtures.path("exact.png"))
        let frames = try allFrames(source)
        #expect(frames.count == 1)
        #expect(frames[0].time == 0 && frames[0].index == 0)
    }

    @Test func videoFileStreamsFrames() throws {
        let source = try openFileSource(path: Fixtures.path("clip.mp4"))
        #expect(source.info.frameRate.map { abs($0 - 15) < 0.01 } == true)
        let frames = try allFrames(source)
        #expect(frames.count == 12)
        #expect(frames[0].size == PixelSize(width: 320, height: 240))
    }

    @Test func y4mIsSniffedByContentNotName() throws {
        let tmp = try TemporaryDirectory(); let dir = tmp.url.path
        let renamed = dir + "/clip.bin"
        try Data(try Fixtures.bytes("clip-mono.y4m")).write(to: URL(fileURLWithPath: renamed))
        let source = try openFileSource(path: renamed)
        #expect(source is Y4MSource)
        #expect(try allFrames(source).count == 12)
    }
}
