import ScanCore

/// One V4L2 control of a device, as `VIDIOC_QUERY_EXT_CTRL` (+ `VIDIOC_QUERYMENU`, `VIDIOC_G_EXT_CTRLS`) report it.
/// Values are in the control's own units (e.g. `exposure_time_absolute` in 100 µs, `white_balance_temperature`
/// in kelvin).
public struct CaptureDeviceControl: Sendable, Hashable, Encodable {
    /// The V4L2 control type, named as `v4l2-ctl` names it.
    public enum Kind: String, Sendable, Hashable, Encodable {
        case int, bool, menu, button, int64
        case string = "str"
        case bitmask, intmenu, compound
    }
    /// A menu item: its index (the value to set) and its name (menu) or number (integer menu).
    public struct MenuItem: Sendable, Hashable, Encodable {
        public var index: Int64
        public var name: String?
        public var value: Int64?
        public init(index: Int64, name: String? = nil, value: Int64? = nil) {
            self.index = index
            self.name = name
            self.value = value
        }
    }

    /// The control ID (`V4L2_CID_*`).
    public var id: UInt32
    /// The name in snake case as `v4l2-ctl` prints it (`white_balance_automatic`); what `--control` takes.
    public var name: String
    /// The driver's name (`White Balance, Automatic`).
    public var label: String
    public var kind: Kind
    public var minimum: Int64
    public var maximum: Int64
    public var step: Int64
    public var defaultValue: Int64
    /// The current value (nil for buttons, write-only, string and compound controls, or when it could not be read).
    public var value: Int64?
    /// Menu items the driver accepts (menu and integer-menu controls; indices it skips are left out).
    public var menu: [MenuItem]
    /// `V4L2_CTRL_FLAG_*` bits.
    public var flags: UInt32

    public init(
        id: UInt32, name: String, label: String? = nil, kind: Kind, minimum: Int64, maximum: Int64, step: Int64 = 1,
        defaultValue: Int64, value: Int64? = nil, menu: [MenuItem] = [], flags: UInt32 = 0
    ) {
        self.id = id
        self.name = name
        self.label = label ?? name
        self.kind = kind
        self.minimum = minimum
        self.maximum = maximum
        self.step = step
        self.defaultValue = defaultValue
        self.value = value
        self.menu = menu
        self.flags = flags
    }

    /// `V4L2_CTRL_FLAG_READ_ONLY`.
    public var isReadOnly: Bool { flags & 0x04 != 0 }
    /// `V4L2_CTRL_FLAG_INACTIVE`: e.g. `gain` while `gain_automatic` is on.
    public var isInactive: Bool { flags & 0x10 != 0 }
    /// `V4L2_CTRL_FLAG_WRITE_ONLY`.
    public var isWriteOnly: Bool { flags & 0x40 != 0 }
    /// `V4L2_CTRL_FLAG_VOLATILE`: the value changes by itself (e.g. gain under autogain).
    public var isVolatile: Bool { flags & 0x80 != 0 }
    /// `V4L2_CTRL_FLAG_GRABBED`: busy (e.g. while streaming).
    public var isGrabbed: Bool { flags & 0x02 != 0 }

    /// The flag names `v4l2-ctl` prints.
    public var flagNames: [String] {
        let names: [(UInt32, String)] = [
            (0x01, "disabled"), (0x02, "grabbed"), (0x04, "read-only"), (0x08, "update"),
            (0x10, "inactive"), (0x20, "slider"), (0x40, "write-only"), (0x80, "volatile"),
            (0x100, "has-payload"), (0x200, "execute-on-write"), (0x400, "modify-layout"),
            (0x800, "dynamic-array"),
        ]
        return names.filter { flags & $0.0 != 0 }.map(\.1)
    }

    /// The index of the menu item called `name` (case-insensitive, spaces or snake case), if any.
    public func menuIndex(named name: String) -> Int64? {
        let want = controlName(name)
        return menu.first { $0.name.map(controlName) == want }?.index
    }

