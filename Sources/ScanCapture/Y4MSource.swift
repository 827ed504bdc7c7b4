public import ScanCore

/// Streams a YUV4MPEG2 (Y4M) file or pipe frame by frame, with memory bounded by one frame.
/// Supports 4:2:0 (all siting variants), 4:2:2, 4:4:4, 4:4:4 with alpha and mono, 8 bits per sample;
/// only the Y plane is kept.
public final class Y4MSource: FrameSource, @unchecked Sendable {
    public let info: SourceInfo
    public let size: PixelSize
    /// Bytes of chroma (and alpha) planes following the Y plane in each frame.
    let trailingBytes: Int
    private let reader: ByteReader
    private var index = 0
    private let lock = Lock()

    /// Opens `path` (`-` for stdin) and parses the stream header.
    /// - Throws: ``ScanError`` naming `path` if it cannot be read or is not Y4M.
    public convenience init(path: String) throws {
        try self.init(reader: try openInput(path))
    }

    init(reader: ByteReader) throws {
        self.reader = reader
        let name = reader.name
        guard let header = try reader.readLine(limit: 4096) else {
            throw ScanError.undecodableInput(input: name, reason: "empty input")
        }
        let fields = header.split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
        guard fields.first == "YUV4MPEG2" else {
            throw ScanError.undecodableInput(input: name, reason: "not a Y4M stream (no YUV4MPEG2 signature)")
        }
        var width = 0, height = 0, rate: Double?, colour = "420jpeg"
        for f in fields.dropFirst() {
            guard let tag = f.first else { continue }
            let value = String(f.dropFirst())
            switch tag {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "F":
                let parts = value.split(separator: ":")
                if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), n > 0, d > 0 { rate = n / d }
            case "C": colour = value
            default: break
            }
        }
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw ScanError.undecodableInput(input: name, reason: "Y4M header has no valid W/H (\(width)x\(height))")
        }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        switch colour {
        case "420jpeg", "420paldv", "420mpeg2", "420": trailingBytes = 2 * cw * ch
        case "422": trailingBytes = 2 * cw * height
        case "444": trailingBytes = 2 * width * height
        case "444alpha": trailingBytes = 3 * width * height
        case "mono": trailingBytes = 0
        default:
            throw ScanError.undecodableInput(
                input: name, reason: "unsupported Y4M colour space C\(colour) (supported: 420jpeg, 420paldv, 420mpeg2, 420, 422, 444, 444alpha, mono; 8-bit)")
        }
        size = PixelSize(width: width, height: height)
        info = SourceInfo(name: name, frameRate: rate, isLive: false)
    }

    public func nextFrame() throws -> Frame? {
        try lock.withLock {
            guard let marker = try reader.readLine(limit: 1024) else { return nil }
            guard marker.starts(with: Array("FRAME".utf8)) else {
                throw ScanError.undecodableInput(input: info.name, reason: "frame \(index): missing FRAME marker (corrupt stream)")
            }
            let lumaCount = size.width * size.height
            var luma = [UInt8](repeating: 0, count: lumaCount)
            let got = try reader.read(into: &luma, count: lumaCount)
            let skipped = got == lumaCount ? try reader.skip(trailingBytes) : 0
            guard got == lumaCount, skipped == trailingBytes else {
                throw ScanError.undecodableInput(input: info.name, reason: "truncated: frame \(index) is incomplete")
            }
            let frame = Frame(luma: LumaPlane(width: size.width, height: size.height, bytes: luma), index: index,
                              time: Double(index) / (info.frameRate ?? 1), captureClock: monotonicSeconds())
            index += 1
            return frame
        }
    }

    public func close() { lock.withLock { reader.close() } }
}
