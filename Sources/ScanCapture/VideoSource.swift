internal import CScanImageIO
public import ScanCore

/// A video file (mp4, mkv, avi, …) decoded frame by frame through OpenCV's videoio (FFmpeg),
/// loaded on demand. Memory is bounded by one frame.
public final class VideoSource: FrameSource, @unchecked Sendable {
    // Invariant for @unchecked Sendable: `handle` (the one owner of the decoder) and `index` are touched
    // only under `lock`; `info` is immutable.
    public let info: SourceInfo
    private var handle: OpaquePointer?
    private var index = 0
    private let lock = Lock()

    /// Opens `path` (raw bytes; shown as `path.displayName`). A stream whose declared frame size, or a frame
    /// whose size, is over `limits.maxPixels` is refused. - Throws: ``ScanError`` naming the input.
    public init(path: InputPath, limits: DecoderLimits) throws {
        var fps = 0.0
        var h: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let budget = UInt64(max(0, limits.maxPixels))
        // The file is opened by its raw bytes (a name need not be UTF-8), lent as a C string for the call only.
        let status = (path.bytes + [0]).withUnsafeBufferPointer { name in
            name.withMemoryRebound(to: CChar.self) { cName in
                message.withUnsafeMutableBufferPointer {
                    sio_plugin_video_open(cName.baseAddress, budget, &h, &fps, $0.baseAddress, $0.count)
                }
            }
        }
        guard status == SIO_OK, let h else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ScanError.undecodableInput(input: path.displayName, reason: text)
        }
        handle = h
        self.limits = limits
        info = SourceInfo(name: path.displayName, frameRate: fps > 0 && fps < 1000 ? fps : nil)
    }

    /// Opens the network stream at `url` (`rtsp://`, `http://`, `https://`; credentials may be in it: they are
    /// never shown) through FFmpeg, waiting at most `openTimeout` seconds to connect and `readTimeout` for
    /// each later frame. Its name is `name` (the URL without credentials). A stream has no length: its end,
    /// or a read that times out, is the end of ``nextFrame()`` (nil), for the caller to reconnect.
    /// - Throws: ``ScanError/undecodableInput(input:reason:)`` naming `name`.
    public init(streamURL url: String, name: String, openTimeout: Double, readTimeout: Double, limits: DecoderLimits)
        throws
    {
        var fps = 0.0
        var h: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let budget = UInt64(max(0, limits.maxPixels))
        func ms(_ seconds: Double) -> Int32 { Int32(max(1, min(3_600_000, (seconds * 1000).rounded()))) }
        let status = message.withUnsafeMutableBufferPointer {
            sio_plugin_stream_open(url, budget, ms(openTimeout), ms(readTimeout), &h, &fps, $0.baseAddress, $0.count)
        }
        guard status == SIO_OK, let h else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ScanError.undecodableInput(input: name, reason: text)
        }
        handle = h
        self.limits = limits
        info = SourceInfo(name: name, frameRate: fps > 0 && fps < 1000 ? fps : nil, isLive: true)
    }

    /// Opens `path` with the default ``DecoderLimits``. - Throws: ``ScanError`` naming `path`.
    public convenience init(path: String) throws {
        try self.init(path: InputPath(path), limits: DecoderLimits())
    }

    /// Opens `path` (a UTF-8 name). - Throws: ``ScanError`` naming `path`.
    public convenience init(path: String, limits: DecoderLimits) throws {
        try self.init(path: InputPath(path), limits: limits)
    }

    /// The budget every frame is checked against.
    private let limits: DecoderLimits

    deinit { if let handle { sio_plugin_video_close(handle) } }

    /// The next frame, or nil at the end of the stream.
    /// - Throws: ``ScanError/undecodableInput(input:reason:)`` naming the file and the frame, when decoding
    ///   fails or stops well before the frame count the container declares ("truncated or corrupt: decoding
    ///   stopped at frame N of M"), or when a frame is over the pixel budget.
    public func nextFrame() throws -> Frame? {
        try lock.withLock {
            guard let handle else { return nil }
            var width: Int32 = 0
            var height: Int32 = 0
            var time = 0.0
            var message = [CChar](repeating: 0, count: 512)
            func failure(_ status: sio_status) -> ScanError {
                let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                return .undecodableInput(
                    input: info.name,
                    reason: text.isEmpty
                        ? "frame \(index): decoder status \(status.rawValue)"
                        : text.contains("frame") ? text : "frame \(index): \(text)")
            }
            let status = message.withUnsafeMutableBufferPointer {
                sio_plugin_video_read(handle, &width, &height, &time, $0.baseAddress, $0.count)
            }
            if status == SIO_ERR_END { return nil }
            guard status == SIO_OK else { throw failure(status) }
            let plane = try LumaPlane.decoded(width: Int(width), height: Int(height), limits: limits, input: info.name)
            { buffer in
                let status = message.withUnsafeMutableBufferPointer {
                    sio_plugin_video_gray(handle, buffer.baseAddress, buffer.count, $0.baseAddress, $0.count)
                }
                guard status == SIO_OK else { throw failure(status) }
            }
            let t = info.frameRate.map { Double(index) / $0 } ?? time
            defer { index += 1 }
            return Frame(luma: plane, index: index, time: t, captureClock: .now)
        }
    }

    public func close() {
        lock.withLock {
            if let handle { sio_plugin_video_close(handle) }
            handle = nil
        }
    }
}