    /// True when the menu offers `index`.
    public func menuOffers(_ index: Int64) -> Bool { menu.contains { $0.index == index } }

    enum CodingKeys: String, CodingKey { case id, name, label, type, min, max, step, `default`, value, menu, flags }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(label, forKey: .label)
        try c.encode(kind, forKey: .type)
        if kind != .button && kind != .string && kind != .compound {
            try c.encode(minimum, forKey: .min)
            try c.encode(maximum, forKey: .max)
            try c.encode(step, forKey: .step)
            try c.encode(defaultValue, forKey: .default)
        }
        try c.encodeIfPresent(value, forKey: .value)
        if !menu.isEmpty { try c.encode(menu, forKey: .menu) }
        try c.encode(flagNames, forKey: .flags)
    }
}

/// The name `v4l2-ctl` gives a control: lower case, each run of non-alphanumerics one `_`, none at the ends
/// (`White Balance, Automatic` → `white_balance_automatic`).
public func controlName(_ label: String) -> String {
    var out = ""
    var pendingUnderscore = false
    for u in label.unicodeScalars {
        let ascii = u.isASCII ? UInt8(u.value) : 0
        let alnum = (0x30...0x39).contains(ascii) || (0x41...0x5A).contains(ascii) || (0x61...0x7A).contains(ascii)
        if alnum {
            if pendingUnderscore { out += "_" }
            pendingUnderscore = false
            out.unicodeScalars.append(Unicode.Scalar((0x41...0x5A).contains(ascii) ? ascii + 32 : ascii))
        } else if !out.isEmpty {
            pendingUnderscore = true
        }
    }
    return out
}

/// `NAME=VALUE` from `--control` or the config file's `controls` object. NAME is the `v4l2-ctl` snake-case name;
/// VALUE is a number (decimal or `0x…`), `true`/`false`/`on`/`off` for booleans, or a menu item's name.
public struct ControlSetting: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Parses `NAME=VALUE`.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the text when there is no `=` or a side is empty.
    public init(parsing text: String) throws {
        guard let eq = text.firstIndex(of: "=") else {
            throw ScanError.invalidArgument("--control takes NAME=VALUE (e.g. brightness=140), got '\(text)'")
        }
        let n = String(text[..<eq]).trimmingSpaces()
        let v = String(text[text.index(after: eq)...]).trimmingSpaces()
        guard !n.isEmpty, !v.isEmpty else {
            throw ScanError.invalidArgument("--control takes NAME=VALUE (e.g. brightness=140), got '\(text)'")
        }
        self.init(name: n, value: v)
    }
}

/// A control write checked against the device: the control and the raw value to set.
public struct ControlWrite: Sendable, Hashable {
    public var id: UInt32
    public var name: String
    public var value: Int64
    /// True for 64-bit controls (`int64`), written through `value64`.
    public var wide: Bool
    /// A locked mode's value: the control's value when the lock was first applied, written back as it is.
    /// The session keeps the first one and writes that again after a re-plug or restart (a re-plugged camera
    /// comes back with its defaults), until the mode changes.
    public var holdsCurrentValue: Bool
    public init(id: UInt32, name: String, value: Int64, wide: Bool = false, holdsCurrentValue: Bool = false) {
        self.id = id
        self.name = name
        self.value = value
        self.wide = wide
        self.holdsCurrentValue = holdsCurrentValue
    }
    /// The write of `control`'s current value for a locked mode (nil: the control has no readable value).
    static func holding(_ control: CaptureDeviceControl) -> ControlWrite? {
        control.value.map {
            ControlWrite(
                id: control.id, name: control.name, value: $0, wide: control.kind == .int64, holdsCurrentValue: true)
        }
    }
}

