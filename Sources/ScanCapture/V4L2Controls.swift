internal import CScanV4L2
import ScanCore
internal import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Control I/O on a descriptor the caller owns (a discovery descriptor, or a ``V4L2Stream``'s, lent inside a
/// call). `ioctl` is ``rawIoctl`` or ``libIoctl``.
enum V4L2Controls {
    typealias Ioctl = (Int32, UInt, UnsafeMutableRawPointer) -> Int32

    static func checkIDs() {
        assert(StandardControl.brightness == UInt32(V4L2_CID_BRIGHTNESS))
        assert(StandardControl.whiteBalanceAutomatic == UInt32(V4L2_CID_AUTO_WHITE_BALANCE))
        assert(StandardControl.gainAutomatic == UInt32(V4L2_CID_AUTOGAIN))
        assert(StandardControl.gain == UInt32(V4L2_CID_GAIN))
        assert(StandardControl.whiteBalanceTemperature == UInt32(V4L2_CID_WHITE_BALANCE_TEMPERATURE))
        assert(StandardControl.autoExposure == UInt32(V4L2_CID_EXPOSURE_AUTO))
        assert(StandardControl.exposureTimeAbsolute == UInt32(V4L2_CID_EXPOSURE_ABSOLUTE))
        assert(StandardControl.focusAbsolute == UInt32(V4L2_CID_FOCUS_ABSOLUTE))
        assert(StandardControl.focusAutomaticContinuous == UInt32(V4L2_CID_FOCUS_AUTO))
        assert(StandardControl.autoFocusStart == UInt32(V4L2_CID_AUTO_FOCUS_START))
        assert(StandardControl.flashLEDMode == UInt32(V4L2_CID_FLASH_LED_MODE))
        assert(StandardControl.flashTorchIntensity == UInt32(V4L2_CID_FLASH_TORCH_INTENSITY))
    }

    /// Every control the driver reports (`VIDIOC_QUERY_EXT_CTRL` with `NEXT_CTRL | NEXT_COMPOUND`), without
    /// control-class headings and disabled controls, with menus and current values.
    static func query(fd: Int32, ioctl: Ioctl) -> [CaptureDeviceControl] {
        checkIDs()
        var out: [CaptureDeviceControl] = []
        var next = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND)
        for _ in 0..<4096 {
            var q = v4l2_query_ext_ctrl()
            q.id = next
            guard ioctl(fd, SCAN_VIDIOC_QUERY_EXT_CTRL, &q) == 0 else { break }
            next = q.id | UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND)
            if q.type == V4L2_CTRL_TYPE_CTRL_CLASS.rawValue || q.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) != 0 {
                continue
            }
            let kind: CaptureDeviceControl.Kind
            switch q.type {
            case V4L2_CTRL_TYPE_INTEGER.rawValue: kind = .int
            case V4L2_CTRL_TYPE_BOOLEAN.rawValue: kind = .bool
            case V4L2_CTRL_TYPE_MENU.rawValue: kind = .menu
            case V4L2_CTRL_TYPE_BUTTON.rawValue: kind = .button
            case V4L2_CTRL_TYPE_INTEGER64.rawValue: kind = .int64
            case V4L2_CTRL_TYPE_STRING.rawValue: kind = .string
            case V4L2_CTRL_TYPE_BITMASK.rawValue: kind = .bitmask
            case V4L2_CTRL_TYPE_INTEGER_MENU.rawValue: kind = .intmenu
            default: kind = .compound
            }
            let scalar = q.flags & UInt32(V4L2_CTRL_FLAG_HAS_PAYLOAD) == 0
            let label = cString(q.name)
            var c = CaptureDeviceControl(
                id: q.id, name: controlName(label), label: label, kind: scalar ? kind : .compound,
                minimum: q.minimum, maximum: q.maximum, step: Int64(clamping: q.step),
                defaultValue: q.default_value, flags: q.flags)
            if c.kind == .menu || c.kind == .intmenu, q.minimum >= 0, q.maximum >= q.minimum,
                q.maximum - q.minimum < 256
            {
                for i in q.minimum...q.maximum {
                    var m = v4l2_querymenu()
                    m.id = q.id
                    m.index = UInt32(i)
                    guard ioctl(fd, SCAN_VIDIOC_QUERYMENU, &m) == 0 else { continue }
                    c.menu.append(
                        c.kind == .menu ? .init(index: i, name: cString(m.name)) : .init(index: i, value: m.value))
                }
            }
            if [.int, .bool, .menu, .intmenu, .int64, .bitmask].contains(c.kind), !c.isWriteOnly {
                c.value = read(fd: fd, id: q.id, wide: c.kind == .int64, ioctl: ioctl)
            }
            out.append(c)
        }
        return out
    }

    /// The current value of one scalar control (`VIDIOC_G_EXT_CTRLS`), nil on error.
    static func read(fd: Int32, id: UInt32, wide: Bool, ioctl: Ioctl) -> Int64? {
        var ctrl = v4l2_ext_control()
        ctrl.id = id
        return withUnsafeMutablePointer(to: &ctrl) { p -> Int64? in
            var cs = v4l2_ext_controls()
            cs.which = UInt32(V4L2_CTRL_WHICH_CUR_VAL)
            cs.count = 1
            cs.controls = p
            guard ioctl(fd, SCAN_VIDIOC_G_EXT_CTRLS, &cs) == 0 else { return nil }
            return wide ? p.pointee.value64 : Int64(p.pointee.value)
        }
    }

    /// Writes `writes` with one `VIDIOC_S_EXT_CTRLS` (applied together, in order).
    /// - Throws: ``ControlError/device(name:reason:)`` naming the control the driver refused (or all of them when
    ///   the driver refused the batch before writing any).
    static func apply(_ writes: [ControlWrite], fd: Int32, ioctl: Ioctl) throws(ControlError) {
        guard !writes.isEmpty else { return }
        var ctrls = writes.map { w -> v4l2_ext_control in
            var c = v4l2_ext_control()
            c.id = w.id
            if w.wide { c.value64 = w.value } else { c.value = Int32(clamping: w.value) }
            return c
        }
        let (r, e, index) = ctrls.withUnsafeMutableBufferPointer { buf -> (Int32, Errno, Int) in
            var cs = v4l2_ext_controls()
            cs.which = UInt32(V4L2_CTRL_WHICH_CUR_VAL)
            cs.count = UInt32(buf.count)
            cs.controls = buf.baseAddress
            let r = ioctl(fd, SCAN_VIDIOC_S_EXT_CTRLS, &cs)
            return (r, Errno.last, Int(cs.error_idx))
        }
        guard r != 0 else { return }
        let what = index < writes.count ? writes[index].name : writes.map(\.name).joined(separator: ", ")
        let value = index < writes.count ? " = \(writes[index].value)" : ""
        var why = e.text
        if e == .permissionDenied { why += ": the control is read-only or inactive now (an automatic mode may own it)" }
        if e == .resourceBusy { why += ": the control is busy (grabbed while streaming)" }
        if e == .outOfRange { why += ": out of range" }
        throw .device(name: what, reason: "the driver refused\(value): \(why)")
    }

    /// Subscribes to `V4L2_EVENT_CTRL` for every control in `ids` (with feedback: changes through this
    /// descriptor are reported too). Returns how many subscriptions the driver accepted.
    @discardableResult
    static func subscribe(fd: Int32, ids: [UInt32], ioctl: Ioctl) -> Int {
        var n = 0
        for id in ids {
            var sub = v4l2_event_subscription()
            sub.type = UInt32(V4L2_EVENT_CTRL)
            sub.id = id
            sub.flags = UInt32(V4L2_EVENT_SUB_FL_ALLOW_FEEDBACK)
            if ioctl(fd, SCAN_VIDIOC_SUBSCRIBE_EVENT, &sub) == 0 { n += 1 }
        }
        return n
    }

    /// Dequeues every pending control event: (control id, new value) for value changes.
    static func dequeue(fd: Int32, ioctl: Ioctl) -> [(id: UInt32, value: Int64)] {
        var out: [(UInt32, Int64)] = []
        for _ in 0..<256 {
            var ev = v4l2_event()
            guard ioctl(fd, SCAN_VIDIOC_DQEVENT, &ev) == 0 else { break }
            guard ev.type == UInt32(V4L2_EVENT_CTRL), ev.u.ctrl.changes & UInt32(V4L2_EVENT_CTRL_CH_VALUE) != 0 else {
                continue
            }
            let wide = ev.u.ctrl.type == V4L2_CTRL_TYPE_INTEGER64.rawValue
            out.append((ev.id, wide ? ev.u.ctrl.value64 : Int64(ev.u.ctrl.value)))
        }
        return out
    }
}
