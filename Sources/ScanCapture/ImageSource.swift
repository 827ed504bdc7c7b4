internal import CScanImageIO
public import ScanCore

/// A single still image as a one-frame source. PNG and JPEG are decoded with libpng/libjpeg-turbo,
/// PGM/PPM/PBM in Swift, anything else through OpenCV's imgcodecs (loaded on demand). Colour becomes luma
/// (BT.601 weights).
public final class ImageSource: FrameSource, Sendable {
    public let info: SourceInfo
    /// The one frame, until it is taken.
    private let frame: Locked<Frame?>

    /// Decodes the image at `path` now, with the default ``DecoderLimits``.
    /// - Throws: ``ScanError`` naming `path` when it cannot be read or decoded.
    public convenience init(path: String) throws {
        let reader = try openInput(path)
        defer { reader.close() }
        let limits = DecoderLimits()
        try self.init(name: path, bytes: try reader.readAll(limit: limits.maxFileBytes), limits: limits)
    }

    /// Decodes an image held in memory; `name` is used in errors and events. Refuses an image whose header
    /// declares more pixels than `limits.maxPixels` before anything of the image's size is allocated.
    /// - Throws: ``ScanError/undecodableInput(input:reason:)`` naming `name`.
    /// A JPEG over the budget is decoded at the largest reduced size (7/8 … 1/8 of each side) that fits, and
    /// `info.note` says so.
    public init(name: String, bytes: [UInt8], limits: DecoderLimits) throws {
        let (plane, source) = try ImageDecoder.decodeReportingSize(bytes, name: name, limits: limits)
        var note: String?
        if source.width != plane.width || source.height != plane.height {
            // libjpeg's reduced sizes are n/8 of each side, rounded up.
            var (n, d) = (plane.width * 8 / source.width, 8)
            while n % 2 == 0 && d > 1 {
                n /= 2
                d /= 2
            }
            note =
                "\(name): \(source.width)x\(source.height) is over the pixel budget of \(limits.maxPixels) pixels "
                + "(--max-pixels); read at \(plane.width)x\(plane.height), \(n)/\(d) of its size"
        }
        info = SourceInfo(name: name, note: note)
        frame = Locked(Frame(luma: plane, index: 0, time: 0, captureClock: .now))
    }

    /// Decodes an image held in memory with the default ``DecoderLimits``; `name` is used in errors and events.
    public convenience init(name: String, bytes: [UInt8]) throws {
        try self.init(name: name, bytes: bytes, limits: DecoderLimits())
    }

    public func nextFrame() throws -> Frame? {
        frame.withLock { frame in
            defer { frame = nil }
            return frame
        }
    }

    public func close() { frame.withLock { $0 = nil } }
}

/// Decodes still images to luma.
public enum ImageDecoder {
    /// Sets, before any thread but the main one runs, what OpenCV reads once when its codecs plugin loads:
    /// its own image size cap (`OPENCV_IO_MAX_IMAGE_PIXELS`) to `limits.maxPixels`, and FFmpeg's log level to
    /// quiet (`OPENCV_FFMPEG_LOGLEVEL=-8`), each unless the environment already sets it. Call it once at
    /// startup with the process's limits (it uses `setenv`, which is not safe while other threads read the
    /// environment); without it, the first image or video that needs the plugin does the same.
    public static func prepareCodecsPlugin(limits: DecoderLimits) {
        sio_plugin_prepare(UInt64(max(0, limits.maxPixels)))
    }

    /// Decodes `bytes` (any supported format) into a luma plane (one byte per pixel, rows packed).
    ///
    /// The header is read first and its width × height checked against `limits.maxPixels`; only then is the
    /// plane allocated, once, in Swift, and the decoder writes into it (no second copy of the pixels).
    /// Formats other than PNG, JPEG and PNM go through OpenCV's imgcodecs, whose own cap
    /// (`OPENCV_IO_MAX_IMAGE_PIXELS`) is set to the budget of the first such image (it is read once).
    /// - Throws: ``ScanError/undecodableInput(input:reason:)`` naming `name`.
    public static func decode(_ bytes: [UInt8], name: String, limits: DecoderLimits = DecoderLimits()) throws
        -> LumaPlane
    {
        try decodeReportingSize(bytes, name: name, limits: limits).plane
    }