/// Why a control setting was refused (before anything was written).
public enum ControlError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknown(name: String, known: [String])
    case readOnly(name: String)
    case unsupportedType(name: String, kind: CaptureDeviceControl.Kind)
    case badValue(name: String, value: String, expected: String)
    case outOfRange(name: String, value: Int64, minimum: Int64, maximum: Int64, step: Int64)
    case unsupportedMode(what: String, mode: String, supported: [String], why: String)
    case conflict(name: String, mode: String)
    case notLocked(device: String)
    case device(name: String, reason: String)

    public var description: String {
        switch self {
        case .unknown(let n, let known):
            return "unknown control '\(n)'; the device has: "
                + (known.isEmpty ? "no controls" : known.joined(separator: ", "))
        case .readOnly(let n): return "control '\(n)' is read-only"
        case .unsupportedType(let n, let k): return "control '\(n)' has type \(k.rawValue), which --control cannot set"
        case .badValue(let n, let v, let e): return "control '\(n)': '\(v)' is not \(e)"
        case .outOfRange(let n, let v, let lo, let hi, let step):
            return "control '\(n)': \(v) is out of range \(lo)...\(hi)" + (step > 1 ? " (step \(step))" : "")
        case .unsupportedMode(let what, let mode, let supported, let why):
            return "\(what) '\(mode)' is not supported by this device (\(why)); it supports: "
                + (supported.isEmpty ? "none" : supported.joined(separator: ", "))
        case .conflict(let n, let mode): return "--control \(n) conflicts with \(mode), which sets it too"
        case .notLocked(let d): return "\(d): call lockForConfiguration() before changing controls"
        case .device(let n, let r): return "control '\(n)': \(r)"
        }
    }
}

extension ControlSetting {
    /// Checks the setting against `controls` (the device's list) and gives the raw value to write.
    /// Out-of-range values are errors, never clamped.
    /// - Throws: ``ControlError`` naming the control, listing the device's control names for an unknown one.
    public func resolve(in controls: [CaptureDeviceControl]) throws(ControlError) -> ControlWrite {
        let key = controlName(name)
        guard let c = controls.first(where: { $0.name == key }) else {
            throw .unknown(name: name, known: controls.filter { $0.kind != .compound }.map(\.name))
        }
        if c.isReadOnly { throw .readOnly(name: c.name) }
        let v: Int64
        switch c.kind {
        case .string, .compound:
            throw .unsupportedType(name: c.name, kind: c.kind)
        case .button:
            v = 1
        case .bool:
            switch value.lowercased() {
            case "1", "true", "on", "yes": v = 1
            case "0", "false", "off", "no": v = 0
            default: throw .badValue(name: c.name, value: value, expected: "a boolean (0/1, true/false, on/off)")
            }
        case .menu, .intmenu:
            let items = c.menu.map { item in "\(item.index) (\(item.name ?? item.value.map(String.init) ?? "?"))" }
                .joined(separator: ", ")
            if let n = parseInteger(value) {
                guard c.menuOffers(n) else {
                    throw .badValue(name: c.name, value: value, expected: "one of the menu items: \(items)")
                }
                v = n
            } else if let n = c.menuIndex(named: value) {
                v = n
            } else {
                throw .badValue(name: c.name, value: value, expected: "one of the menu items: \(items)")
            }
        case .int, .int64, .bitmask:
            guard let n = parseInteger(value) else {
                throw .badValue(name: c.name, value: value, expected: "a whole number")
            }
            guard n >= c.minimum, n <= c.maximum else {
                throw .outOfRange(name: c.name, value: n, minimum: c.minimum, maximum: c.maximum, step: c.step)
            }
            v = n
        }
        return ControlWrite(id: c.id, name: c.name, value: v, wide: c.kind == .int64)
    }
}

/// A decimal or `0x` hexadecimal integer, optionally negative.
func parseInteger(_ s: String) -> Int64? {
    var t = Substring(s)
    var negative = false
    if t.hasPrefix("-") {
        negative = true
        t = t.dropFirst()
    } else if t.hasPrefix("+") {
        t = t.dropFirst()
    }
    let magnitude: Int64?
    if t.lowercased().hasPrefix("0x") { magnitude = Int64(t.dropFirst(2), radix: 16) } else { magnitude = Int64(t) }
    guard let m = magnitude else { return nil }
    return negative ? -m : m
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
