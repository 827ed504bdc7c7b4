internal import CScanV4L2
public import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A frame interval (seconds per frame as a fraction), as V4L2 reports it.
public struct FrameInterval: Sendable, Hashable, Encodable {
    public var numerator: UInt32
    public var denominator: UInt32
    public init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }
    /// Frames per second (0 when the interval is 0).
    public var frameRate: Double { numerator == 0 ? 0 : Double(denominator) / Double(numerator) }

    enum CodingKeys: String, CodingKey { case numerator, denominator, fps }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(numerator, forKey: .numerator)
        try c.encode(denominator, forKey: .denominator)
        try c.encode((frameRate * 1000).rounded() / 1000, forKey: .fps)
    }
}

/// A continuous or stepwise range of frame intervals.
public struct FrameIntervalRange: Sendable, Hashable, Encodable {
    public var min: FrameInterval
    public var max: FrameInterval
    public var step: FrameInterval
}

/// One discrete frame size with the intervals the driver offers at it.
public struct DiscreteFrameSize: Sendable, Hashable, Encodable {
    public var width: Int
    public var height: Int
    /// Discrete intervals (empty when the driver gives a range instead).
    public var intervals: [FrameInterval]
    /// Stepwise or continuous intervals, when the driver gives a range.
    public var intervalRange: FrameIntervalRange?
    public var size: PixelSize { PixelSize(width: width, height: height) }
}

/// A stepwise (or continuous: step 1) range of frame sizes.
public struct StepwiseFrameSize: Sendable, Hashable, Encodable {
    public var minWidth: Int, maxWidth: Int, stepWidth: Int
    public var minHeight: Int, maxHeight: Int, stepHeight: Int
    /// Intervals offered at the largest size.
    public var intervals: [FrameInterval]
    public var intervalRange: FrameIntervalRange?

    /// True when `size` lies in the range and on its steps.
    public func contains(_ size: PixelSize) -> Bool {
        size.width >= minWidth && size.width <= maxWidth && size.height >= minHeight && size.height <= maxHeight
            && (size.width - minWidth) % Swift.max(1, stepWidth) == 0
            && (size.height - minHeight) % Swift.max(1, stepHeight) == 0
    }

    /// The size in the range closest to `target` (clamped, then rounded down to the steps).
    public func nearest(to target: PixelSize) -> PixelSize {
        func fit(_ v: Int, _ lo: Int, _ hi: Int, _ step: Int) -> Int {
            let c = Swift.min(hi, Swift.max(lo, v))
            return lo + (c - lo) / Swift.max(1, step) * Swift.max(1, step)
        }
        return PixelSize(
            width: fit(target.width, minWidth, maxWidth, stepWidth),
            height: fit(target.height, minHeight, maxHeight, stepHeight))
    }
}

/// One pixel format the driver offers (not libv4l2's emulated ones).
public struct CaptureFormat: Sendable, Hashable, Encodable {
    /// The four-character code, e.g. `YUYV`, `MJPG`.
    public var fourcc: String
    /// The driver's description, e.g. `YUYV 4:2:2`.
    public var description: String
    public var compressed: Bool
    /// Discrete sizes (empty when the driver gives a stepwise range).
    public var sizes: [DiscreteFrameSize]
    public var stepwise: StepwiseFrameSize?

    /// True when libv4l2 can convert this format to YU12 (raw formats and (M)JPEG; not H.264 and friends).
    public var isConvertible: Bool {
        !["H264", "HEVC", "H265", "VP80", "VP90", "MPG1", "MPG2", "MPG4", "M4S2", "XVID", "AV1F"].contains(fourcc)
    }
}

/// A V4L2 video capture device (`AVCaptureDevice`): what discovery found at one node.
public struct CaptureDevice: Sendable, Hashable, Encodable {
    /// The device node, e.g. `/dev/video0`.
    public var path: String
    /// The stable name under `/dev/v4l/by-id` pointing at `path`, when udev made one (`uniqueID`).
    public var uniqueID: String?
    /// The driver name (`QUERYCAP.driver`), e.g. `uvcvideo`, `vivid`.
    public var driver: String
    /// The device name (`QUERYCAP.card`, `localizedName`).
    public var card: String
    /// The bus location (`QUERYCAP.bus_info`), e.g. `usb-0000:00:14.0-1`.
    public var bus: String
    /// `QUERYCAP.device_caps` of this node.
    public var deviceCaps: UInt32
    /// Native formats, in the driver's order.
    public var formats: [CaptureFormat]
    /// Every control (`VIDIOC_QUERY_EXT_CTRL` through libv4l2) with its value when discovery ran.
    public var controls: [CaptureDeviceControl]
    /// The descriptor held between ``lockForConfiguration()`` and ``unlockForConfiguration()`` (shared by copies).
    private let configurationLock = ConfigurationLock()

    public init(
        path: String, uniqueID: String? = nil, driver: String, card: String, bus: String, deviceCaps: UInt32,
        formats: [CaptureFormat], controls: [CaptureDeviceControl] = []
    ) {
        self.path = path
        self.uniqueID = uniqueID
        self.driver = driver
        self.card = card
        self.bus = bus
        self.deviceCaps = deviceCaps
        self.formats = formats
        self.controls = controls
    }

