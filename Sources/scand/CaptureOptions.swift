import ArgumentParser
import ScanCore
import ScanCapture

/// Options shared by every command that captures from a camera (`scan --device`, and later `run`).
struct CaptureOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Capture from this V4L2 device: a node (/dev/video0) or a /dev/v4l/by-id name. See 'scand devices'.", valueName: "path-or-id"))
    var device: String?

    @Option(name: .long, help: ArgumentHelp("Session preset: \(SessionPreset.allCases.map(\.rawValue).joined(separator: ", ")) (default high).", valueName: "preset"))
    var preset: String?

    @Option(name: .long, help: ArgumentHelp("Explicit frame size in pixels (overrides the preset).", valueName: "WxH"))
    var size: String?

    @Option(name: .long, help: ArgumentHelp("Frames per second to ask the driver for (S_PARM); the rate it chose is reported.", valueName: "fps"))
    var fps: Double?

    @Option(name: .long, help: ArgumentHelp("Stop after N frames (for files: per input).", valueName: "N"))
    var frames: Int?

    @Option(name: .long, help: ArgumentHelp("Stop live capture after S seconds.", valueName: "S"))
    var duration: Double?

    @Option(name: .long, help: ArgumentHelp("Seconds without a frame before the device counts as stalled (wasInterrupted) and is reopened.", valueName: "S"))
    var stallTimeout: Double = 2

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if let fps, !(fps > 0 && fps <= 1000) { throw ValidationError("--fps must be in (0, 1000]") }
        if !(stallTimeout > 0) { throw ValidationError("--stall-timeout must be positive") }
        if preset != nil && size != nil { throw ValidationError("give --preset or --size, not both") }
        if let preset, SessionPreset(rawValue: preset) == nil {
            throw ValidationError("unknown --preset '\(preset)' (known: \(SessionPreset.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if let size, parsePixelSize(size) == nil { throw ValidationError("--size takes WxH, e.g. 1280x720; got '\(size)'") }
        if device == nil && (preset != nil || size != nil || fps != nil || duration != nil) {
            throw ValidationError("--preset, --size, --fps and --duration need --device")
        }
    }

    /// The capture configuration for `--device` (nil when no device was given).
    func captureConfiguration() -> CaptureConfiguration? {
        guard let device else { return nil }
        var c = CaptureConfiguration(device: device)
        if let preset, let p = SessionPreset(rawValue: preset) { c.sessionPreset = p }
        if let size { c.frameSize = parsePixelSize(size) }
        c.frameRate = fps
        c.stallTimeout = stallTimeout
        return c
    }
}
