public import ScanCore
internal import CScanOpenCV

/// A single still image as a one-frame source. PNG and JPEG are decoded with libpng/libjpeg-turbo,
/// PGM/PPM/PBM in Swift, anything else through OpenCV's imgcodecs (loaded on demand). Colour becomes luma
/// (BT.601 weights).
public final class ImageSource: FrameSource, @unchecked Sendable {
    public let info: SourceInfo
    private var frame: Frame?
    private let lock = Lock()

    /// Decodes the image at `path` now.
    /// - Throws: ``ScanError`` naming `path` when it cannot be read or decoded.
    public convenience init(path: String) throws {
        let reader = try openInput(path)
        defer { reader.close() }
        try self.init(name: path, bytes: try reader.readAll(limit: 512 << 20))
    }

    /// Decodes an image held in memory; `name` is used in errors and events. Refuses an image whose header
    /// declares more pixels than `limits` allows, before decoding.
    public convenience init(name: String, bytes: [UInt8], limits: DecoderLimits) throws {
        _ = limits // interface placeholder: the decoders check the budget
        try self.init(name: name, bytes: bytes)
    }

    /// Decodes an image held in memory; `name` is used in errors and events.
    public init(name: String, bytes: [UInt8]) throws {
        info = SourceInfo(name: name)
        let plane = try ImageDecoder.decode(bytes, name: name)
        frame = Frame(luma: plane, index: 0, time: 0, captureClock: monotonicSeconds())
    }

    public func nextFrame() throws -> Frame? {
        lock.withLock { defer { frame = nil }; return frame }
    }

    public func close() { lock.withLock { frame = nil } }
}

/// Decodes still images to luma.
public enum ImageDecoder {
    /// Decodes `bytes` (any supported format) into a luma plane.
    /// - Throws: ``ScanError/undecodableInput(input:reason:)`` naming `name`.
    public static func decode(_ bytes: [UInt8], name: String) throws -> LumaPlane {
        if bytes.isEmpty { throw ScanError.undecodableInput(input: name, reason: "empty file") }
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]) {
            return try PNM.decode(bytes, name: name)
        }
        let kind = bytes.withUnsafeBufferPointer { scv_sniff_format($0.baseAddress, $0.count) }
        var gray = scv_gray()
        var message = [CChar](repeating: 0, count: 512)
        let status = bytes.withUnsafeBufferPointer { b in
            message.withUnsafeMutableBufferPointer { m in
                kind != 0
                    ? scv_decode_png_jpeg(b.baseAddress, b.count, &gray, m.baseAddress, m.count)
                    : scv_plugin_decode_image(b.baseAddress, b.count, &gray, m.baseAddress, m.count)
            }
        }
        defer { scv_gray_free(&gray) }
        guard status == SCV_OK, let data = gray.data else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ScanError.undecodableInput(input: name, reason: text.isEmpty ? "decoder status \(status.rawValue)" : text)
        }
        let count = Int(gray.width) * Int(gray.height)
        let copy = [UInt8](UnsafeBufferPointer(start: data, count: count))
        return LumaPlane(width: Int(gray.width), height: Int(gray.height), bytes: copy)
    }
}

/// Netpbm (PBM/PGM/PPM, ASCII and binary) decoding to luma.
enum PNM {
    static func decode(_ b: [UInt8], name: String) throws -> LumaPlane {
        var i = 2
        func fail(_ why: String) -> ScanError { .undecodableInput(input: name, reason: "PNM: \(why)") }
        func skipSpaceAndComments() {
            while i < b.count {
                if b[i] == UInt8(ascii: "#") { while i < b.count, b[i] != 0x0A { i += 1 } }
                else if b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
                else { break }
            }
        }
        func number() throws -> Int {
            skipSpaceAndComments()
            var v = 0, digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                v = v * 10 + Int(b[i] - 0x30); i += 1; digits += 1
                if v > 1 << 24 { throw fail("number too large") }
            }
            if digits == 0 { throw fail(i >= b.count ? "truncated header" : "malformed header") }
            return v
        }
        let kind = b[1] - UInt8(ascii: "0")
        let w = try number(), h = try number()
        let maxval = (kind == 1 || kind == 4) ? 1 : try number()
        guard w > 0, h > 0, w <= 32768, h <= 32768, maxval > 0, maxval < 65536 else { throw fail("invalid size or maxval") }
        i += 1 // single whitespace after header
        var out = [UInt8](repeating: 0, count: w * h)
        let channels = (kind == 3 || kind == 6) ? 3 : 1
        let scale = 255.0 / Double(maxval)
        func lumaOf(_ r: Int, _ g: Int, _ bl: Int) -> UInt8 {
            UInt8(min(255, max(0, (0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(bl)) * scale + 0.5)))
        }
        switch kind {
        case 4:
            let rowBytes = (w + 7) / 8
            guard b.count >= i + rowBytes * h else { throw fail("truncated pixel data") }
            for y in 0..<h { for x in 0..<w {
                let bit = (b[i + y * rowBytes + x / 8] >> (7 - UInt8(x % 8))) & 1
                out[y * w + x] = bit == 1 ? 0 : 255
            } }
        case 5, 6:
            let bps = maxval > 255 ? 2 : 1
            guard b.count >= i + w * h * channels * bps else { throw fail("truncated pixel data") }
            func sample(_ k: Int) -> Int { bps == 1 ? Int(b[i + k]) : Int(b[i + 2 * k]) << 8 | Int(b[i + 2 * k + 1]) }
            for p in 0..<(w * h) {
                out[p] = channels == 1 ? UInt8(min(255, Double(sample(p)) * scale + 0.5))
                                       : lumaOf(sample(3 * p), sample(3 * p + 1), sample(3 * p + 2))
            }
        default: // ASCII 1, 2, 3
            i -= 1
            for p in 0..<(w * h) {
                if kind == 1 { skipSpaceAndComments(); guard i < b.count else { throw fail("truncated pixel data") }
                    out[p] = b[i] == UInt8(ascii: "1") ? 0 : 255; i += 1; continue }
                if channels == 1 { out[p] = UInt8(min(255, Double(try number()) * scale + 0.5)) }
                else { out[p] = lumaOf(try number(), try number(), try number()) }
            }
        }
        return LumaPlane(width: w, height: h, bytes: out)
    }
}