    /// ``decode(_:name:limits:)``, and the size the file declares (pixels). The two differ only for a JPEG
    /// over `limits.maxPixels`, which libjpeg decodes at the largest of its reduced sizes (7/8, 6/8, … 1/8 of
    /// each side) that fits the budget, allocating only that.
    public static func decodeReportingSize(_ bytes: [UInt8], name: String, limits: DecoderLimits = DecoderLimits())
        throws
        -> (plane: LumaPlane, source: PixelSize)
    {
        if bytes.isEmpty { throw ScanError.undecodableInput(input: name, reason: "empty file") }
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(bytes[1]) {
            let plane = try PNM.decode(bytes, name: name, limits: limits)
            return (plane, PixelSize(width: plane.width, height: plane.height))
        }
        var message = [CChar](repeating: 0, count: 512)
        func failure(_ status: sio_status) -> ScanError {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .undecodableInput(input: name, reason: text.isEmpty ? "decoder status \(status.rawValue)" : text)
        }
        let budget = UInt64(max(0, limits.maxPixels))
        return try bytes.withUnsafeBufferPointer { b in
            // `b` is lent to the decoder from open to close: both happen inside this closure.
            var image: OpaquePointer?
            var width: Int32 = 0
            var height: Int32 = 0
            let status = message.withUnsafeMutableBufferPointer {
                sio_image_open(b.baseAddress, b.count, budget, &image, &width, &height, $0.baseAddress, $0.count)
            }
            defer { sio_image_close(image) }
            guard status == SIO_OK, let image else { throw failure(status) }
            var sourceWidth: Int32 = 0
            var sourceHeight: Int32 = 0
            sio_image_source_size(image, &sourceWidth, &sourceHeight)
            let plane = try LumaPlane.decoded(width: Int(width), height: Int(height), limits: limits, input: name) {
                buffer in
                let status = message.withUnsafeMutableBufferPointer {
                    sio_image_read_gray(image, buffer.baseAddress, buffer.count, $0.baseAddress, $0.count)
                }
                guard status == SIO_OK else { throw failure(status) }
            }
            return (plane, PixelSize(width: Int(sourceWidth), height: Int(sourceHeight)))
        }
    }
}

/// Netpbm (PBM/PGM/PPM, ASCII and binary) decoding to luma.
enum PNM {
    /// Checks the header's size against `limits` and that the file holds the pixel data it declares, then
    /// allocates the plane. ASCII variants need at least one byte per bit (P1) or two per sample (P2/P3).
    static func decode(_ b: [UInt8], name: String, limits: DecoderLimits = DecoderLimits()) throws -> LumaPlane {
        var cursor = Cursor(bytes: b, name: name, index: 2)
        let kind = b[1] - UInt8(ascii: "0")
        let w = try cursor.number()
        let h = try cursor.number()
        let maxval = (kind == 1 || kind == 4) ? 1 : try cursor.number()
        guard w > 0, h > 0, maxval > 0, maxval < 65536 else { throw cursor.fail("invalid size or maxval") }
        try limits.check(width: w, height: h, input: name)
        cursor.index += 1  // single whitespace after header
        let header = Header(kind: kind, width: w, height: h, maxval: maxval)
        try header.checkLength(available: b.count - min(cursor.index, b.count), cursor)
        var out = [UInt8](repeating: 0, count: w * h)
        switch kind {
        case 4: try header.bitmap(into: &out, cursor)
        case 5, 6: try header.binary(into: &out, cursor)
        default:  // ASCII 1, 2, 3
            cursor.index -= 1
            try header.ascii(into: &out, &cursor)
        }
        return LumaPlane(width: w, height: h, bytes: out)
    }

    /// A position in a Netpbm file's bytes, for reading its header's numbers and its ASCII samples.
    private struct Cursor {
        let bytes: [UInt8]
        let name: String
        var index: Int

        /// The error for this file: `why` it is not a Netpbm picture scand can read.
        func fail(_ why: String) -> ScanError { .undecodableInput(input: name, reason: "PNM: \(why)") }

