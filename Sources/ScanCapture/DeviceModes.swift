import ScanCore

/// `AVCaptureDevice.FocusMode`.
public enum FocusMode: String, Sendable, Hashable, CaseIterable, Encodable {
    /// Focus stays where it is: `focus_automatic_continuous` = 0, `focus_absolute` written back with its value
    /// (kept across a re-plug).
    case locked
    /// Focus once, then lock: `focus_automatic_continuous` = 0, then the `auto_focus_start` button.
    case autoFocus
    /// The camera keeps focusing: `focus_automatic_continuous` = 1.
    case continuousAutoFocus
}

/// `AVCaptureDevice.ExposureMode`.
public enum ExposureMode: String, Sendable, Hashable, CaseIterable, Encodable {
    /// Exposure stays where it is: `auto_exposure` = manual, `exposure_time_absolute` written back with its
    /// current value; on a device with automatic gain (`gain_automatic`: vivid, many sensor drivers) also
    /// `gain_automatic` = 0 and `gain` written back. The values of the first lock are kept across a re-plug.
    case locked
    /// The camera keeps metering: `auto_exposure` = auto (or aperture priority, what UVC webcams offer);
    /// `gain_automatic` = 1 where the device has it.
    case continuousAutoExposure
    /// The values given with `--control exposure_time_absolute=…`/`gain=…`: `auto_exposure` = manual,
    /// `gain_automatic` = 0.
    case custom
}

/// `AVCaptureDevice.WhiteBalanceMode`.
public enum WhiteBalanceMode: String, Sendable, Hashable, CaseIterable, Encodable {
    /// `white_balance_automatic` = 0 (`white_balance_temperature` written back with its current value, kept
    /// across a re-plug).
    case locked
    /// `white_balance_automatic` = 1.
    case continuousAutoWhiteBalance
}

/// `AVCaptureDevice.TorchMode`.
public enum TorchMode: String, Sendable, Hashable, CaseIterable, Encodable {
    /// `flash_led_mode` = off.
    case off
    /// `flash_led_mode` = torch, `flash_torch_intensity` at its maximum.
    case on
    /// Not offered by V4L2 (no control lets the driver switch the torch by the light); always unsupported.
    case auto
}

/// The standard V4L2 control IDs the modes use (values of `V4L2_CID_*` in `linux/v4l2-controls.h`; checked
/// against the header in `V4L2Controls.swift`).
public enum StandardControl {
    public static let brightness: UInt32 = 0x0098_0900
    public static let whiteBalanceAutomatic: UInt32 = 0x0098_090C  // V4L2_CID_AUTO_WHITE_BALANCE
    public static let gainAutomatic: UInt32 = 0x0098_0912  // V4L2_CID_AUTOGAIN
    public static let gain: UInt32 = 0x0098_0913
    public static let whiteBalanceTemperature: UInt32 = 0x0098_091A
    public static let autoExposure: UInt32 = 0x009A_0901  // V4L2_CID_EXPOSURE_AUTO
    public static let exposureTimeAbsolute: UInt32 = 0x009A_0902  // V4L2_CID_EXPOSURE_ABSOLUTE
    public static let focusAbsolute: UInt32 = 0x009A_090A
    public static let focusAutomaticContinuous: UInt32 = 0x009A_090C  // V4L2_CID_FOCUS_AUTO
    public static let autoFocusStart: UInt32 = 0x009A_091C
    public static let flashLEDMode: UInt32 = 0x009C_0901
    public static let flashTorchIntensity: UInt32 = 0x009C_0908

    /// `auto_exposure` menu values (`enum v4l2_exposure_auto_type`).
    public static let exposureAuto: Int64 = 0, exposureManual: Int64 = 1, exposureShutterPriority: Int64 = 2,
        exposureAperturePriority: Int64 = 3
    /// `flash_led_mode` menu values (`enum v4l2_flash_led_mode`).
    public static let flashLEDNone: Int64 = 0, flashLEDFlash: Int64 = 1, flashLEDTorch: Int64 = 2
}

