import Testing
import ScanCore
@testable import ScanCapture

// Control lists as drivers report them (ids, types, ranges, menus and flags copied from `v4l2-ctl -L` of a UVC
// webcam and of vivid); the mapping is pure, so no device is needed here. The VM suite checks a real driver.

private let inactive: UInt32 = 0x10

private func uvcWebcam(exposureValue: Int64 = 156, temperature: Int64 = 4600) -> [CaptureDeviceControl] {
    [
        CaptureDeviceControl(id: StandardControl.brightness, name: "brightness", label: "Brightness", kind: .int, minimum: -64, maximum: 64, defaultValue: 0, value: 0),
        CaptureDeviceControl(id: StandardControl.whiteBalanceAutomatic, name: "white_balance_automatic", label: "White Balance, Automatic", kind: .bool, minimum: 0, maximum: 1, defaultValue: 1, value: 1),
        CaptureDeviceControl(id: StandardControl.gain, name: "gain", label: "Gain", kind: .int, minimum: 0, maximum: 100, defaultValue: 0, value: 0),
        CaptureDeviceControl(id: StandardControl.whiteBalanceTemperature, name: "white_balance_temperature", label: "White Balance Temperature", kind: .int, minimum: 2800, maximum: 6500, step: 10, defaultValue: 4600, value: temperature, flags: inactive),
        CaptureDeviceControl(id: StandardControl.autoExposure, name: "auto_exposure", label: "Auto Exposure", kind: .menu, minimum: 0, maximum: 3, defaultValue: 3, value: 3,
                             menu: [.init(index: 1, name: "Manual Mode"), .init(index: 3, name: "Aperture Priority Mode")]),
        CaptureDeviceControl(id: StandardControl.exposureTimeAbsolute, name: "exposure_time_absolute", label: "Exposure Time, Absolute", kind: .int, minimum: 3, maximum: 2047, defaultValue: 250, value: exposureValue, flags: inactive),
        CaptureDeviceControl(id: StandardControl.focusAbsolute, name: "focus_absolute", label: "Focus, Absolute", kind: .int, minimum: 0, maximum: 250, step: 5, defaultValue: 0, value: 30, flags: inactive),
        CaptureDeviceControl(id: StandardControl.focusAutomaticContinuous, name: "focus_automatic_continuous", label: "Focus, Automatic Continuous", kind: .bool, minimum: 0, maximum: 1, defaultValue: 1, value: 1),
    ]
}

private func vivid() -> [CaptureDeviceControl] {
    [
        CaptureDeviceControl(id: StandardControl.brightness, name: "brightness", kind: .int, minimum: 0, maximum: 255, defaultValue: 128, value: 128, flags: 0x20),
        CaptureDeviceControl(id: 0x0098_0901, name: "contrast", kind: .int, minimum: 0, maximum: 255, defaultValue: 128, value: 128, flags: 0x20),
        CaptureDeviceControl(id: StandardControl.gainAutomatic, name: "gain_automatic", kind: .bool, minimum: 0, maximum: 1, defaultValue: 1, value: 1, flags: 0x08),
        CaptureDeviceControl(id: StandardControl.gain, name: "gain", kind: .int, minimum: 0, maximum: 255, defaultValue: 100, value: 100, flags: inactive | 0x80),
        CaptureDeviceControl(id: 0x0098_f901, name: "button", kind: .button, minimum: 0, maximum: 0, defaultValue: 0),
        CaptureDeviceControl(id: 0x0098_f903, name: "integer_64_bits", kind: .int64, minimum: Int64.min, maximum: Int64.max, defaultValue: 0, value: 0),
        CaptureDeviceControl(id: 0x0098_f905, name: "string", kind: .string, minimum: 2, maximum: 4, defaultValue: 0),
        CaptureDeviceControl(id: 0x0098_f906, name: "menu", kind: .menu, minimum: 1, maximum: 4, defaultValue: 3, value: 3,
                             menu: [.init(index: 1, name: "Menu Item 1"), .init(index: 2, name: "Menu Item 2"), .init(index: 4, name: "Menu Item 4")]),
        CaptureDeviceControl(id: 0x0098_f90b, name: "read_only_integer_32_bits", kind: .int, minimum: 0, maximum: 255, defaultValue: 0, value: 0, flags: 0x04),
    ]
}

