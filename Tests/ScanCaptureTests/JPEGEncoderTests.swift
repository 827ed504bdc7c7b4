import Testing
import ScanCore
import ScanCapture

/// scand's one JPEG encoder, decoded again by scand's own image decoder (libjpeg-turbo, grey output).
@Suite struct JPEGEncoderTests {
    /// A 96×64 picture: a dark square at (24, 16)…(56, 48) on a light background.
    static func plane(stride: Int = 96) -> LumaPlane {
        var bytes = [UInt8](repeating: 0, count: stride * 64)
        for y in 0..<64 { for x in 0..<96 { bytes[y * stride + x] = (24..<56).contains(x) && (16..<48).contains(y) ? 30 : 220 } }
        return LumaPlane(width: 96, height: 64, stride: stride, bytes: bytes)
    }

    @Test("a grey plane (also with padded rows) comes back at its size with its values within a few levels")
    func greyRoundTrip() throws {
        for stride in [96, 128] {
            let jpeg = try JPEGEncoder.encode(Self.plane(stride: stride), quality: 90)
            #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]) && Array(jpeg.suffix(2)) == [0xFF, 0xD9])
            let back = try ImageDecoder.decode(jpeg, name: "grey.jpg")
            #expect(back.size == PixelSize(width: 96, height: 64))
            #expect(abs(Int(back[40, 32]) - 30) <= 6 && abs(Int(back[5, 5]) - 220) <= 6)
        }
    }

    @Test("an RGB picture encodes in colour; its luma decodes where the drawing is")
    func colourRoundTrip() throws {
        var image = RGBImage(luma: Self.plane())
        // A pure green column at x = 10: luma ≈ 0.587 × 255 ≈ 150 on the light background.
        for y in 0..<64 { let i = (y * 96 + 10) * 3; image.pixels[i] = 0; image.pixels[i + 1] = 255; image.pixels[i + 2] = 0 }
        let jpeg = try JPEGEncoder.encode(image, quality: 95)
        let back = try ImageDecoder.decode(jpeg, name: "colour.jpg")
        #expect(back.size == PixelSize(width: 96, height: 64))
        #expect(abs(Int(back[10, 32]) - 150) <= 20, "green column luma \(back[10, 32])")
        #expect(abs(Int(back[40, 32]) - 30) <= 8)
    }

    @Test("a quality outside 1...100 is refused with a clear error")
    func badQuality() {
        #expect(throws: ScanError.self) { try JPEGEncoder.encode(Self.plane(), quality: 0) }
        #expect(throws: ScanError.self) { try JPEGEncoder.encode(RGBImage(width: 2, height: 2), quality: 101) }
    }
}
