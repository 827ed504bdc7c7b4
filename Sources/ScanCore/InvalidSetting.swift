/// A setting outside its range, as a configuration type's `validate()` reports it. It names the setting both
/// ways a user writes it, so the command line can say `--scan-density` and the config file `scanDensity`
/// (with its line and column).
public struct InvalidSetting: Error, Sendable, Hashable, CustomStringConvertible {
    /// The config-file key (`scanDensity`, `presence.lostAfter`).
    public var key: String
    /// The command-line flag (`--scan-density`).
    public var flag: String
    /// What is wrong, without the setting's name: "must be 1...16, got 20".
    public var message: String

    public init(key: String, flag: String, _ message: String) {
        self.key = key
        self.flag = flag
        self.message = message
    }

    /// `--scan-density must be 1...16, got 20`.
    public var description: String { "\(flag) \(message)" }
    /// `'scanDensity' must be 1...16, got 20`.
    public var fileDescription: String { "'\(key)' \(message)" }

}

extension BarcodeConfiguration {
    /// Checks every range (each declared with its ``Setting``); the error names the setting.
    public func validate() throws(InvalidSetting) {
        try Setting.scanDensity.check(scanDensity)
        if let d = streamScanDensity { try Setting.streamScanDensity.check(d) }
        if let n = streamQRLookLines { try Setting.streamQRLines.check(n) }
        try Setting.codabarMinLength.check(minimumCodabarLength)
        try Setting.i25MinLength.check(minimumI25Length)
        try Setting.minLinearQuality.check(minimumLinearQuality)
        if let u = zbarUncertainty { try Setting.zbarUncertainty.check(u) }
        if let s = streamStepsPerFrame { try Setting.streamSteps.check(s) }
        try InvalidSetting.check(!passes.isEmpty, Setting.passes, "must name at least one pass")
    }
}

extension FaceConfiguration {
    /// Checks every range (each declared with its ``Setting``); the error names the setting.
    public func validate() throws(InvalidSetting) {
        try Setting.minFaceSize.check(minimumFaceSize)
        if let m = maximumFaceSize {
            try InvalidSetting.check(
                m >= minimumFaceSize, Setting.maxFaceSize,
                "must be at least the minimum face size (\(minimumFaceSize)), got \(m)")
        }
        try Setting.faceInterval.check(detectionInterval)
        try Setting.faceScaleFactor.check(scaleFactor)
        try Setting.faceMinNeighbors.check(minNeighbors)
        try Setting.faceMaxMisses.check(maxMissedFrames)
        try Setting.faceGrace.check(presenceGrace)
        if let a = analysisShortSide { try Setting.faceAnalysisSize.check(a) }
        if let problem = validationError { throw InvalidSetting(key: "faces", flag: "face options", problem) }
    }
}

extension PreviewConfiguration {
    /// Checks the view size; the error names the setting.
    public func validate() throws(InvalidSetting) {
        let ok = viewSize.width.isFinite && viewSize.height.isFinite && viewSize.width > 0 && viewSize.height > 0
        try InvalidSetting.check(
            ok, Setting.viewSize,
            "must be two positive numbers, got \(viewSize.width)x\(viewSize.height)")
    }
}
