public import ScanCore

/// Streams a YUV4MPEG2 (Y4M) file or pipe frame by frame, with memory bounded by one frame.
/// Supports 4:2:0 (all siting variants), 4:2:2, 4:4:4, 4:4:4 with alpha and mono, 8 bits per sample;
/// only the Y plane is kept.
///
/// The stream is read correctly however the producer splits its writes: the header and each `FRAME`
/// line may arrive in any number of pieces. Header tags `W`, `H`, `F`, `C` and `XCOLORRANGE` are used; `I`,
/// `A`, other `X` tags and unknown tags are ignored. Frame parameters after `FRAME ` are ignored. The frame
/// size is checked against ``DecoderLimits/maxPixels`` before any frame is allocated.
///
/// A stream marked `XCOLORRANGE=LIMITED` (ffmpeg's `yuv420p` output: luma 16 is black, 235 white) has its luma
/// stretched to 0–255, as a decoded photo or video file is, so a frame of a stream and the same picture as a
/// still look alike to the readers (a low-contrast code in limited range is a sixth fainter). Without the tag,
/// or with `XCOLORRANGE=FULL`, luma is kept as it is.
public final class Y4MSource: FrameSource, @unchecked Sendable {
    // @unchecked Sendable: `reader` and `index` are touched only while holding `lock`; the rest is immutable.
    public let info: SourceInfo
    public let size: PixelSize
    /// Bytes of chroma (and alpha) planes following the Y plane in each frame.
    let trailingBytes: Int
    /// Whether the header says `XCOLORRANGE=LIMITED`: each frame's luma is stretched from 16–235 to 0–255.
    let limitedRange: Bool
    private let reader: ByteReader
    private var index = 0
    private let lock = Lock()

    /// Longest header line accepted, in bytes (ffmpeg's is about 60).
    static let headerLineLimit = 4096
    /// Longest `FRAME` line accepted, parameters included, in bytes.
    static let frameLineLimit = 1024

    /// Opens `path` (`-` for stdin) and parses the stream header, with the default ``DecoderLimits``.
    /// - Throws: ``ScanError`` naming `path` if it cannot be read or is not Y4M.
    public convenience init(path: String) throws {
        try self.init(path: InputPath(path), limits: DecoderLimits())
    }

    /// Opens `path` by its raw bytes (`-` for stdin) and parses the stream header; frames larger than
    /// `limits.maxPixels` are refused here, before anything is allocated.
    /// - Throws: ``ScanError`` naming `path.displayName` if it cannot be read, is not Y4M or is over the limits.
    public convenience init(path: InputPath, limits: DecoderLimits) throws {
        try self.init(reader: try openInput(path), limits: limits)
    }

    convenience init(reader: ByteReader) throws {
        try self.init(reader: reader, limits: DecoderLimits())
    }