    public static func == (a: CaptureDevice, b: CaptureDevice) -> Bool {
        (a.path, a.uniqueID, a.driver, a.card, a.bus, a.deviceCaps) == (
            b.path, b.uniqueID, b.driver, b.card, b.bus, b.deviceCaps
        )
            && a.formats == b.formats && a.controls == b.controls
    }
    public func hash(into h: inout Hasher) {
        h.combine(path)
        h.combine(uniqueID)
        h.combine(driver)
        h.combine(card)
        h.combine(bus)
        h.combine(deviceCaps)
        h.combine(formats)
        h.combine(controls)
    }

    enum CodingKeys: String, CodingKey { case path, id, driver, card, bus, formats, controls, supportedModes }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(path, forKey: .path)
        try c.encodeIfPresent(uniqueID, forKey: .id)
        try c.encode(driver, forKey: .driver)
        try c.encode(card, forKey: .card)
        try c.encode(bus, forKey: .bus)
        try c.encode(formats, forKey: .formats)
        try c.encode(controls, forKey: .controls)
        try c.encode(SupportedModes(controls: controls), forKey: .supportedModes)
    }

    // MARK: Modes (AVCaptureDevice)

    /// `isFocusModeSupported(_:)`, from the controls discovery found.
    public func isFocusModeSupported(_ mode: FocusMode) -> Bool { ModeMapping.isSupported(mode, controls: controls) }
    /// `isExposureModeSupported(_:)`.
    public func isExposureModeSupported(_ mode: ExposureMode) -> Bool {
        ModeMapping.isSupported(mode, controls: controls)
    }
    /// `isWhiteBalanceModeSupported(_:)`.
    public func isWhiteBalanceModeSupported(_ mode: WhiteBalanceMode) -> Bool {
        ModeMapping.isSupported(mode, controls: controls)
    }
    /// `isTorchModeSupported(_:)`.
    public func isTorchModeSupported(_ mode: TorchMode) -> Bool { ModeMapping.isSupported(mode, controls: controls) }

    // MARK: Configuration lock (AVCaptureDevice.lockForConfiguration)

    /// Opens the node for control changes and takes an exclusive advisory lock on it (`flock`), so a second
    /// scand (or a second caller) trying to configure the same camera gets an error instead of a tug of war.
    /// Streaming needs no lock; a ``CaptureSession`` applies its own ``CaptureConfiguration/controls``.
    /// - Throws: ``ScanError/device(path:reason:)`` when the node cannot be opened or someone else holds the lock.
    public func lockForConfiguration() throws {
        try configurationLock.lock(path: path)
    }

    /// Releases what ``lockForConfiguration()`` took. Safe to call when not locked.
    public func unlockForConfiguration() { configurationLock.unlock() }

    /// Sets modes and controls now, together (one `VIDIOC_S_EXT_CTRLS`), in the order of ``ModeMapping/plan(modes:settings:controls:)``.
    /// Needs ``lockForConfiguration()``.
    /// - Throws: ``ControlError``: not locked, an unsupported mode (listing what the device can do), an unknown
    ///   control (listing the names), a value out of range, or the driver's refusal.
    public func setControls(modes: DeviceModes = DeviceModes(), settings: [ControlSetting] = []) throws(ControlError) {
        try configurationLock.withDescriptor(path: path) { (fd: Int32) throws(ControlError) in
            let live = V4L2Controls.query(fd: fd, ioctl: libIoctl)
            try V4L2Controls.apply(
                try ModeMapping.plan(modes: modes, settings: settings, controls: live), fd: fd, ioctl: libIoctl)
        }
    }

    /// `focusMode` setter. Needs ``lockForConfiguration()``.
    public func setFocusMode(_ mode: FocusMode) throws(ControlError) {
        try setControls(modes: DeviceModes(focusMode: mode))
    }
    /// `exposureMode` setter. Needs ``lockForConfiguration()``.
    public func setExposureMode(_ mode: ExposureMode) throws(ControlError) {
        try setControls(modes: DeviceModes(exposureMode: mode))
    }
    /// `whiteBalanceMode` setter. Needs ``lockForConfiguration()``.
    public func setWhiteBalanceMode(_ mode: WhiteBalanceMode) throws(ControlError) {
        try setControls(modes: DeviceModes(whiteBalanceMode: mode))
    }
    /// `torchMode` setter. Needs ``lockForConfiguration()``.
    public func setTorchMode(_ mode: TorchMode) throws(ControlError) {
        try setControls(modes: DeviceModes(torchMode: mode))
    }

    /// The controls as they are now (read through the locked descriptor, or a short-lived one when not locked).
    public func currentControls() -> [CaptureDeviceControl] {
        if let live = configurationLock.query() { return live }
        let fd = scan_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { scan_v4l2_close(fd) }
        return V4L2Controls.query(fd: fd, ioctl: libIoctl)
    }

    /// Every discrete size of a convertible format, largest first, without duplicates.
    public var discreteSizes: [PixelSize] {
        var seen = Set<PixelSize>()
        var out: [PixelSize] = []
        for f in formats where f.isConvertible {
            for s in f.sizes where seen.insert(s.size).inserted { out.append(s.size) }
        }
        return out.sorted { ($0.width * $0.height, $0.width) > ($1.width * $1.height, $1.width) }
    }

    /// Stepwise ranges of convertible formats.
    public var stepwiseRanges: [StepwiseFrameSize] { formats.filter(\.isConvertible).compactMap(\.stepwise) }

    /// True when some convertible format offers `size`.
    public func supports(_ size: PixelSize) -> Bool {
        discreteSizes.contains(size) || stepwiseRanges.contains { $0.contains(size) }
    }

    /// A short human list of what the device offers, for error messages.
    public var offeredSummary: String {
        formats.map { f in
            var parts = f.sizes.map { "\($0.width)x\($0.height)" }
            if let s = f.stepwise {
                parts.append(
                    "\(s.minWidth)x\(s.minHeight)...\(s.maxWidth)x\(s.maxHeight) step \(s.stepWidth)/\(s.stepHeight)")
            }
            return "\(f.fourcc) " + (parts.isEmpty ? "(no sizes)" : parts.joined(separator: ", "))
        }.joined(separator: "; ")
    }
}

