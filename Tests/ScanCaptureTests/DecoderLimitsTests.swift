import Foundation
import Testing
import ScanCapture
import ScanCore
import ScanTestSupport

/// The pixel budget (DecoderLimits) is checked on the header, before the image is allocated, by every decoder.
@Suite struct DecoderLimitsTests {
    private func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    @Test func pngBombsAreRefusedFromTheirHeaderAtOnce() throws {
        let inputs = try HostileInputs(["bomb-16k.png", "bomb-32k.png"])
        for (name, side) in [("bomb-16k.png", 16384), ("bomb-32k.png", 32768)] {
            let bytes = try inputs.bytes(name)
            let elapsed = seconds {
                do {
                    _ = try ImageSource(name: name, bytes: bytes, limits: DecoderLimits())
                    Issue.record("\(name) decoded")
                } catch {
                    let text = "\(error)"
                    #expect(text.contains(name) && text.contains("\(side)x\(side)"), "\(text)")
                    #expect(text.contains("pixel budget of 40000000 pixels"), "\(text)")
                }
            }
            #expect(elapsed < 1, "\(name) took \(elapsed) s")
        }
    }

    /// A JPEG over the budget is decoded by libjpeg at the largest reduced size (n/8 of each side, rounded up)
    /// that fits, and the source's note says so; the pixels are the picture's, scaled. One pixel over the
    /// budget gives 7/8; a budget of exactly half of each side gives 1/2.
    @Test func aJPEGOverTheBudgetIsReadAtAReducedSize() throws {
        let bytes = try Fixtures.bytes("multi.jpg")
        let png = try ImageDecoder.decode(Fixtures.bytes("multi.png"), name: "multi.png")
        let sevenEighths = try ImageSource(name: "multi.jpg", bytes: bytes, limits: DecoderLimits(maxPixels: 960 * 540 - 1))
        #expect(try #require(try sevenEighths.nextFrame()).luma.size == PixelSize(width: 840, height: 473))
        #expect(sevenEighths.info.note == "multi.jpg: 960x540 is over the pixel budget of 518399 pixels (--max-pixels); read at 840x473, 7/8 of its size")
        let half = try ImageSource(name: "multi.jpg", bytes: bytes, limits: DecoderLimits(maxPixels: 480 * 270))
        let plane = try #require(try half.nextFrame()).luma
        #expect(plane.size == PixelSize(width: 480, height: 270))
        #expect(half.info.note?.hasSuffix("read at 480x270, 1/2 of its size") == true)
        // Each pixel is its 2×2 block of the original (JPEG is lossy: within 40 levels, on average within 4).
        var worst = 0, total = 0
        for y in 0..<270 {
            for x in 0..<480 {
                let block = [png.bytes[2 * y * 960 + 2 * x], png.bytes[2 * y * 960 + 2 * x + 1],
                             png.bytes[(2 * y + 1) * 960 + 2 * x], png.bytes[(2 * y + 1) * 960 + 2 * x + 1]]
                let d = abs(block.reduce(0) { $0 + Int($1) } / 4 - Int(plane.bytes[y * 480 + x]))
                worst = max(worst, d); total += d
            }
        }
        #expect(worst <= 40 && total / (480 * 270) <= 4, "worst \(worst), total \(total)")
        // A JPEG read as it is has no note.
        #expect(try ImageSource(name: "multi.jpg", bytes: bytes, limits: DecoderLimits()).info.note == nil)
    }

