import ArgumentParser
import ScanDaemon
import ScanRun

/// `scand run --http HOST:PORT [--http-token FILE]`: the preview page, snapshots, /state, /metrics and
/// WebSocket /events (issue 17, docs/http.md).
struct HTTPOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve the live page, /stream.mjpg, /snapshot.jpg, /state, /metrics and WebSocket /events over HTTP at HOST:PORT (e.g. 127.0.0.1:8080; keep it on loopback unless you set a token). Off by default.",
            valueName: "host:port"))
    var http: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Require 'Authorization: Bearer TOKEN' on every HTTP request but the page shell; TOKEN is read from this file (never from the command line). Open the page as http://HOST:PORT/#token=TOKEN. Also lets the page set the rect of interest.",
            valueName: "file"))
    var httpToken: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Encode at most this many preview frames per second for /stream.mjpg (default 15; 0: every processed frame). The JPEG encoding shares the CPU with detection: the cap keeps a watched preview cheap.",
            valueName: "fps"))
    var httpMaxFps: Double?

    /// The preview's default encoding cap (frames per second; ``DaemonHTTP/defaultMaxFps``).
    static let defaultMaxFps = DaemonHTTP.defaultMaxFps

    func validate() throws {
        if let v = httpMaxFps, !(v.isFinite && v >= 0 && v <= 1000) {
            throw ValidationError("--http-max-fps must be 0...1000 (0: no cap), got \(v)")
        }
        // The file may give the address ("http" key); the pair is checked once flags and file are merged.
    }
}