/// The AVFoundation-style modes a session asks for; nil leaves the device as it is.
public struct DeviceModes: Sendable, Hashable {
    public var focusMode: FocusMode?
    public var exposureMode: ExposureMode?
    public var whiteBalanceMode: WhiteBalanceMode?
    public var torchMode: TorchMode?
    public init(
        focusMode: FocusMode? = nil, exposureMode: ExposureMode? = nil, whiteBalanceMode: WhiteBalanceMode? = nil,
        torchMode: TorchMode? = nil
    ) {
        self.focusMode = focusMode
        self.exposureMode = exposureMode
        self.whiteBalanceMode = whiteBalanceMode
        self.torchMode = torchMode
    }
    public var isEmpty: Bool { focusMode == nil && exposureMode == nil && whiteBalanceMode == nil && torchMode == nil }
}

/// Maps the modes onto a device's controls. Pure: works on a control list (from discovery or an open stream).
public enum ModeMapping {
    static func find(_ id: UInt32, _ controls: [CaptureDeviceControl]) -> CaptureDeviceControl? {
        controls.first { $0.id == id && !$0.isReadOnly }
    }

    /// The writes for `mode`, in the order to apply them, or why the device cannot do it.
    public static func writes(for mode: FocusMode, controls: [CaptureDeviceControl]) -> Result<
        [ControlWrite], ControlError
    > {
        let auto = find(StandardControl.focusAutomaticContinuous, controls)
        let absolute = find(StandardControl.focusAbsolute, controls)
        let start = find(StandardControl.autoFocusStart, controls)
        func fail(_ why: String) -> Result<[ControlWrite], ControlError> {
            .failure(
                .unsupportedMode(
                    what: "--focus-mode", mode: mode.rawValue,
                    supported: FocusMode.allCases.filter { isSupported($0, controls: controls) }.map(\.rawValue),
                    why: why))
        }
        switch mode {
        case .locked:
            guard auto != nil || absolute != nil else {
                return fail("it has neither focus_automatic_continuous nor focus_absolute")
            }
            var w: [ControlWrite] = []
            if let auto { w.append(ControlWrite(id: auto.id, name: auto.name, value: 0)) }
            if let absolute, let held = ControlWrite.holding(absolute) { w.append(held) }
            return .success(w)
        case .autoFocus:
            guard let start else { return fail("it has no auto_focus_start") }
            var w: [ControlWrite] = []
            if let auto { w.append(ControlWrite(id: auto.id, name: auto.name, value: 0)) }
            w.append(ControlWrite(id: start.id, name: start.name, value: 1))
            return .success(w)
        case .continuousAutoFocus:
            guard let auto else { return fail("it has no focus_automatic_continuous") }
            return .success([ControlWrite(id: auto.id, name: auto.name, value: 1)])
        }
    }

    public static func writes(for mode: ExposureMode, controls: [CaptureDeviceControl]) -> Result<
        [ControlWrite], ControlError
    > {
        let auto = find(StandardControl.autoExposure, controls)
        let time = find(StandardControl.exposureTimeAbsolute, controls)
        let gain = find(StandardControl.gain, controls)
        let autogain = find(StandardControl.gainAutomatic, controls)
        func fail(_ why: String) -> Result<[ControlWrite], ControlError> {
            .failure(
                .unsupportedMode(
                    what: "--exposure-mode", mode: mode.rawValue,
                    supported: ExposureMode.allCases.filter { isSupported($0, controls: controls) }.map(\.rawValue),
                    why: why))
        }
        // Automatic gain off for the manual modes (a gain written under it would be overridden), on for auto.
        let gainOff = autogain.map { [ControlWrite(id: $0.id, name: $0.name, value: 0)] } ?? []
        switch mode {
        case .locked:
            var w: [ControlWrite] = []
            if let auto {
                guard auto.menuOffers(StandardControl.exposureManual) else {
                    return fail("its auto_exposure menu has no manual mode")
                }
                w.append(ControlWrite(id: auto.id, name: auto.name, value: StandardControl.exposureManual))
            }
            if let time, let held = ControlWrite.holding(time) { w.append(held) }
            if autogain != nil {
                w += gainOff
                if let gain, let held = ControlWrite.holding(gain) { w.append(held) }
            }
            if auto == nil && time == nil && autogain == nil {
                return fail("it has no auto_exposure, exposure_time_absolute or gain_automatic")
            }
            return .success(w)
        case .custom:
            guard let auto else {
                if time != nil || gain != nil { return .success(gainOff) }  // no auto exposure: always manual
                return fail("it has no auto_exposure, exposure_time_absolute or gain")
            }
            guard auto.menuOffers(StandardControl.exposureManual) else {
                return fail("its auto_exposure menu has no manual mode")
            }
            if time == nil && gain == nil { return fail("it has neither exposure_time_absolute nor gain") }
            return .success(
                [ControlWrite(id: auto.id, name: auto.name, value: StandardControl.exposureManual)] + gainOff)
        case .continuousAutoExposure:
            let gainOn = autogain.map { [ControlWrite(id: $0.id, name: $0.name, value: 1)] } ?? []
            guard let auto else {
                if autogain != nil { return .success(gainOn) }
                return fail("it has no auto_exposure or gain_automatic")
            }
            for v in [StandardControl.exposureAuto, StandardControl.exposureAperturePriority] where auto.menuOffers(v) {
                return .success([ControlWrite(id: auto.id, name: auto.name, value: v)] + gainOn)
            }
            return fail("its auto_exposure menu has neither auto nor aperture priority mode")
        }
    }