private func plan(_ modes: DeviceModes = DeviceModes(), _ settings: [String] = [], _ controls: [CaptureDeviceControl]) throws -> [String] {
    try ModeMapping.plan(modes: modes, settings: settings.map { try ControlSetting(parsing: $0) }, controls: controls).map { "\($0.name)=\($0.value)" }
}

private func error(_ body: () throws -> Any) -> String {
    do { _ = try body(); return "no error" } catch { return "\(error)" }
}

@Suite struct ControlNameTests {
    @Test func namesAreV4L2CtlSnakeCase() {
        #expect(controlName("White Balance, Automatic") == "white_balance_automatic")
        #expect(controlName("Exposure Time, Absolute") == "exposure_time_absolute")
        #expect(controlName("Focus, Automatic Continuous") == "focus_automatic_continuous")
        #expect(controlName("Integer 64 Bits") == "integer_64_bits")
        #expect(controlName("  Power Line Frequency ") == "power_line_frequency")
        #expect(controlName("Auto-Exposure (test)") == "auto_exposure_test")
    }

    @Test func settingParsesNameEqualsValue() throws {
        let s = try ControlSetting(parsing: "brightness = 140")
        #expect(s == ControlSetting(name: "brightness", value: "140"))
        #expect(error { try ControlSetting(parsing: "brightness") }.contains("NAME=VALUE"))
        #expect(error { try ControlSetting(parsing: "=3") }.contains("'=3'"))
    }
}

@Suite struct ControlSettingTests {
    @Test func valuesAreCheckedAgainstTheDevice() throws {
        #expect(try plan(DeviceModes(), ["brightness=200", "contrast=0x10"], vivid()) == ["brightness=200", "contrast=16"])
        #expect(try plan(DeviceModes(), ["menu=Menu Item 4"], vivid()) == ["menu=4"])
        #expect(try plan(DeviceModes(), ["menu=menu_item_2"], vivid()) == ["menu=2"])
        #expect(try plan(DeviceModes(), ["gain_automatic=off"], vivid()) == ["gain_automatic=0"])
        #expect(try plan(DeviceModes(), ["integer_64_bits=-5000000000"], vivid()) == ["integer_64_bits=-5000000000"])
    }

    @Test func errorsNameTheControlAndWhatItTakes() {
        let unknown = error { try plan(DeviceModes(), ["brightnes=3"], vivid()) }
        #expect(unknown.contains("unknown control 'brightnes'"))
        #expect(unknown.contains("brightness, contrast, gain_automatic, gain"))
        #expect(error { try plan(DeviceModes(), ["brightness=256"], vivid()) } == "control 'brightness': 256 is out of range 0...255")
        #expect(error { try plan(DeviceModes(), ["brightness=-1"], vivid()) }.contains("out of range"))
        #expect(error { try plan(DeviceModes(), ["brightness=bright"], vivid()) }.contains("not a whole number"))
        #expect(error { try plan(DeviceModes(), ["menu=3"], vivid()) }.contains("1 (Menu Item 1), 2 (Menu Item 2), 4 (Menu Item 4)"))
        #expect(error { try plan(DeviceModes(), ["gain_automatic=maybe"], vivid()) }.contains("boolean"))
        #expect(error { try plan(DeviceModes(), ["read_only_integer_32_bits=1"], vivid()) }.contains("read-only"))
        #expect(error { try plan(DeviceModes(), ["string=ab"], vivid()) }.contains("type str"))
    }

    @Test func switchesComeBeforeValues() throws {
        #expect(try plan(DeviceModes(), ["exposure_time_absolute=100", "auto_exposure=manual_mode"], uvcWebcam())
                == ["auto_exposure=1", "exposure_time_absolute=100"])
    }
}

@Suite struct ModeMappingTests {
    @Test func focusModes() throws {
        #expect(try plan(DeviceModes(focusMode: .continuousAutoFocus), [], uvcWebcam()) == ["focus_automatic_continuous=1"])
        #expect(try plan(DeviceModes(focusMode: .locked), [], uvcWebcam()) == ["focus_automatic_continuous=0", "focus_absolute=30"])
        let e = error { try plan(DeviceModes(focusMode: .autoFocus), [], uvcWebcam()) }
        #expect(e == "--focus-mode 'autoFocus' is not supported by this device (it has no auto_focus_start); it supports: locked, continuousAutoFocus")
        var withStart = uvcWebcam()
        withStart.append(CaptureDeviceControl(id: StandardControl.autoFocusStart, name: "auto_focus_start", kind: .button, minimum: 0, maximum: 0, defaultValue: 0))
        #expect(try plan(DeviceModes(focusMode: .autoFocus), [], withStart) == ["focus_automatic_continuous=0", "auto_focus_start=1"])
        #expect(error { try plan(DeviceModes(focusMode: .locked), [], vivid()) }.hasSuffix("it supports: none"))
    }