        mutating func skipSpaceAndComments() {
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "#") {
                    while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                } else if bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
                    index += 1
                } else {
                    break
                }
            }
        }

        /// The next decimal number after white space and comments (at most 2^24).
        mutating func number() throws -> Int {
            skipSpaceAndComments()
            var v = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                v = v * 10 + Int(bytes[index] - 0x30)
                index += 1
                digits += 1
                if v > 1 << 24 { throw fail("number too large") }
            }
            if digits == 0 { throw fail(index >= bytes.count ? "truncated header" : "malformed header") }
            return v
        }
    }

    /// What the header declares: the variant (`kind`, 1–6 as in P1–P6), the size in pixels and the largest sample.
    private struct Header {
        let kind: UInt8
        let width: Int
        let height: Int
        let maxval: Int
        var channels: Int { (kind == 3 || kind == 6) ? 3 : 1 }
        var scale: Double { 255.0 / Double(maxval) }

        /// Throws when fewer than the bytes the pixels need are `available` after the header.
        func checkLength(available: Int, _ cursor: Cursor) throws {
            let w = width
            let h = height
            let needed: Int
            switch kind {
            case 4: needed = (w + 7) / 8 * h
            case 5, 6: needed = w * h * channels * (maxval > 255 ? 2 : 1)
            case 1: needed = w * h  // one digit a pixel, whitespace optional
            default: needed = w * h * channels * 2 - 1  // a digit a sample, whitespace between them
            }
            guard available >= needed else {
                throw cursor.fail(
                    "truncated pixel data (\(w)x\(h) needs \(kind == 1 || kind == 2 || kind == 3 ? "at least " : "")\(needed) bytes, the file has \(available))"
                )
            }
        }

        /// BT.601 luma of an RGB sample triple, scaled from `maxval` to 0–255.
        func luma(_ r: Int, _ g: Int, _ bl: Int) -> UInt8 {
            UInt8(min(255, max(0, (0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(bl)) * scale + 0.5)))
        }

        /// P4: packed bits from `cursor`'s position, 1 black.
        func bitmap(into out: inout [UInt8], _ cursor: Cursor) throws {
            let b = cursor.bytes
            let i = cursor.index
            let rowBytes = (width + 7) / 8
            guard b.count >= i + rowBytes * height else { throw cursor.fail("truncated pixel data") }
            for y in 0..<height {
                for x in 0..<width {
                    let bit = (b[i + y * rowBytes + x / 8] >> (7 - UInt8(x % 8))) & 1
                    out[y * width + x] = bit == 1 ? 0 : 255
                }
            }
        }

        /// P5 and P6: binary samples (one or two bytes each, big-endian) from `cursor`'s position.
        func binary(into out: inout [UInt8], _ cursor: Cursor) throws {
            let b = cursor.bytes
            let i = cursor.index
            let bps = maxval > 255 ? 2 : 1
            guard b.count >= i + width * height * channels * bps else { throw cursor.fail("truncated pixel data") }
            func sample(_ k: Int) -> Int { bps == 1 ? Int(b[i + k]) : Int(b[i + 2 * k]) << 8 | Int(b[i + 2 * k + 1]) }
            for p in 0..<(width * height) {
                out[p] =
                    channels == 1
                    ? UInt8(min(255, Double(sample(p)) * scale + 0.5))
                    : luma(sample(3 * p), sample(3 * p + 1), sample(3 * p + 2))
            }
        }

        /// P1, P2 and P3: ASCII samples from `cursor`'s position.
        func ascii(into out: inout [UInt8], _ cursor: inout Cursor) throws {
            for p in 0..<(width * height) {
                if kind == 1 {
                    cursor.skipSpaceAndComments()
                    guard cursor.index < cursor.bytes.count else { throw cursor.fail("truncated pixel data") }
                    out[p] = cursor.bytes[cursor.index] == UInt8(ascii: "1") ? 0 : 255
                    cursor.index += 1
                    continue
                }
                if channels == 1 {
                    out[p] = UInt8(min(255, Double(try cursor.number()) * scale + 0.5))
                } else {
                    out[p] = luma(try cursor.number(), try cursor.number(), try cursor.number())
                }
            }
        }
    }
}

extension LumaPlane {
    /// A plane of `width`×`height` pixels (one luma byte each, rows packed) that a decoder writes once: the
    /// size is checked against `limits` first, then the storage is allocated uninitialised and lent to `fill`,
    /// which must write every byte or throw (nothing is returned then).
    /// - Throws: ``ScanError/undecodableInput(input:reason:)`` naming `input` when over the budget, or what
    ///   `fill` throws.
    static func decoded(
        width: Int, height: Int, limits: DecoderLimits, input: String,
        fill: (UnsafeMutableBufferPointer<UInt8>) throws -> Void
    ) throws -> LumaPlane {
        try limits.check(width: width, height: height, input: input)
        let count = width * height
        let pixels = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try fill(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = count
        }
        return LumaPlane(width: width, height: height, bytes: pixels)
    }
}