    public static func writes(for mode: WhiteBalanceMode, controls: [CaptureDeviceControl]) -> Result<
        [ControlWrite], ControlError
    > {
        let auto = find(StandardControl.whiteBalanceAutomatic, controls)
        let temperature = find(StandardControl.whiteBalanceTemperature, controls)
        func fail(_ why: String) -> Result<[ControlWrite], ControlError> {
            .failure(
                .unsupportedMode(
                    what: "--white-balance-mode", mode: mode.rawValue,
                    supported: WhiteBalanceMode.allCases.filter { isSupported($0, controls: controls) }.map(\.rawValue),
                    why: why))
        }
        switch mode {
        case .locked:
            guard auto != nil || temperature != nil else {
                return fail("it has neither white_balance_automatic nor white_balance_temperature")
            }
            var w: [ControlWrite] = []
            if let auto { w.append(ControlWrite(id: auto.id, name: auto.name, value: 0)) }
            if let temperature, let held = ControlWrite.holding(temperature) { w.append(held) }
            return .success(w)
        case .continuousAutoWhiteBalance:
            guard let auto else { return fail("it has no white_balance_automatic") }
            return .success([ControlWrite(id: auto.id, name: auto.name, value: 1)])
        }
    }

    public static func writes(for mode: TorchMode, controls: [CaptureDeviceControl]) -> Result<
        [ControlWrite], ControlError
    > {
        let led = find(StandardControl.flashLEDMode, controls)
        let intensity = find(StandardControl.flashTorchIntensity, controls)
        func fail(_ why: String) -> Result<[ControlWrite], ControlError> {
            .failure(
                .unsupportedMode(
                    what: "--torch-mode", mode: mode.rawValue,
                    supported: TorchMode.allCases.filter { isSupported($0, controls: controls) }.map(\.rawValue),
                    why: why))
        }
        switch mode {
        case .auto:
            return fail("V4L2 has no automatic torch control")
        case .off:
            guard let led, led.menuOffers(StandardControl.flashLEDNone) else {
                return fail("it has no flash_led_mode with an off item")
            }
            return .success([ControlWrite(id: led.id, name: led.name, value: StandardControl.flashLEDNone)])
        case .on:
            guard let led, led.menuOffers(StandardControl.flashLEDTorch) else {
                return fail("it has no flash_led_mode with a torch item")
            }
            var w = [ControlWrite(id: led.id, name: led.name, value: StandardControl.flashLEDTorch)]
            if let intensity {
                w.append(ControlWrite(id: intensity.id, name: intensity.name, value: intensity.maximum))
            }
            return .success(w)
        }
    }

    /// `isFocusModeSupported`.
    public static func isSupported(_ mode: FocusMode, controls: [CaptureDeviceControl]) -> Bool {
        let has = { (id: UInt32) in find(id, controls) != nil }
        switch mode {
        case .locked: return has(StandardControl.focusAutomaticContinuous) || has(StandardControl.focusAbsolute)
        case .autoFocus: return has(StandardControl.autoFocusStart)
        case .continuousAutoFocus: return has(StandardControl.focusAutomaticContinuous)
        }
    }

