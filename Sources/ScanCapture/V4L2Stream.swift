internal import CScanV4L2
import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Why opening or streaming a device failed, sorted by what the session does about it.
enum StreamFailure: Error {
    /// The node is missing or went away (ENOENT, ENODEV): wait for it to come back.
    case gone(String)
    /// The node exists but offers no video capture right now (e.g. v4l2loopback without a writer).
    case notCapture(String)
    /// Another process holds the device (EBUSY): retry with backoff.
    case busy(String)
    /// The device refuses the size or format: a configuration error.
    case refused(String)
    /// Anything else.
    case other(String)
}

/// What one `poll` + `DQBUF` round gave.
enum DequeueResult {
    case frame(LumaPlane, sequence: UInt32, timestamp: MonotonicInstant?)
    /// The driver flagged the buffer as bad (`V4L2_BUF_FLAG_ERROR`); it was requeued.
    case corrupt
    case timeout
    case eio
    /// POLLERR/POLLHUP with ENODEV: unplugged.
    case gone
    case error(String)
}

/// One open, streaming V4L2 device: the only owner of its descriptor and of the mmap'ed buffers.
/// Used from the capture thread only.
final class V4L2Stream {
    let path: String
    private var fd: Int32
    private var buffers: [(pointer: UnsafeMutableRawPointer, length: Int)] = []
    private var streaming = false
    /// The negotiated output size (YU12 from libv4l2).
    let size: PixelSize
    /// Bytes per luma row.
    let stride: Int
    /// The driver's native format that libv4l2 converts from.
    let sourceFourcc: String
    /// The frame rate read back with `G_PARM` (nil when the driver reports none).
    let frameRate: Double?
    /// True when `S_PARM` was not possible (no `V4L2_CAP_TIMEPERFRAME`) although a rate was asked.
    let frameRateIgnored: Bool

    /// Opens `path` through libv4l2, sets YU12 at `size` and (optionally) `frameRate`, maps `bufferCount`
    /// buffers and starts streaming.
    /// - Parameter offered: called to describe the device's formats in a refusal.
    init(
        path: String, size wanted: PixelSize, frameRate wantedRate: Double?, bufferCount: Int,
        offered: () -> String
    ) throws(StreamFailure) {
        self.path = path
        let fd = try Self.open(path)
        let format: NegotiatedFormat
        let rate: NegotiatedRate
        do {
            try Self.checkCapabilities(fd)
            format = try Self.setFormat(fd, size: wanted, offered: offered)
            rate = try Self.setFrameRate(fd, wantedRate)
        } catch {
            scan_v4l2_close(fd)
            throw error
        }
        self.fd = fd
        size = format.size
        stride = format.stride
        sourceFourcc = format.sourceFourcc
        frameRate = rate.rate
        frameRateIgnored = rate.ignored
        do {
            try mapBuffers(count: bufferCount)
            try startStreaming()
        } catch {
            close()
            throw error
        }
    }

