import ScanCore

/// A configuration checked against the device: the frame size it gives and what the device offers.
extension CaptureSession {
    /// A configuration checked against the device.
    struct Resolved: Sendable, Hashable {
        var configuration: CaptureConfiguration
        var size: PixelSize
        var offered: String
    }

    /// Checks `c` against its device: the ranges, the size (given, or the preset's) and the controls.
    /// - Throws: ``ScanError`` naming what the device does not offer.
    static func resolve(_ c: CaptureConfiguration) throws -> Resolved {
        guard c.stallTimeout > 0, c.bufferCount >= 1, c.eioReopenThreshold >= 1, c.maxRetryInterval > 0 else {
            throw ScanError.invalidArgument(
                "capture configuration: stallTimeout, bufferCount, eioReopenThreshold and maxRetryInterval must be positive"
            )
        }
        if let r = c.frameRate, !(r > 0 && r <= 1000) {
            throw ScanError.invalidArgument("frame rate must be in 0...1000 fps, got \(r)")
        }
        let device = try DiscoverySession.device(named: c.device)
        let size: PixelSize
        if let s = c.frameSize {
            try device.validate(size: s)
            size = s
        } else {
            size = try device.resolve(c.sessionPreset)
        }
        if !c.controls.isEmpty {
            if let m = c.controls.exposureMetering { try m.validate() }
            do { try c.controls.check(against: device.controls) } catch {
                throw ScanError.device(path: c.device, reason: error.description)
            }
        }
        return Resolved(configuration: c, size: size, offered: device.offeredSummary)
    }

    /// The `started` event's text: the negotiated format, and the rate asked for when the device gives another.
    static func openedSummary(_ format: ActiveFormat, stream s: V4L2Stream, asked c: CaptureConfiguration)
        -> String
    {
        var summary = format.summary
        if let want = c.frameRate, let got = s.frameRate, abs(want - got) / want > 0.01 {
            summary += " (asked \(formatRate(want)) fps)"
        }
        if s.frameRateIgnored { summary += " (the driver cannot set a frame rate)" }
        return summary
    }

    /// What a failure to open the stream tells ``CaptureLoopMachine``.
    static func openFailure(_ failure: any Error) -> CaptureLoopMachine.OpenFailure {
        switch failure {
        case ScanError.device(_, let why): return .absent(why)
        case StreamFailure.busy(let why): return .busy(why)
        case StreamFailure.refused(let why): return .refused(why)
        case StreamFailure.other(let why): return .other(why)
        default: return .quiet  // gone / not a capture device now: wait quietly for it to return
        }
    }
}
