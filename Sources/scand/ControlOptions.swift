public import ArgumentParser
import ScanCapture
import ScanCore
import ScanDaemon

extension FocusMode: ExpressibleByArgument {}
extension ExposureMode: ExpressibleByArgument {}
extension WhiteBalanceMode: ExpressibleByArgument {}
extension TorchMode: ExpressibleByArgument {}
extension PresenceBy: ExpressibleByArgument {}

/// Camera controls for `scan --device` and `run --device` (issue 18): any V4L2 control by name, the
/// AVFoundation modes, and software exposure metering. See docs/capture.md.
struct ControlOptions: ParsableArguments {
    @Option(name: .setting(.control), help: .setting(.control))
    var control: [String] = []

    @Option(name: .setting(.focusMode), help: .setting(.focusMode))
    var focusMode: FocusMode?

    @Option(name: .setting(.exposureMode), help: .setting(.exposureMode))
    var exposureMode: ExposureMode?

    @Option(name: .setting(.whiteBalanceMode), help: .setting(.whiteBalanceMode))
    var whiteBalanceMode: WhiteBalanceMode?

    @Option(name: .setting(.torchMode), help: .setting(.torchMode))
    var torchMode: TorchMode?

    @Option(name: .setting(.exposurePointOfInterest), help: .setting(.exposurePointOfInterest))
    var exposurePointOfInterest: String?

    @Flag(name: .setting(.exposureOnRectOfInterest), help: .setting(.exposureOnRectOfInterest))
    var exposureOnRectOfInterest = false

    @Option(name: .setting(.exposureTarget), help: .setting(.exposureTarget))
    var exposureTarget: Double?

    @Option(name: .setting(.exposureControl), help: .setting(.exposureControl))
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
        if let exposureTarget { try usage(.exposureTarget, exposureTarget) }
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
