public import ArgumentParser
import ScanCapture
import ScanCore
import ScanDaemon

extension FocusMode: ExpressibleByArgument {}
extension ExposureMode: ExpressibleByArgument {}
extension WhiteBalanceMode: ExpressibleByArgument {}
extension TorchMode: ExpressibleByArgument {}

/// Camera controls for `scan --device` and `run --device` (issue 18): any V4L2 control by name, the
/// AVFoundation modes, and software exposure metering. See docs/capture.md.
struct ControlOptions: ParsableArguments {
    @Option(
        name: .customLong("control"),
        help: ArgumentHelp(
            "Set a V4L2 control, by its v4l2-ctl snake-case name (see 'scand devices'); repeatable. VALUE: a number, true/false, or a menu item's name. Out-of-range values are errors.",
            valueName: "NAME=VALUE"))
    var control: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "focusMode: \(FocusMode.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "mode"))
    var focusMode: FocusMode?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "exposureMode: \(ExposureMode.allCases.map(\.rawValue).joined(separator: ", ")) (custom: with --control exposure_time_absolute=… / gain=…).",
            valueName: "mode"))
    var exposureMode: ExposureMode?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "whiteBalanceMode: \(WhiteBalanceMode.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "mode"
        ))
    var whiteBalanceMode: WhiteBalanceMode?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "torchMode: \(TorchMode.allCases.map(\.rawValue).joined(separator: ", ")) (flash_led_mode; auto is never supported by V4L2).",
            valueName: "mode"))
    var torchMode: TorchMode?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Meter exposure in software on a 0.2x0.2 square around this point (normalized device coordinates) by stepping exposure_time_absolute, gain or brightness.",
            valueName: "x,y"))
    var exposurePointOfInterest: String?

    @Flag(name: .long, help: "Meter exposure in software on the --rect-of-interest (instead of a point).")
    var exposureOnRectOfInterest = false

    @Option(
        name: .long,
        help: ArgumentHelp("Target mean luma of the metered region, 0...1 of full scale (default 0.5).", valueName: "t")
    )
    var exposureTarget: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The control the exposure loop steps (default: the first writable, active one of exposure_time_absolute, gain, brightness).",
            valueName: "name"))
    var exposureControl: String?

    var isEmpty: Bool {
        control.isEmpty && focusMode == nil && exposureMode == nil && whiteBalanceMode == nil && torchMode == nil
            && exposurePointOfInterest == nil && !exposureOnRectOfInterest && exposureTarget == nil
            && exposureControl == nil
    }

    func validate() throws {
        if exposurePointOfInterest != nil && exposureOnRectOfInterest {
            throw ValidationError("give --exposure-point-of-interest or --exposure-on-rect-of-interest, not both")
        }
        if (exposureTarget != nil || exposureControl != nil) && exposurePointOfInterest == nil
            && !exposureOnRectOfInterest
        {
            throw ValidationError(
                "--exposure-target and --exposure-control need --exposure-point-of-interest or --exposure-on-rect-of-interest"
            )
        }
        if let exposureTarget, !(exposureTarget > 0 && exposureTarget < 1) {
            throw ValidationError("--exposure-target must be in (0, 1), got \(exposureTarget)")
        }
        for c in control { do { _ = try ControlSetting(parsing: c) } catch { throw ValidationError("\(error)") } }
        if let p = exposurePointOfInterest { _ = try parsePoint(p) }
    }

    /// The controls configuration: the config file's `controls` object first, then `--control` (a flag replaces
    /// the file's value of the same control), the modes and metering from the flags, else from the file.
    /// - Parameter rectOfInterest: the metering region for `--exposure-on-rect-of-interest`.
    func configuration(
        file: [String: String]? = nil, modes fileModes: CameraModeSettings = CameraModeSettings(),
        rectOfInterest: NormalizedRect = .unit
    ) throws -> ControlConfiguration {
        var settings = (file ?? [:]).sorted { $0.key < $1.key }.map { ControlSetting(name: $0.key, value: $0.value) }
        for text in control {
            let s = try ControlSetting(parsing: text)
            settings.removeAll { controlName($0.name) == controlName(s.name) }
            settings.append(s)
        }
        var c = ControlConfiguration(
            settings: settings,
            modes: DeviceModes(
                focusMode: focusMode ?? fileModes.focusMode,
                exposureMode: exposureMode ?? fileModes.exposureMode,
                whiteBalanceMode: whiteBalanceMode ?? fileModes.whiteBalanceMode,
                torchMode: torchMode ?? fileModes.torchMode))
        let region: NormalizedRect?
        let flagsMeter = exposurePointOfInterest != nil || exposureOnRectOfInterest
        if let p = exposurePointOfInterest {
            region = ExposureMetering.region(around: try parsePoint(p))
        } else if exposureOnRectOfInterest {
            region = rectOfInterest
        } else if let p = fileModes.exposurePointOfInterest {
            region = ExposureMetering.region(around: p)
        } else if fileModes.exposureOnRectOfInterest == true {
            region = rectOfInterest
        } else {
            region = nil
        }
        if let region {
            var m = ExposureMetering(
                region: region, control: exposureControl ?? (flagsMeter ? nil : fileModes.exposureControl))
            if let target = exposureTarget ?? (flagsMeter ? nil : fileModes.exposureTarget) { m.target = target }
            try m.validate()
            c.exposureMetering = m
        }
        return c
    }

    private func parsePoint(_ text: String) throws -> NormalizedPoint {
        let parts = text.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], (0...1).contains(x), (0...1).contains(y) else {
            throw ValidationError(
                "--exposure-point-of-interest takes x,y in 0...1 (normalized device coordinates), got '\(text)'")
        }
        return NormalizedPoint(x: x, y: y)
    }
}
