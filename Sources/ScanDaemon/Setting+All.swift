import ScanCapture
public import ScanCore

extension Setting {
    /// Every setting of `scand run`, in help order: each is a flag and/or a config key (scandTests checks both
    /// ways against the flags `scand run` takes and the keys this module's config reader accepts).
    public static let all: [Setting] = service + tuning + cameraModes
}