    @Test func exposureModes() throws {
        // UVC offers manual and aperture priority, not full auto: continuous auto maps to aperture priority.
        #expect(try plan(DeviceModes(exposureMode: .continuousAutoExposure), [], uvcWebcam()) == ["auto_exposure=3"])
        #expect(try plan(DeviceModes(exposureMode: .locked), [], uvcWebcam(exposureValue: 321)) == ["auto_exposure=1", "exposure_time_absolute=321"])
        #expect(try plan(DeviceModes(exposureMode: .custom), ["exposure_time_absolute=80", "gain=10"], uvcWebcam())
                == ["auto_exposure=1", "exposure_time_absolute=80", "gain=10"])
        #expect(error { try plan(DeviceModes(exposureMode: .locked), ["exposure_time_absolute=5"], uvcWebcam()) }
                == "--control exposure_time_absolute conflicts with --exposure-mode locked, which sets it too")
        // vivid (and many sensor drivers): automatic gain, no auto_exposure. Locked turns it off and keeps the gain.
        #expect(try plan(DeviceModes(exposureMode: .locked), [], vivid()) == ["gain_automatic=0", "gain=100"])
        #expect(try plan(DeviceModes(exposureMode: .continuousAutoExposure), [], vivid()) == ["gain_automatic=1"])
        #expect(try plan(DeviceModes(exposureMode: .custom), ["gain=10"], vivid()) == ["gain_automatic=0", "gain=10"])
        #expect(error { try plan(DeviceModes(exposureMode: .custom), ["gain_automatic=1"], vivid()) }
                == "--control gain_automatic conflicts with --exposure-mode custom, which sets it too")
        let plain = [vivid()[0]] // brightness only
        #expect(error { try plan(DeviceModes(exposureMode: .continuousAutoExposure), [], plain) }
                == "--exposure-mode 'continuousAutoExposure' is not supported by this device (it has no auto_exposure or gain_automatic); it supports: none")
        #expect(error { try plan(DeviceModes(exposureMode: .locked), [], plain) }
                == "--exposure-mode 'locked' is not supported by this device (it has no auto_exposure, exposure_time_absolute or gain_automatic); it supports: none")
    }

    /// The values a locked mode writes back are marked, so the session keeps the first lock's values across a
    /// re-plug (SessionControls; the VM suite checks it on vivid); the switches are not.
    @Test func lockedModesMarkTheValuesTheyHold() throws {
        let modes = DeviceModes(focusMode: .locked, exposureMode: .locked, whiteBalanceMode: .locked)
        let writes = try ModeMapping.plan(modes: modes, settings: [], controls: uvcWebcam(exposureValue: 321, temperature: 5100))
        #expect(writes.filter(\.holdsCurrentValue).map { "\($0.name)=\($0.value)" }
                == ["focus_absolute=30", "exposure_time_absolute=321", "white_balance_temperature=5100"])
        #expect(writes.filter { !$0.holdsCurrentValue }.map(\.name) == ["focus_automatic_continuous", "auto_exposure", "white_balance_automatic"])
        #expect(try ModeMapping.plan(modes: DeviceModes(exposureMode: .custom), settings: [ControlSetting(parsing: "gain=10")], controls: vivid())
                    .allSatisfy { !$0.holdsCurrentValue }, "custom values are the user's, not held")
    }

    @Test func whiteBalanceAndTorch() throws {
        #expect(try plan(DeviceModes(whiteBalanceMode: .continuousAutoWhiteBalance), [], uvcWebcam()) == ["white_balance_automatic=1"])
        #expect(try plan(DeviceModes(whiteBalanceMode: .locked), [], uvcWebcam(temperature: 5100)) == ["white_balance_automatic=0", "white_balance_temperature=5100"])
        #expect(error { try plan(DeviceModes(torchMode: .on), [], uvcWebcam()) }.contains("it supports: none"))
        let flash = [
            CaptureDeviceControl(id: StandardControl.flashLEDMode, name: "led_mode", kind: .menu, minimum: 0, maximum: 2, defaultValue: 0, value: 0,
                                 menu: [.init(index: 0, name: "Off"), .init(index: 1, name: "Flash"), .init(index: 2, name: "Torch")]),
            CaptureDeviceControl(id: StandardControl.flashTorchIntensity, name: "torch_intensity", kind: .int, minimum: 0, maximum: 7, defaultValue: 0, value: 0),
        ]
        #expect(try plan(DeviceModes(torchMode: .on), [], flash) == ["led_mode=2", "torch_intensity=7"])
        #expect(try plan(DeviceModes(torchMode: .off), [], flash) == ["led_mode=0"])
        #expect(error { try plan(DeviceModes(torchMode: .auto), [], flash) } == "--torch-mode 'auto' is not supported by this device (V4L2 has no automatic torch control); it supports: off, on")
    }

    @Test func supportedModesOfAWebcamAndOfVivid() {
        let uvc = SupportedModes(controls: uvcWebcam())
        #expect(uvc.focusModes == [.locked, .continuousAutoFocus])
        #expect(uvc.exposureModes == [.locked, .continuousAutoExposure, .custom])
        #expect(uvc.whiteBalanceModes == [.locked, .continuousAutoWhiteBalance])
        #expect(uvc.torchModes == [])
        let v = SupportedModes(controls: vivid())
        #expect(v.focusModes == [] && v.whiteBalanceModes == [] && v.torchModes == [])
        #expect(v.exposureModes == [.locked, .continuousAutoExposure, .custom]) // gain and gain_automatic, no auto exposure
        let device = CaptureDevice(path: "/dev/video0", driver: "uvcvideo", card: "cam", bus: "usb", deviceCaps: 1, formats: [], controls: uvcWebcam())
        #expect(device.isFocusModeSupported(.continuousAutoFocus) && !device.isFocusModeSupported(.autoFocus))
        #expect(device.isExposureModeSupported(.custom) && !device.isTorchModeSupported(.on))
    }

    @Test func meteringPicksTheControlAndImpliesManualExposure() throws {
        let m = ExposureMetering(region: .unit)
        // vivid: gain is inactive under gain_automatic, so brightness is stepped.
        #expect(try m.actuator(in: vivid()).0.name == "brightness")
        #expect(try m.actuator(in: vivid()).1 == .offset)
        // UVC: exposure time (inactive under aperture priority) is stepped, after switching to manual.
        let uvc = try m.actuator(in: uvcWebcam())
        #expect(uvc.0.name == "exposure_time_absolute" && uvc.1 == .proportional)
        let c = ControlConfiguration(exposureMetering: m)
        #expect(try c.writes(for: uvcWebcam()).writes.map(\.name) == ["auto_exposure"])
        #expect(error { try ExposureMetering(region: .unit, control: "nope").actuator(in: vivid()) }.contains("unknown control 'nope'"))
        #expect(ExposureMetering.region(around: NormalizedPoint(x: 0.95, y: 0.5)) == NormalizedRect(x: 0.8, y: 0.4, width: 0.2, height: 0.2))
    }
}