    init(reader: ByteReader, limits: DecoderLimits) throws {
        self.reader = reader
        let name = reader.name
        let headerLine: [UInt8]?
        do { headerLine = try reader.readLineOrFail(limit: Self.headerLineLimit) } catch let e as ByteReader.LineError {
            switch e {
            case .tooLong(let limit):
                throw ScanError.undecodableInput(
                    input: name, reason: "not a Y4M stream (no stream header within \(limit) bytes)")
            case .truncated:
                throw ScanError.undecodableInput(
                    input: name, reason: "truncated: input ends inside the Y4M stream header")
            }
        }
        guard let header = headerLine else {
            throw ScanError.undecodableInput(input: name, reason: "empty input")
        }
        let fields = header.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        guard fields.first == "YUV4MPEG2" else {
            throw ScanError.undecodableInput(input: name, reason: "not a Y4M stream (no YUV4MPEG2 signature)")
        }
        var width = 0
        var height = 0
        var rate: Double?
        var colour = "420jpeg"
        var limited = false
        for f in fields.dropFirst() {
            guard let tag = f.first else { continue }
            let value = String(f.dropFirst())
            switch tag {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "F":
                let parts = value.split(separator: ":")
                if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), n > 0, d > 0,
                    n.isFinite, d.isFinite
                {
                    rate = n / d
                }
            case "C": colour = value
            case "X" where value.uppercased() == "COLORRANGE=LIMITED": limited = true
            default: break  // I (interlacing), A (aspect), other X tags and unknown tags carry nothing we use
            }
        }
        guard width > 0, height > 0 else {
            throw ScanError.undecodableInput(input: name, reason: "Y4M header has no valid W/H (\(width)x\(height))")
        }
        try limits.check(width: width, height: height, input: name)
        let cw = (width + 1) / 2
        let ch = (height + 1) / 2
        switch colour {
        case "420jpeg", "420paldv", "420mpeg2", "420": trailingBytes = 2 * cw * ch
        case "422": trailingBytes = 2 * cw * height
        case "444": trailingBytes = 2 * width * height
        case "444alpha": trailingBytes = 3 * width * height
        case "mono": trailingBytes = 0
        default:
            throw ScanError.undecodableInput(
                input: name,
                reason:
                    "unsupported Y4M colour space C\(colour) (supported: 420jpeg, 420paldv, 420mpeg2, 420, 422, 444, 444alpha, mono; 8-bit)"
            )
        }
        size = PixelSize(width: width, height: height)
        limitedRange = limited
        info = SourceInfo(name: name, frameRate: rate, isLive: false)
    }

    /// The next frame's Y plane, or nil at the end of the stream (the input ends right after a frame).
    /// - Throws: ``ScanError`` naming the input and the frame's index when the `FRAME` marker is missing
    ///   or the input ends inside a frame.
    public func nextFrame() throws -> Frame? {
        try lock.withLock {
            let frameBytes = size.width * size.height + trailingBytes
            func truncated(_ detail: String) -> ScanError {
                .undecodableInput(input: info.name, reason: "truncated: frame \(index) is incomplete (\(detail))")
            }
            let marker: [UInt8]
            do {
                guard let line = try reader.readLineOrFail(limit: Self.frameLineLimit) else { return nil }
                marker = line
            } catch let e as ByteReader.LineError {
                switch e {
                case .tooLong:
                    throw ScanError.undecodableInput(
                        input: info.name, reason: "frame \(index): missing FRAME marker (corrupt stream)")
                case .truncated(let count):
                    throw truncated("the input ends after \(count) bytes of its FRAME line")
                }
            }
            let frameTag = Array("FRAME".utf8)
            guard marker == frameTag || (marker.starts(with: frameTag) && marker[frameTag.count] == 0x20) else {
                throw ScanError.undecodableInput(
                    input: info.name, reason: "frame \(index): missing FRAME marker (corrupt stream)")
            }
            let lumaCount = size.width * size.height
            // A fresh array per frame (frames are handed to other threads), filled straight from the reader.
            var luma = try [UInt8](unsafeUninitializedCapacity: lumaCount) { buffer, initialized in
                initialized = try reader.read(into: UnsafeMutableRawBufferPointer(buffer))
            }
            guard luma.count == lumaCount else { throw truncated("got \(luma.count) of \(frameBytes) bytes") }
            let skipped = try reader.skip(trailingBytes)
            guard skipped == trailingBytes else { throw truncated("got \(lumaCount + skipped) of \(frameBytes) bytes") }
            if limitedRange {
                Self.fullRange.withUnsafeBufferPointer { table in
                    luma.withUnsafeMutableBufferPointer { for i in $0.indices { $0[i] = table[Int($0[i])] } }
                }
            }
            let frame = Frame(
                luma: LumaPlane(width: size.width, height: size.height, bytes: luma), index: index,
                time: Double(index) / (info.frameRate ?? 1), captureClock: .now)
            index += 1
            return frame
        }
    }

    public func close() { lock.withLock { reader.close() } }

    /// Limited-range luma (16 black, 235 white) to full range: (y − 16) × 255 / 219, rounded, clamped to 0–255.
    static let fullRange: [UInt8] = (0..<256).map { y in
        UInt8(max(0, min(255, Int((Double(y - 16) * 255 / 219).rounded()))))
    }
}
