internal import CScanV4L2
import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Finds V4L2 capture devices (`AVCaptureDevice.DiscoverySession`).
public enum DiscoverySession {
    /// A node that was looked at and left out, with the reason.
    public struct Skipped: Sendable, Hashable {
        public var path: String
        public var reason: String
    }

    /// Lists every `/dev/video*` node whose `device_caps` include video capture, sorted by node number.
    /// - Parameter skipped: receives the nodes left out (metadata nodes, outputs, unreadable nodes) and why.
    public static func devices(skipped: ((Skipped) -> Void)? = nil) -> [CaptureDevice] {
        let ids = byIDLinks()
        var out: [CaptureDevice] = []
        for path in videoNodes() {
            do {
                out.append(try describe(path: path, byID: ids))
            } catch let ScanError.device(p, reason) {
                skipped?(Skipped(path: p, reason: reason))
            } catch {
                skipped?(Skipped(path: path, reason: "\(error)"))
            }
        }
        return out
    }

    /// Describes one node, given as a path or a `/dev/v4l/by-id` name.
    /// - Throws: ``ScanError/device(path:reason:)`` when it is missing, unreadable or not a capture device.
    public static func device(named name: String) throws -> CaptureDevice {
        let path = try resolve(name)
        return try describe(path: path, byID: byIDLinks())
    }

    /// Turns a path or a by-id name (`usb-…-video-index0`, or the full link path) into the device node path.
    /// - Throws: ``ScanError/device(path:reason:)`` naming `name` when nothing matches.
    public static func resolve(_ name: String) throws -> String {
        var candidates = [name]
        if !name.hasPrefix("/") { candidates = ["/dev/v4l/by-id/" + name, "/dev/" + name, name] }
        for c in candidates where access(c, F_OK) == 0 {
            guard let real = realpath(c, nil) else { continue }
            defer { free(real) }
            return String(cString: real)
        }
        let known = videoNodes()
        throw ScanError.device(
            path: name,
            reason: "no such device"
                + (known.isEmpty ? " (no /dev/video* nodes)" : " (nodes present: \(known.joined(separator: ", ")))"))
    }

    /// `/dev/video*` paths sorted by number.
    static func videoNodes() -> [String] {
        guard let dir = opendir("/dev") else { return [] }
        defer { closedir(dir) }
        var nums: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("video"), let n = Int(name.dropFirst(5)) { nums.append(n) }
        }
        return nums.sorted().map { "/dev/video\($0)" }
    }

    /// Map from device node to its `/dev/v4l/by-id` name.
    static func byIDLinks() -> [String: String] {
        let base = "/dev/v4l/by-id"
        guard let dir = opendir(base) else { return [:] }
        defer { closedir(dir) }
        var map: [String: String] = [:]
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            if let real = realpath(base + "/" + name, nil) {
                let target = String(cString: real)
                free(real)
                if map[target] == nil || name < map[target]! { map[target] = name }
            }
        }
        return map
    }

    static func describe(path: String, byID: [String: String]) throws -> CaptureDevice {
        let fd = scan_raw_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw ScanError.device(path: path, reason: "cannot open: \(Errno.last.text)") }
        defer { Glibc.close(fd) }
        var cap = v4l2_capability()
        guard rawIoctl(fd, SCAN_VIDIOC_QUERYCAP, &cap) == 0 else {
            throw ScanError.device(path: path, reason: "not a V4L2 device (QUERYCAP: \(Errno.last.text))")
        }
        let caps = (cap.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS)) != 0 ? cap.device_caps : cap.capabilities
        guard caps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            let what = caps & UInt32(V4L2_CAP_META_CAPTURE) != 0 ? "a metadata node" : "not a video capture node"
            throw ScanError.device(path: path, reason: "\(what) (device_caps 0x\(String(caps, radix: 16)))")
        }
        return CaptureDevice(
            path: path, uniqueID: byID[path], driver: cString(cap.driver), card: cString(cap.card),
            bus: cString(cap.bus_info), deviceCaps: caps, formats: enumerateFormats(fd: fd, ioctl: rawIoctl),
            controls: queryControls(path: path))
    }

    /// The node's controls through libv4l2 (which may add its software controls), on a descriptor of its own.
    static func queryControls(path: String) -> [CaptureDeviceControl] {
        let fd = scan_v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { scan_v4l2_close(fd) }
        return V4L2Controls.query(fd: fd, ioctl: libIoctl)
    }

    /// Enumerates native formats, sizes and intervals through `ioctl` (raw or libv4l2). Emulated formats are left out.
    static func enumerateFormats(fd: Int32, ioctl: (Int32, UInt, UnsafeMutableRawPointer) -> Int32) -> [CaptureFormat] {
        var formats: [CaptureFormat] = []
        let capture = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        for index in 0..<UInt32(256) {
            var desc = v4l2_fmtdesc()
            desc.index = index
            desc.type = capture
            guard ioctl(fd, SCAN_VIDIOC_ENUM_FMT, &desc) == 0 else { break }
            if desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0 { continue }
            var format = CaptureFormat(
                fourcc: fourccString(desc.pixelformat), description: cString(desc.description),
                compressed: desc.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0, sizes: [], stepwise: nil)
            for sizeIndex in 0..<UInt32(1024) {
                var fs = v4l2_frmsizeenum()
                fs.index = sizeIndex
                fs.pixel_format = desc.pixelformat
                guard ioctl(fd, SCAN_VIDIOC_ENUM_FRAMESIZES, &fs) == 0 else { break }
                if fs.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                    let w = fs.discrete.width
                    let h = fs.discrete.height
                    let (list, range) = intervals(fd: fd, fourcc: desc.pixelformat, width: w, height: h, ioctl: ioctl)
                    format.sizes.append(
                        DiscreteFrameSize(width: Int(w), height: Int(h), intervals: list, intervalRange: range))
                } else {
                    let s = fs.stepwise
                    let (list, range) = intervals(
                        fd: fd, fourcc: desc.pixelformat, width: s.max_width, height: s.max_height, ioctl: ioctl)
                    format.stepwise = StepwiseFrameSize(
                        minWidth: Int(s.min_width), maxWidth: Int(s.max_width), stepWidth: Int(max(1, s.step_width)),
                        minHeight: Int(s.min_height), maxHeight: Int(s.max_height),
                        stepHeight: Int(max(1, s.step_height)),
                        intervals: list, intervalRange: range)
                    break
                }
            }
            formats.append(format)
        }
        return formats
    }

    static func intervals(
        fd: Int32, fourcc: UInt32, width: UInt32, height: UInt32,
        ioctl: (Int32, UInt, UnsafeMutableRawPointer) -> Int32
    ) -> ([FrameInterval], FrameIntervalRange?) {
        var list: [FrameInterval] = []
        for i in 0..<UInt32(256) {
            var fi = v4l2_frmivalenum()
            fi.index = i
            fi.pixel_format = fourcc
            fi.width = width
            fi.height = height
            guard ioctl(fd, SCAN_VIDIOC_ENUM_FRAMEINTERVALS, &fi) == 0 else { break }
            if fi.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                list.append(FrameInterval(numerator: fi.discrete.numerator, denominator: fi.discrete.denominator))
            } else {
                let s = fi.stepwise
                return (
                    list,
                    FrameIntervalRange(
                        min: FrameInterval(numerator: s.min.numerator, denominator: s.min.denominator),
                        max: FrameInterval(numerator: s.max.numerator, denominator: s.max.denominator),
                        step: FrameInterval(numerator: s.step.numerator, denominator: s.step.denominator))
                )
            }
        }
        return (list, nil)
    }
}