    /// `v4l2_open`, errors sorted by what the session does about them.
    private static func open(_ path: String) throws(StreamFailure) -> Int32 {
        let fd = scan_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let e = Errno.last
            switch e {
            case .noSuchFileOrDirectory, .operationNotSupportedByDevice, .noSuchAddressOrDevice:
                throw .gone("cannot open: \(e.text)")
            case .resourceBusy: throw .busy(Self.busyText)
            default: throw .other("cannot open: \(e.text)")
            }
        }
        return fd
    }

    /// `QUERYCAP`: video capture and streaming I/O, now.
    private static func checkCapabilities(_ fd: Int32) throws(StreamFailure) {
        var cap = v4l2_capability()
        guard libIoctl(fd, SCAN_VIDIOC_QUERYCAP, &cap) == 0 else {
            let e = Errno.last
            if e == .operationNotSupportedByDevice { throw .gone("QUERYCAP: \(e.text)") }
            throw .other("not a V4L2 device (QUERYCAP: \(e.text))")
        }
        let caps = (cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS)) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            throw .notCapture("offers no video capture now (device_caps 0x\(String(caps, radix: 16)))")
        }
        guard caps & UInt32(V4L2_CAP_STREAMING) != 0 else {
            throw .refused("does not support streaming I/O (device_caps 0x\(String(caps, radix: 16)))")
        }
    }

    private struct NegotiatedFormat {
        var size: PixelSize
        var stride: Int
        var sourceFourcc: String
    }
    private struct NegotiatedRate {
        var rate: Double?
        var ignored: Bool
    }

    /// `S_FMT`: YU12 out of libv4l2's converter at exactly `wanted`; the driver's native format read back raw.
    private static func setFormat(_ fd: Int32, size wanted: PixelSize, offered: () -> String) throws(StreamFailure)
        -> NegotiatedFormat
    {
        var fmt = v4l2_format()
        fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        fmt.fmt.pix.width = UInt32(wanted.width)
        fmt.fmt.pix.height = UInt32(wanted.height)
        fmt.fmt.pix.pixelformat = fourccCode("YU12")
        fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        if libIoctl(fd, SCAN_VIDIOC_S_FMT, &fmt) != 0 {
            let e = Errno.last
            switch e {
            case .resourceBusy: throw .busy(Self.busyText)
            case .operationNotSupportedByDevice: throw .gone("S_FMT: \(e.text)")
            default:
                throw .refused(
                    "refuses YU12 \(wanted.width)x\(wanted.height) (S_FMT: \(e.text)); it offers: \(offered())")
            }
        }
        let got = PixelSize(width: Int(fmt.fmt.pix.width), height: Int(fmt.fmt.pix.height))
        guard got == wanted, fmt.fmt.pix.pixelformat == fourccCode("YU12") else {
            throw .refused(
                "refuses \(wanted.width)x\(wanted.height) (the driver chose \(got.width)x\(got.height) \(fourccString(fmt.fmt.pix.pixelformat))); it offers: \(offered())"
            )
        }
        var native = v4l2_format()
        native.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let source = rawIoctl(fd, SCAN_VIDIOC_G_FMT, &native) == 0 ? fourccString(native.fmt.pix.pixelformat) : "YU12"
        return NegotiatedFormat(size: got, stride: max(got.width, Int(fmt.fmt.pix.bytesperline)), sourceFourcc: source)
    }

    /// `S_PARM` when a rate is wanted and the driver can set one, then `G_PARM` for what it chose.
    private static func setFrameRate(_ fd: Int32, _ wantedRate: Double?) throws(StreamFailure) -> NegotiatedRate {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        let hasParm = libIoctl(fd, SCAN_VIDIOC_G_PARM, &parm) == 0
        let canSet = hasParm && parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0
        if let wantedRate, canSet {
            parm.parm.capture.timeperframe.numerator = 1000
            parm.parm.capture.timeperframe.denominator = UInt32((wantedRate * 1000).rounded())
            if libIoctl(fd, SCAN_VIDIOC_S_PARM, &parm) != 0 && Errno.last == .resourceBusy {
                throw .busy(Self.busyText)
            }
            _ = libIoctl(fd, SCAN_VIDIOC_G_PARM, &parm)
        }
        let tpf = parm.parm.capture.timeperframe
        return NegotiatedRate(
            rate: hasParm && tpf.numerator > 0 && tpf.denominator > 0
                ? Double(tpf.denominator) / Double(tpf.numerator) : nil,
            ignored: wantedRate != nil && !canSet)
    }

    /// `REQBUFS`, then `QUERYBUF` + `v4l2_mmap` + `QBUF` for each granted buffer.
    private func mapBuffers(count: Int) throws(StreamFailure) {
        var req = v4l2_requestbuffers()
        req.count = UInt32(count)
        req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        req.memory = V4L2_MEMORY_MMAP.rawValue
        if libIoctl(fd, SCAN_VIDIOC_REQBUFS, &req) != 0 {
            let e = Errno.last
            if e == .resourceBusy { throw .busy(Self.busyText) }
            if e == .operationNotSupportedByDevice { throw .gone("REQBUFS: \(e.text)") }
            throw .other("REQBUFS: \(e.text)")
        }
        guard req.count >= 1 else { throw .other("REQBUFS granted no buffers") }
        for i in 0..<req.count {
            var buf = v4l2_buffer()
            buf.index = i
            buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buf.memory = V4L2_MEMORY_MMAP.rawValue
            guard libIoctl(fd, SCAN_VIDIOC_QUERYBUF, &buf) == 0 else {
                throw .other("QUERYBUF \(i): \(Errno.last.text)")
            }
            let p = scan_v4l2_mmap(nil, Int(buf.length), PROT_READ | PROT_WRITE, MAP_SHARED, fd, Int64(buf.m.offset))
            guard let p, p != MAP_FAILED else { throw .other("v4l2_mmap buffer \(i): \(Errno.last.text)") }
            buffers.append((p, Int(buf.length)))
            guard libIoctl(fd, SCAN_VIDIOC_QBUF, &buf) == 0 else { throw .other("QBUF \(i): \(Errno.last.text)") }
        }
    }

    /// `STREAMON`.
    private func startStreaming() throws(StreamFailure) {
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        guard libIoctl(fd, SCAN_VIDIOC_STREAMON, &type) == 0 else {
            let e = Errno.last
            if e == .resourceBusy { throw .busy(Self.busyText) }
            if e == .operationNotSupportedByDevice { throw .gone("STREAMON: \(e.text)") }
            throw .other("STREAMON: \(e.text)")
        }
        streaming = true
    }

    // MARK: Controls (through this stream's descriptor)

    /// The device's controls with their current values.
    func controls() -> [CaptureDeviceControl] { V4L2Controls.query(fd: fd, ioctl: libIoctl) }

    /// Writes `writes` together (`S_EXT_CTRLS`).
    func apply(_ writes: [ControlWrite]) throws(ControlError) {
        try V4L2Controls.apply(writes, fd: fd, ioctl: libIoctl)
    }

    /// Subscribes to value changes of `ids` (`V4L2_EVENT_CTRL`, with feedback); they come out of ``takeControlEvents()``.
    @discardableResult
    func subscribeControlEvents(ids: [UInt32]) -> Int { V4L2Controls.subscribe(fd: fd, ids: ids, ioctl: libIoctl) }

    private var pendingControlEvents: [(id: UInt32, value: Int64)] = []

    /// Control changes dequeued by ``next(timeout:)`` since the last call.
    func takeControlEvents() -> [(id: UInt32, value: Int64)] {
        defer { pendingControlEvents.removeAll() }
        return pendingControlEvents
    }

    static let busyText = "device busy: another process is using it (EBUSY)"

    deinit { close() }

    /// Stops streaming, unmaps the buffers and closes the descriptor. Safe to call twice.
    func close() {
        guard fd >= 0 else { return }
        if streaming {
            var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
            _ = libIoctl(fd, SCAN_VIDIOC_STREAMOFF, &type)
            streaming = false
        }
        releaseBuffers()
        scan_v4l2_close(fd)
        fd = -1
    }

    private func releaseBuffers() {
        for b in buffers { _ = scan_v4l2_munmap(b.pointer, b.length) }
        buffers.removeAll()
        if fd >= 0 {
            var req = v4l2_requestbuffers()
            req.count = 0
            req.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            req.memory = V4L2_MEMORY_MMAP.rawValue
            _ = libIoctl(fd, SCAN_VIDIOC_REQBUFS, &req)
        }
    }

    /// Waits up to `timeout` seconds for a buffer, copies its luma plane out and requeues it.
    func next(timeout: Duration) -> DequeueResult {
        var p = pollfd(fd: fd, events: Int16(POLLIN | POLLPRI), revents: 0)
        let r = poll(&p, 1, Int32(max(1, (timeout.inSeconds * 1000).rounded())))
        if r == 0 { return .timeout }
        if r < 0 {
            let e = Errno.last
            return e == .interrupted ? .timeout : .error("poll: \(e.text)")
        }
        if p.revents & Int16(POLLPRI) != 0 {
            pendingControlEvents += V4L2Controls.dequeue(fd: fd, ioctl: libIoctl)
            if p.revents & Int16(POLLIN | POLLERR | POLLHUP | POLLNVAL) == 0 { return .timeout }
        }
        let hangup = p.revents & Int16(POLLHUP | POLLNVAL) != 0
        var buf = v4l2_buffer()
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        buf.memory = V4L2_MEMORY_MMAP.rawValue
        if libIoctl(fd, SCAN_VIDIOC_DQBUF, &buf) != 0 {
            let e = Errno.last
            if e == .operationNotSupportedByDevice || hangup { return .gone }
            if e == .resourceTemporarilyUnavailable {
                return p.revents & Int16(POLLERR) != 0 ? .error("POLLERR without a buffer") : .timeout
            }
            if e == .ioError { return .eio }
            return .error("DQBUF: \(e.text)")
        }
        defer { _ = libIoctl(fd, SCAN_VIDIOC_QBUF, &buf) }
        if buf.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0 { return .corrupt }
        let index = Int(buf.index)
        guard index < buffers.count else { return .error("DQBUF returned buffer \(index) of \(buffers.count)") }
        let needed = stride * (size.height - 1) + size.width
        guard buffers[index].length >= needed, buf.bytesused == 0 || Int(buf.bytesused) >= needed else {
            return .corrupt
        }
        let src = buffers[index].pointer.assumingMemoryBound(to: UInt8.self)
        var luma = [UInt8](repeating: 0, count: size.width * size.height)
        luma.withUnsafeMutableBufferPointer { dst in
            if stride == size.width {
                dst.baseAddress!.update(from: src, count: size.width * size.height)
            } else {
                for row in 0..<size.height {
                    (dst.baseAddress! + row * size.width).update(from: src + row * stride, count: size.width)
                }
            }
        }
        let monotonic = buf.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
        let ts = MonotonicInstant(seconds: buf.timestamp.tv_sec, microseconds: buf.timestamp.tv_usec)
        return .frame(
            LumaPlane(width: size.width, height: size.height, bytes: luma), sequence: buf.sequence,
            timestamp: monotonic && ts.nanoseconds > 0 ? ts : nil)
    }
}