    /// `isExposureModeSupported`.
    public static func isSupported(_ mode: ExposureMode, controls: [CaptureDeviceControl]) -> Bool {
        let auto = find(StandardControl.autoExposure, controls)
        let time = find(StandardControl.exposureTimeAbsolute, controls) != nil
        let gain = find(StandardControl.gain, controls) != nil
        let autogain = find(StandardControl.gainAutomatic, controls) != nil
        switch mode {
        case .locked: return auto.map { $0.menuOffers(StandardControl.exposureManual) } ?? (time || autogain)
        case .custom: return (time || gain) && (auto.map { $0.menuOffers(StandardControl.exposureManual) } ?? true)
        case .continuousAutoExposure:
            return auto.map {
                $0.menuOffers(StandardControl.exposureAuto) || $0.menuOffers(StandardControl.exposureAperturePriority)
            } ?? autogain
        }
    }

    /// `isWhiteBalanceModeSupported`.
    public static func isSupported(_ mode: WhiteBalanceMode, controls: [CaptureDeviceControl]) -> Bool {
        let auto = find(StandardControl.whiteBalanceAutomatic, controls) != nil
        switch mode {
        case .locked: return auto || find(StandardControl.whiteBalanceTemperature, controls) != nil
        case .continuousAutoWhiteBalance: return auto
        }
    }

    /// `isTorchModeSupported`.
    public static func isSupported(_ mode: TorchMode, controls: [CaptureDeviceControl]) -> Bool {
        guard let led = find(StandardControl.flashLEDMode, controls) else { return false }
        switch mode {
        case .off: return led.menuOffers(StandardControl.flashLEDNone)
        case .on: return led.menuOffers(StandardControl.flashLEDTorch)
        case .auto: return false
        }
    }

    /// Every write for `modes` followed by `settings`, in that order, checked against `controls`.
    /// - Throws: ``ControlError``: an unsupported mode (listing what the device can do), an unknown control
    ///   (listing the names), a bad or out-of-range value, or a `--control` that sets a control a mode sets.
    public static func plan(modes: DeviceModes, settings: [ControlSetting], controls: [CaptureDeviceControl])
        throws(ControlError) -> [ControlWrite]
    {
        var planned: [ControlWrite] = []
        var byMode: [UInt32: String] = [:]
        func add(_ r: Result<[ControlWrite], ControlError>, _ label: String) throws(ControlError) {
            switch r {
            case .success(let w):
                for x in w { byMode[x.id] = label }
                planned += w
            case .failure(let e): throw e
            }
        }
        if let m = modes.focusMode { try add(writes(for: m, controls: controls), "--focus-mode \(m.rawValue)") }
        if let m = modes.exposureMode { try add(writes(for: m, controls: controls), "--exposure-mode \(m.rawValue)") }
        if let m = modes.whiteBalanceMode {
            try add(writes(for: m, controls: controls), "--white-balance-mode \(m.rawValue)")
        }
        if let m = modes.torchMode { try add(writes(for: m, controls: controls), "--torch-mode \(m.rawValue)") }
        // Switches (booleans, menus: `auto_exposure`, `white_balance_automatic`) before values, so a value is
        // not refused because an automatic mode still owns its control; otherwise in the given order.
        var resolved: [(write: ControlWrite, isSwitch: Bool)] = []
        for s in settings {
            let w = try s.resolve(in: controls)
            let kind = controls.first { $0.id == w.id }?.kind
            resolved.append((w, kind == .bool || kind == .menu))
        }
        for w in resolved.filter(\.isSwitch).map(\.write) + resolved.filter({ !$0.isSwitch }).map(\.write) {
            if let mode = byMode[w.id] { throw .conflict(name: w.name, mode: mode) }
            if let i = planned.firstIndex(where: { $0.id == w.id }) { planned.remove(at: i) }
            planned.append(w)
        }
        return planned
    }
}

/// The modes a device supports, for `scand devices`.
public struct SupportedModes: Sendable, Hashable, Encodable {
    public var focusModes: [FocusMode]
    public var exposureModes: [ExposureMode]
    public var whiteBalanceModes: [WhiteBalanceMode]
    public var torchModes: [TorchMode]

    public init(controls: [CaptureDeviceControl]) {
        focusModes = FocusMode.allCases.filter { ModeMapping.isSupported($0, controls: controls) }
        exposureModes = ExposureMode.allCases.filter { ModeMapping.isSupported($0, controls: controls) }
        whiteBalanceModes = WhiteBalanceMode.allCases.filter { ModeMapping.isSupported($0, controls: controls) }
        torchModes = TorchMode.allCases.filter { ModeMapping.isSupported($0, controls: controls) }
    }
}