// MARK: - Small V4L2 helpers

/// `ioctl` without libv4l2, retrying on EINTR. Returns 0 or -1 with errno set.
func rawIoctl(_ fd: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer) -> Int32 {
    while true {
        let r = scan_raw_ioctl(fd, request, arg)
        if r == -1 && Errno.last == .interrupted { continue }
        return r
    }
}

/// `v4l2_ioctl` (through libv4l2's converter), retrying on EINTR. Returns 0 or -1 with errno set.
func libIoctl(_ fd: Int32, _ request: UInt, _ arg: UnsafeMutableRawPointer) -> Int32 {
    while true {
        let r = scan_v4l2_ioctl(fd, request, arg)
        if r == -1 && Errno.last == .interrupted { continue }
        return r
    }
}

/// The four characters of a V4L2 pixel format code, trailing spaces trimmed; big-endian variants
/// (bit 31 set, `v4l2_fourcc_be`) get a `-BE` suffix, as `v4l2-ctl` prints them. Unprintable bytes become `?`.
func fourccString(_ code: UInt32) -> String {
    let bigEndian = code & 0x8000_0000 != 0
    let bytes = (0..<4).map { UInt8((code & 0x7FFF_FFFF) >> (8 * $0) & 0xFF) }.map {
        (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?")
    }
    return String(decoding: bytes, as: UTF8.self).trimmingSuffixSpaces() + (bigEndian ? "-BE" : "")
}

/// The V4L2 code of four characters.
func fourccCode(_ s: String) -> UInt32 {
    let bigEndian = s.hasSuffix("-BE")
    let b = Array(s.utf8.prefix(bigEndian ? s.utf8.count - 3 : 4)) + [0x20, 0x20, 0x20, 0x20]
    return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24 | (bigEndian ? 0x8000_0000 : 0)
}

/// A NUL-terminated fixed-size C char array (imported as a tuple) as a String.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

extension String {
    func trimmingSuffixSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// The descriptor of ``CaptureDevice/lockForConfiguration()`` (-1 while unlocked), in a ``Locked``: every use
/// holds its lock.
final class ConfigurationLock: Sendable {
    private let descriptor = Locked<Int32>(-1)

    deinit { descriptor.withLock { if $0 >= 0 { scan_v4l2_close($0) } } }

    func lock(path: String) throws {
        try descriptor.withLock { fd in
            guard fd < 0 else { return }
            let f = scan_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard f >= 0 else {
                throw ScanError.device(path: path, reason: "cannot open for configuration: \(Errno.last.text)")
            }
            guard flock(f, LOCK_EX | LOCK_NB) == 0 else {
                let e = Errno.last
                scan_v4l2_close(f)
                throw ScanError.device(
                    path: path,
                    reason: e == .wouldBlock ? "locked for configuration by another process" : "flock: \(e.text)")
            }
            fd = f
        }
    }

    func unlock() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            scan_v4l2_close(fd)  // closing drops the flock
            fd = -1
        }
    }

    /// Runs `body` with the locked descriptor (lent for the call only).
    func withDescriptor(path: String, _ body: (Int32) throws(ControlError) -> Void) throws(ControlError) {
        let result: Result<Void, ControlError> = descriptor.withLock { fd in
            guard fd >= 0 else { return .failure(.notLocked(device: path)) }
            do throws(ControlError) {
                try body(fd)
                return .success(())
            } catch { return .failure(error) }
        }
        try result.get()
    }

    func query() -> [CaptureDeviceControl]? {
        descriptor.withLock { fd in fd >= 0 ? V4L2Controls.query(fd: fd, ioctl: libIoctl) : nil }
    }
}
