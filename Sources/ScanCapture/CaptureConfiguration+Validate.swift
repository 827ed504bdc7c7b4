public import ScanCore

extension CaptureConfiguration {
    /// Checks every range; the error names the setting (`fps`, `--fps`).
    public func validate() throws(InvalidSetting) {
        if let fps = frameRate { try Setting.fps.check(fps) }
        try Setting.stallTimeout.check(stallTimeout)
        if let size = frameSize {
            try InvalidSetting.check(
                (1...16384).contains(size.width) && (1...16384).contains(size.height), Setting.size,
                "must be WxH with sides 1...16384, got \(size.width)x\(size.height)")
        }
    }
}
