import ArgumentParser
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit

/// Camera settings shared by every command that captures from a V4L2 device (`scan --device`, `run --device`).
/// The device itself is a source option of each command. Every option is optional: one given on the command
/// line overrides the config file.
struct CaptureOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Session preset (default high).", valueName: "preset"))
    var preset: SessionPreset?

    @Option(name: .long, help: ArgumentHelp("Explicit frame size in pixels (overrides the preset).", valueName: "WxH"))
    var size: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Frames per second to ask the driver for (S_PARM); the rate it chose is reported.", valueName: "fps"))
    var fps: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds without a frame before the device counts as stalled (wasInterrupted) and is reopened (default 2).",
            valueName: "S"))
    var stallTimeout: Double?

    /// Whether any camera setting was given.
    var anyGiven: Bool { preset != nil || size != nil || fps != nil || stallTimeout != nil }

    func validate() throws {
        if preset != nil && size != nil { throw ValidationError("give --preset or --size, not both") }
        if let size, parsePixelSize(size) == nil {
            throw ValidationError("--size takes WxH, e.g. 1280x720; got '\(size)'")
        }
    }

    /// The capture configuration for `device`: defaults, then `file`'s camera keys, then the flags given.
    func captureConfiguration(device: String, file: DaemonConfigFile = DaemonConfigFile()) throws
        -> CaptureConfiguration
    {
        var c = CaptureConfiguration(device: device)
        file.apply(to: &c)
        if let preset {
            c.sessionPreset = preset
            c.frameSize = nil
        }
        if let size { c.frameSize = parsePixelSize(size) }
        if let fps { c.frameRate = fps }
        if let stallTimeout { c.stallTimeout = stallTimeout }
        do { try c.validate() } catch { throw ValidationError(error.description) }
        return c
    }
}
