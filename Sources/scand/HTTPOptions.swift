import ArgumentParser
import ScanDaemon
import ScanRun

/// `scand run --http HOST:PORT [--http-token FILE]`: the preview page, snapshots, /state, /metrics and
/// WebSocket /events (issue 17, docs/http.md).
struct HTTPOptions: ParsableArguments {
    @Option(name: .setting(.http), help: .setting(.http))
    var http: String?

    @Option(name: .setting(.httpToken), help: .setting(.httpToken))
    var httpToken: String?

    @Option(name: .setting(.httpMaxFps), help: .setting(.httpMaxFps))
    var httpMaxFps: Double?

    /// The preview's default encoding cap (frames per second; ``DaemonHTTP/defaultMaxFps``).
    static let defaultMaxFps = DaemonHTTP.defaultMaxFps

    func validate() throws {
        if let v = httpMaxFps { try usage(.httpMaxFps, v) }
        // The file may give the address ("http" key); the pair is checked once flags and file are merged.
    }
}