/// A camera model for the controller: the region's mean luma follows the control a few frames late (queued
/// buffers), with a brightness-like offset or an exposure-like gain, clipped to 0...1.
private struct Camera {
    var scene: Double
    var response: ExposureController.Response
    var unitsPerFull: Double
    var latency = 2
    var pending: [Int64] = []
    var applied: Int64
    func mean() -> Double {
        switch response {
        case .offset: return min(1, max(0, scene + (Double(applied) - 128) / unitsPerFull))
        case .proportional: return min(1, max(0, scene * Double(applied) / unitsPerFull))
        }
    }
    mutating func frame(write: Int64?) {
        if let write { pending.append(write) } else { pending.append(pending.last ?? applied) }
        if pending.count > latency { applied = pending.removeFirst() }
    }
}

@Suite struct ExposureControllerTests {
    /// Runs `frames` frames; returns the means seen, the writes and the begin/end events.
    private func run(_ camera: inout Camera, _ c: inout ExposureController, frames: Int) -> (means: [Double], writes: [Int64], events: [String]) {
        var means: [Double] = [], writes: [Int64] = [], events: [String] = []
        for _ in 0..<frames {
            let m = camera.mean()
            means.append(m)
            let step = c.update(mean: m)
            if step.began { events.append("began") }
            if let w = step.write { writes.append(w) }
            if step.ended { events.append("ended") }
            camera.frame(write: step.write)
        }
        return (means, writes, events)
    }

