import ArgumentParser
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit

/// Camera settings shared by every command that captures from a V4L2 device (`scan --device`, `run --device`).
/// The device itself is a source option of each command. Every option is optional: one given on the command
/// line overrides the config file.
struct CaptureOptions: ParsableArguments {
    @Option(name: .setting(.preset), help: .setting(.preset))
    var preset: SessionPreset?

    @Option(name: .setting(.size), help: .setting(.size))
    var size: String?

    @Option(name: .setting(.fps), help: .setting(.fps))
    var fps: Double?

    @Option(name: .setting(.stallTimeout), help: .setting(.stallTimeout))
    var stallTimeout: Double?

    /// Whether any camera setting was given.
    var anyGiven: Bool { anyFormatGiven || stallTimeout != nil }

    /// Whether a setting of the camera's format (preset, size, rate) was given: these need a device, where
    /// the stall timeout applies to a pipe too.
    var anyFormatGiven: Bool { preset != nil || size != nil || fps != nil }

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
