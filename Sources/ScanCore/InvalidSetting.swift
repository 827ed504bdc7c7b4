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

    /// Throws when `ok` is false.
    public static func check(_ ok: Bool, key: String, flag: String, _ message: @autoclosure () -> String)
        throws(InvalidSetting)
    {
        if !ok { throw InvalidSetting(key: key, flag: flag, message()) }
    }
}

extension BarcodeConfiguration {
    /// Checks every range; the error names the setting.
    public func validate() throws(InvalidSetting) {
        try InvalidSetting.check(
            (1...16).contains(scanDensity), key: "scanDensity", flag: "--scan-density",
            "must be 1...16, got \(scanDensity)")
        if let d = streamScanDensity {
            try InvalidSetting.check(
                (1...16).contains(d), key: "streamScanDensity", flag: "--stream-scan-density",
                "must be 1...16, got \(d)")
        }
        if let n = streamQRLookLines {
            try InvalidSetting.check(
                (120...8192).contains(n), key: "streamQRLines", flag: "--stream-qr-lines",
                "must be 0 (off) or 120...8192, got \(n)")
        }
        try InvalidSetting.check(
            (3...1000).contains(minimumCodabarLength), key: "codabarMinLength", flag: "--codabar-min-length",
            "must be 3...1000, got \(minimumCodabarLength)")
        try InvalidSetting.check(
            (2...1000).contains(minimumI25Length), key: "i25MinLength", flag: "--i25-min-length",
            "must be 2...1000, got \(minimumI25Length)")
        try InvalidSetting.check(
            (0...1000).contains(minimumLinearQuality), key: "minLinearQuality", flag: "--min-linear-quality",
            "must be 0...1000, got \(minimumLinearQuality)")
        if let u = zbarUncertainty {
            try InvalidSetting.check(
                (0...100).contains(u), key: "zbarUncertainty", flag: "--zbar-uncertainty", "must be 0...100, got \(u)")
        }
        if let s = streamStepsPerFrame {
            try InvalidSetting.check(
                (0...100).contains(s), key: "streamSteps", flag: "--stream-steps", "must be 0...100, got \(s)")
        }
        try InvalidSetting.check(!passes.isEmpty, key: "passes", flag: "--passes", "must name at least one pass")
    }
}

extension FaceConfiguration {
    /// Checks every range; the error names the setting.
    public func validate() throws(InvalidSetting) {
        func check(_ ok: Bool, _ key: String, _ flag: String, _ message: String) throws(InvalidSetting) {
            try InvalidSetting.check(ok, key: key, flag: flag, message)
        }
        try check(
            minimumFaceSize >= 8 && minimumFaceSize <= 16384, "minFaceSize", "--min-face-size",
            "must be 8...16384 pixels, got \(minimumFaceSize)")
        if let m = maximumFaceSize {
            try check(
                m >= minimumFaceSize, "maxFaceSize", "--max-face-size",
                "must be at least the minimum face size (\(minimumFaceSize)), got \(m)")
        }
        try check(
            (1...10_000).contains(detectionInterval), "faceInterval", "--face-interval",
            "must be 1...10000, got \(detectionInterval)")
        try check(
            scaleFactor > 1.0 && scaleFactor < 2.0, "faceScaleFactor", "--face-scale-factor",
            "must be more than 1 and less than 2, got \(scaleFactor)")
        try check(
            (0...100).contains(minNeighbors), "faceMinNeighbors", "--face-min-neighbors",
            "must be 0...100, got \(minNeighbors)")
        try check(
            (0...100_000).contains(maxMissedFrames), "faceMaxMisses", "--face-max-misses",
            "must be 0...100000, got \(maxMissedFrames)")
        try check(
            presenceGrace.isFinite && presenceGrace >= 0 && presenceGrace <= 86_400, "faceGrace", "--face-grace",
            "must be 0...86400 seconds, got \(presenceGrace)")
        if let a = analysisShortSide {
            try check(
                a == 0 || (48...16384).contains(a), "faceAnalysisSize", "--face-analysis-size",
                "must be 0 (off) or 48...16384 pixels, got \(a)")
        }
        if let problem = validationError { throw InvalidSetting(key: "faces", flag: "face options", problem) }
    }
}

extension PreviewConfiguration {
    /// Checks the view size; the error names the setting.
    public func validate() throws(InvalidSetting) {
        let ok = viewSize.width.isFinite && viewSize.height.isFinite && viewSize.width > 0 && viewSize.height > 0
        try InvalidSetting.check(
            ok, key: "viewSize", flag: "--view-size",
            "must be two positive numbers, got \(viewSize.width)x\(viewSize.height)")
    }
}