    @Test(arguments: [(Int64(0), "dark"), (Int64(255), "bright")])
    func brightnessConvergesWithin30Frames(start: Int64, label: String) {
        let metering = ExposureMetering(region: .unit, target: 0.5)
        var camera = Camera(scene: 0.35, response: .offset, unitsPerFull: 255, applied: start)
        var c = ExposureController(metering: metering, minimum: 0, maximum: 255, step: 1, value: start, response: .offset)
        let r = run(&camera, &c, frames: 60)
        let first = r.means.firstIndex { abs($0 - 0.5) <= 0.05 }
        #expect(first != nil && first! < 30, "\(label): first within 10% at frame \(String(describing: first)); means \(r.means.prefix(30))")
        #expect(r.means[30...].allSatisfy { abs($0 - 0.5) <= 0.05 }, "\(label): stays")
        #expect(r.events.first == "began" && r.events.contains("ended"), "\(label): \(r.events)")
        // Bounded: no step larger than a quarter of the range, and at least settleFrames + 1 frames apart.
        var previous = start
        for w in r.writes { #expect(abs(w - previous) <= 64); previous = w }
        #expect(r.writes.count <= 12)
    }

    @Test(arguments: [(Int64(3), "dark"), (Int64(2047), "bright")])
    func exposureTimeConvergesWithin30Frames(start: Int64, label: String) {
        let metering = ExposureMetering(region: .unit, target: 0.45)
        // Full scale at 400 units (40 ms); from 0.3 ms or 205 ms.
        var camera = Camera(scene: 1, response: .proportional, unitsPerFull: 400, applied: start)
        var c = ExposureController(metering: metering, minimum: 3, maximum: 2047, step: 1, value: start, response: .proportional)
        let r = run(&camera, &c, frames: 60)
        let first = r.means.firstIndex { abs($0 - 0.45) <= 0.045 }
        #expect(first != nil && first! < 30, "\(label): \(r.means.prefix(30))")
        #expect(r.means[30...].allSatisfy { abs($0 - 0.45) <= 0.045 }, "\(label): stays")
    }

    @Test func withinTheBandNothingIsWritten() {
        var c = ExposureController(metering: ExposureMetering(region: .unit, target: 0.5), minimum: 0, maximum: 255, step: 1, value: 128, response: .offset)
        for m in [0.5, 0.48, 0.52, 0.46, 0.54] { #expect(c.update(mean: m) == ExposureController.Step()) }
        #expect(!c.isAdjusting)
        // Within 5% nothing starts; within 10% (twice the tolerance) neither; past it the loop starts.
        let s = c.update(mean: 0.3)
        #expect(s.began && s.write != nil && s.write! > 128)
    }

    @Test func atTheLimitItStopsAdjusting() {
        // A black scene: brightness runs to its maximum and the loop ends there instead of writing forever.
        var camera = Camera(scene: -1, response: .offset, unitsPerFull: 255, applied: 128)
        var c = ExposureController(metering: ExposureMetering(region: .unit), minimum: 0, maximum: 255, step: 1, value: 128, response: .offset)
        let r = run(&camera, &c, frames: 40)
        #expect(r.writes.last == 255)
        #expect(r.events == ["began", "ended"])
        #expect(!c.isAdjusting)
    }

    @Test func meanLumaOfARegion() {
        var bytes = [UInt8](repeating: 0, count: 100 * 50)
        for y in 0..<50 { for x in 50..<100 { bytes[y * 100 + x] = 255 } }
        let plane = LumaPlane(width: 100, height: 50, bytes: bytes)
        #expect(meanLuma(of: plane, in: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1)) == 1)
        #expect(meanLuma(of: plane, in: NormalizedRect(x: 0, y: 0, width: 0.5, height: 1)) == 0)
        #expect(abs(meanLuma(of: plane, in: .unit) - 0.5) < 0.01)
    }
}
