import ArgumentParser
import ScanCore
import ScanRun

/// `run --oneshot --timeout SECONDS`: a kiosk loop that must not wait for ever.
struct OneshotTimeoutOption: ParsableArguments {
    @Option(name: .setting(.timeout), help: .setting(.timeout))
    var timeout: Double?

    /// - Throws: `ScanError.invalidArgument` for a time that is not positive, or without `--oneshot`.
    func check(oneshot: Bool) throws {
        guard let timeout else { return }
        try checked(.timeout, timeout)
        if !oneshot {
            throw ScanError.invalidArgument("--timeout is for --oneshot (give --oneshot, or use 'scand watch -x')")
        }
    }
}
