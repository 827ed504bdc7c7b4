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

/// File extensions (lowercased) opened with the video decoder.
let videoExtensions: Set<String> = [
    "mp4", "m4v", "mkv", "webm", "avi", "mov", "mpg", "mpeg", "ts", "wmv", "flv", "ogv", "3gp",
]

/// Opens the right file source for `path` (raw bytes; `-` is stdin), refusing inputs over `limits`
/// before anything large is allocated. Errors and `info.name` use `path.displayName`.
///
/// `.y4m` names stream Y4M; any other file or stdin (`-`) starting with `YUV4MPEG2` is Y4M too (stdin is
/// told apart by its first bytes: Y4M is streamed frame by frame, anything else is an image); known video
/// extensions use the video decoder (not on stdin: the decoder needs a file); anything else is read into
/// memory (at most `limits.maxFileBytes`: a larger regular file is refused before it is read, a pipe as soon
/// as it passes the limit) and decoded as a still image. Directories and devices (e.g. `/dev/zero`) are
/// refused when opened.
/// - Throws: ``ScanError`` naming the input.
public func openFileSource(path input: InputPath, limits: DecoderLimits) throws -> any FrameSource {
    let ext = input.lowercasedExtension
    if ext == "y4m" && !input.isStandardInput { return try Y4MSource(path: input, limits: limits) }
    let reader = try openInput(input)
    // Sniff content first: a Y4M stream under another name is still Y4M (the source keeps the reader open).
    let head = try reader.peek(9)
    if head.starts(with: Array("YUV4MPEG2".utf8)) { return try Y4MSource(reader: reader, limits: limits) }
    defer { reader.close() }
    if input.isStandardInput {
        if head.isEmpty { throw ScanError.undecodableInput(input: input.displayName, reason: "empty input") }
        return try ImageSource(
            name: input.displayName, bytes: try reader.readAll(limit: limits.maxFileBytes), limits: limits)
    }
    if videoExtensions.contains(ext) { return try VideoSource(path: input, limits: limits) }
    return try ImageSource(
        name: input.displayName, bytes: try reader.readAll(limit: limits.maxFileBytes), limits: limits)
}
