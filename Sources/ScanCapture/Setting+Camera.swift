public import ScanCore

// The camera-mode settings of `scand run` (see ScanCore's Setting.swift), declared here because their help
// lists the modes of this module's types.
extension Setting {
    public static let focusMode = Setting(
        "focusMode", flag: "focus-mode", valueName: "mode",
        help: "focusMode: \(FocusMode.allCases.map(\.rawValue).joined(separator: ", ")).")
    public static let exposureMode = Setting(
        "exposureMode", flag: "exposure-mode", valueName: "mode",
        help:
            "exposureMode: \(ExposureMode.allCases.map(\.rawValue).joined(separator: ", ")) (custom: with --control exposure_time_absolute=… / gain=…)."
    )
    public static let whiteBalanceMode = Setting(
        "whiteBalanceMode", flag: "white-balance-mode", valueName: "mode",
        help: "whiteBalanceMode: \(WhiteBalanceMode.allCases.map(\.rawValue).joined(separator: ", ")).")
    public static let torchMode = Setting(
        "torchMode", flag: "torch-mode", valueName: "mode",
        help:
            "torchMode: \(TorchMode.allCases.map(\.rawValue).joined(separator: ", ")) (flash_led_mode; auto is never supported by V4L2)."
    )

    /// The camera-mode settings, in help order.
    public static let cameraModes: [Setting] = [focusMode, exposureMode, whiteBalanceMode, torchMode]
}
