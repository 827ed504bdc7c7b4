public import ScanCore

extension CaptureConfiguration {
    /// Checks every range; the error names the setting (`fps`, `--fps`).
    public func validate() throws(InvalidSetting) {
        if let fps = frameRate {
            try InvalidSetting.check(
                fps > 0 && fps <= 1000, key: "fps", flag: "--fps", "must be more than 0 and at most 1000, got \(fps)")
        }
        try InvalidSetting.check(
            stallTimeout > 0 && stallTimeout <= 86_400, key: "stallTimeout", flag: "--stall-timeout",
            "must be more than 0 and at most 86400 seconds, got \(stallTimeout)")
        if let size = frameSize {
            try InvalidSetting.check(
                (1...16384).contains(size.width) && (1...16384).contains(size.height), key: "size", flag: "--size",
                "must be WxH with sides 1...16384, got \(size.width)x\(size.height)")
        }
    }
}
