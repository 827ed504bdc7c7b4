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
    @Test(arguments: ["multi.jpg", "multi.bmp", "multi.pgm", "multi.ppm", "multi.tiff", "multi.gif",
                      "multi-interlaced.gif", "multi-anim.gif", "multi.heic", "multi.avif"])
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

    /// A JPEG is turned or mirrored as its EXIF orientation (1-8) says, as viewers, browsers and OpenCV's
    /// imread show it: each orient-N.jpg stores multi.png transformed and tagged N, and decodes to multi.png.
    @Test(arguments: ["orient-1.jpg", "orient-2.jpg", "orient-3.jpg", "orient-4.jpg", "orient-5.jpg", "orient-6.jpg",
                      "orient-7.jpg", "orient-8.jpg", "orient-6-mm.jpg"])
    func jpegFollowsItsExifOrientation(name: String) throws {
        let png = try ImageDecoder.decode(Fixtures.bytes("multi.png"), name: "multi.png")
        let jpeg = try ImageDecoder.decode(Fixtures.bytes(name), name: name)
        #expect(jpeg.size == png.size)
        guard jpeg.size == png.size else { return }
        var total = 0
        for i in 0..<png.bytes.count { total += abs(Int(png.bytes[i]) - Int(jpeg.bytes[i])) }
        // JPEG's loss is about 1 level a pixel here; a wrong orientation is over 50.
        #expect(total / png.bytes.count <= 4, "mean difference \(total / png.bytes.count)")
    }

    /// The reduced size of a JPEG over the budget is in its displayed orientation too, and so is the note.
    @Test func reducedJPEGInItsExifOrientation() throws {
        let source = try ImageSource(name: "orient-6.jpg", bytes: Fixtures.bytes("orient-6.jpg"), limits: DecoderLimits(maxPixels: 960 * 540 - 1))
        #expect(try #require(try source.nextFrame()).luma.size == PixelSize(width: 840, height: 473))
        #expect(source.info.note?.contains("960x540 is over the pixel budget of 518399 pixels (--max-pixels); read at 840x473, 7/8") == true,
                "\(source.info.note ?? "no note")")
    }

    /// A GIF's picture is its logical screen: the first image is placed at its offset (20, 10 here), and what
    /// lies outside it and its transparent pixels (index 0, black) are white, as PNG's alpha is composited.
    @Test func gifImagePlacedOnItsScreenWithTransparencyAsWhite() throws {
        let png = try ImageDecoder.decode(Fixtures.bytes("multi.png"), name: "multi.png")
        let gif = try ImageDecoder.decode(Fixtures.bytes("offset-transparent.gif"), name: "offset-transparent.gif")
        #expect(gif.width == png.width + 20 && gif.height == png.height + 10)
        var wrong = 0, blackInPNG = 0
        for y in 0..<gif.height {
            for x in 0..<gif.width {
                let inside = x >= 20 && y >= 10
                let source = inside ? png.bytes[(y - 10) * png.width + (x - 20)] : 255
                if source == 0 { blackInPNG += 1 }
                if gif.bytes[y * gif.width + x] != (source == 0 ? 255 : source) { wrong += 1 }
            }
        }
        #expect(blackInPNG > 10_000) // the transparent index is really used
        #expect(wrong == 0)
    }

    /// A GIF declaring a screen of 65535×65535 is refused from its descriptors, before anything of that size is
    /// allocated.
    @Test func gifScreenOverTheBudgetIsRefusedFromItsHeader() throws {
        var b = Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        b += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B]
        do {
            _ = try ImageSource(name: "huge.gif", bytes: b, limits: DecoderLimits())
            Issue.record("huge.gif decoded")
        } catch {
            #expect("\(error)".contains("huge.gif") && "\(error)".contains("GIF 65535x65535 is over the pixel budget"), "\(error)")
        }
    }

    @Test func asciiNetpbm() throws {
        let p2 = Array("P2\n# comment\n3 2\n255\n0 128 255\n10 20 30\n".utf8)
        let plane = try ImageDecoder.decode(p2, name: "a.pgm")
        #expect(plane.bytes == [0, 128, 255, 10, 20, 30])
        let p1 = Array("P1\n2 2\n1 0\n0 1\n".utf8)
        #expect(try ImageDecoder.decode(p1, name: "a.pbm").bytes == [0, 255, 255, 0])
    }

    @Test(arguments: [("truncated.png", "PNG"), ("truncated.jpg", "truncated"), ("truncated.gif", "GIF: truncated file"), ("truncated.heic", "HEIF"), ("corrupt.png", "corrupt.png"),
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