    /// Below 1/8 of each side nothing fits and the JPEG is refused from its header. A progressive JPEG, whose
    /// decoder holds the full-size coefficients, is refused when they need more than 6 bytes per budget pixel.
    @Test func aJPEGTooLargeEvenReducedIsRefused() throws {
        let bytes = try Fixtures.bytes("multi.jpg")
        do {
            _ = try ImageSource(name: "multi.jpg", bytes: bytes, limits: DecoderLimits(maxPixels: 120 * 68 - 1))
            Issue.record("multi.jpg decoded under 1/8 of its size")
        } catch {
            #expect("\(error)".contains("multi.jpg: cannot decode: JPEG 960x540 is over the pixel budget of 8159 pixels"), "\(error)")
        }
        // 1/8 fits (120x68), so the baseline JPEG decodes; the progressive one needs 2 bytes per pixel of
        // 960x540 (about 1 MB) against a cap of 6 × 8160 bytes.
        #expect(try ImageDecoder.decode(bytes, name: "multi.jpg", limits: DecoderLimits(maxPixels: 120 * 68)).size
                == PixelSize(width: 120, height: 68))
        let progressive = try Fixtures.bytes("multi-progressive.jpg")
        #expect(try ImageDecoder.decode(progressive, name: "p.jpg").size == PixelSize(width: 960, height: 540))
        do {
            _ = try ImageSource(name: "multi-progressive.jpg", bytes: progressive, limits: DecoderLimits(maxPixels: 120 * 68))
            Issue.record("the progressive JPEG decoded past its memory cap")
        } catch {
            #expect("\(error)".contains("multi-progressive.jpg: cannot decode: JPEG 960x540 is over the pixel budget and too large to decode at reduced size"), "\(error)")
        }
    }

    /// For each decoder (libpng, giflib, PNM in Swift, OpenCV's imgcodecs for BMP/TIFF, libheif for HEIC/AVIF):
    /// an image of exactly the budget decodes, and with a budget one pixel smaller it is refused with an error
    /// naming the budget. (libjpeg reads a JPEG over the budget at a reduced size: the tests above.)
    @Test(arguments: ["multi.png", "multi.gif", "multi.pgm", "multi.ppm", "multi.bmp", "multi.tiff", "multi.heic", "multi.avif"])
    func anImageAtTheBudgetDecodesAndOnePixelLessIsRefused(name: String) throws {
        let bytes = try Fixtures.bytes(name)
        let plane = try ImageDecoder.decode(bytes, name: name)
        let pixels = plane.width * plane.height
        let exact = try #require(try ImageSource(name: name, bytes: bytes, limits: DecoderLimits(maxPixels: pixels)).nextFrame())
        #expect(exact.luma.bytes == plane.bytes)
        do {
            _ = try ImageSource(name: name, bytes: bytes, limits: DecoderLimits(maxPixels: pixels - 1))
            Issue.record("\(name) decoded over the budget")
        } catch {
            #expect("\(error)".contains(name) && "\(error)".contains("pixel budget of \(pixels - 1) pixels"), "\(error)")
        }
    }

    /// A Netpbm header without its pixels is refused before the plane is allocated, and the error says how
    /// much data the header needs and how much the file has.
    @Test func netpbmHeadersWithoutTheirPixelsAreRefused() throws {
        let cases: [(String, String)] = [
            ("P5 32768 32768 255\n", "32768x32768 is over the pixel budget of 40000000 pixels"),
            ("P5 6000 6000 255\n0123456789", "truncated pixel data (6000x6000 needs 36000000 bytes, the file has 10)"),
            ("P6 6000 6000 65535\n0123", "needs 216000000 bytes, the file has 4)"),
            ("P4 6000 6000\n0123", "needs 4500000 bytes, the file has 4)"),
            ("P2 6000 6000 255\n1 2 3", "needs at least 71999999 bytes, the file has 5)"),
            ("P3 6000 6000 255\n1 2 3", "needs at least 215999999 bytes"),
            ("P1 6000 6000\n0101", "needs at least 36000000 bytes, the file has 4)"),
        ]
        for (text, mention) in cases {
            do {
                _ = try ImageDecoder.decode(Array(text.utf8), name: "h.pnm")
                Issue.record("decoded \(text.debugDescription)")
            } catch {
                #expect("\(error)".contains("h.pnm") && "\(error)".contains(mention), "\(text.debugDescription): \(error)")
            }
        }
    }

    @Test func cmykJpegDecodesToLuma() throws {
        let inputs = try HostileInputs(["cmyk.jpg"])
        let plane = try ImageDecoder.decode(try inputs.bytes("cmyk.jpg"), name: "cmyk.jpg")
        // qrencode -s 6 -m 4: a white quiet zone of 24 pixels, then the top-left finder pattern (black).
        #expect(plane.bytes[5 * plane.width + 5] > 230)
        #expect(plane.bytes[27 * plane.width + 27] < 25)
        let dark = plane.bytes.filter { $0 < 128 }.count
        #expect(dark > plane.bytes.count / 5 && dark < plane.bytes.count * 3 / 5)
    }

    @Test func aVideoWhoseFramesAreOverTheBudgetIsRefused() throws {
        let inputs = try HostileInputs(["ok-mpeg4-odd.mp4"])
        let path = InputPath(inputs.path("ok-mpeg4-odd.mp4"))
        do {
            let source = try VideoSource(path: path, limits: DecoderLimits(maxPixels: 320 * 240 - 1))
            _ = try source.nextFrame()
            Issue.record("a 320x240 video was decoded with a budget of 76799 pixels")
        } catch {
            #expect("\(error)".contains("ok-mpeg4-odd.mp4") && "\(error)".contains("320x240 is over the pixel budget of 76799"), "\(error)")
        }
        let source = try VideoSource(path: path, limits: DecoderLimits(maxPixels: 320 * 240))
        #expect(try source.nextFrame()?.luma.width == 320)
    }

    @Test func aTruncatedVideoIsAnErrorNamingTheFrameWhereDecodingStopped() throws {
        let inputs = try HostileInputs(["truncated.mp4", "truncated.mkv", "truncated.avi"])
        for (name, declared) in [("truncated.mp4", 120), ("truncated.mkv", 120), ("truncated.avi", 120)] {
            let source = try VideoSource(path: InputPath(inputs.path(name)), limits: DecoderLimits())
            var frames = 0
            do {
                while try source.nextFrame() != nil { frames += 1 }
                Issue.record("\(name): \(frames) frames and a clean end")
            } catch {
                #expect(frames > 0 && frames < declared)
                #expect("\(error)".contains(name) && "\(error)".contains("truncated or corrupt: decoding stopped at frame \(frames) of \(declared)"),
                        "\(name) after \(frames) frames: \(error)")
            }
        }
    }

    /// No false alarm: complete files of several containers and codecs (B-frames or not, odd frame counts,
    /// MPEG-TS whose frame count OpenCV can only estimate) end cleanly with every frame. (A guard for the truncation check: it passes on the base commit too.)
    @Test func completeVideosEndCleanlyWithEveryFrame() throws {
        let inputs = try HostileInputs(["ok-videos"])
        let names = try FileManager.default.contentsOfDirectory(atPath: inputs.url.path).filter { $0.hasPrefix("ok-") }.sorted()
        #expect(names.count >= 5)
        let counts = ["ok-h264.mp4": 120, "ok-h264-nob.mp4": 37, "ok-h264.mkv": 37, "ok-mpeg4.mp4": 120, "ok-mpeg4-odd.mp4": 37,
                      "ok-mpeg4.mkv": 120, "ok-mpeg4.avi": 37, "ok-mjpeg.avi": 120, "ok-mpeg4.ts": 37, "ok-vp8.webm": 37, "ok-vp9.webm": 37]
        for name in names {
            let source = try VideoSource(path: InputPath(inputs.path(name)), limits: DecoderLimits())
            var frames = 0
            while try source.nextFrame() != nil { frames += 1 }
            #expect(frames == counts[name], "\(name): \(frames) frames")
        }
    }
}
