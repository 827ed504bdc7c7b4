import ScanCapture
public import ScanCore

extension Setting {
    /// `--timeout` (with `--oneshot`); declared here because its help quotes this module's exit status.
    public static let timeout = Setting(
        "timeout", flag: "timeout", valueName: "seconds",
        help:
            "With --oneshot: give up after this many seconds without an object (exit \(ExitStatus.nothingFound), a warning on stderr); default: wait for ever."
    )

    /// Every setting of `scand run`: each is a flag and/or a config key (a test checks both ways against the
    /// flags `scand run` takes and the keys the config reader accepts).
    public static let all: [Setting] = service + [timeout] + tuning + cameraModes
}
