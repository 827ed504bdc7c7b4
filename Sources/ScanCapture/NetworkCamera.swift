public import ScanCore
import SystemPackage

/// How to reach a network camera (issue 49): its stream URL and the credentials that go with it.
public struct NetworkCameraConfiguration: Sendable, Equatable {
    /// The stream, without credentials: `rtsp://host[:port]/path`, `http://…` or `https://…` (H.264/H.265 over
    /// RTSP, MPEG-TS or MJPEG over HTTP; whatever FFmpeg reads). This is the name logs and events show.
    public var url: String
    /// `user:password`, put into the URL only to connect; never logged, never on argv (from
    /// ``credentials(camera:environment:)``).
    public var credentials: String?
    /// Seconds to connect and receive the first frame before the attempt counts as failed.
    public var openTimeout: Double = 10
    /// Seconds without a frame after which the stream is stalled: reported `wasInterrupted`, then reconnected.
    public var readTimeout: Double = 2
    /// The wait before the first reconnection, doubled after each failure up to ``maxBackoff`` (seconds).
    public var initialBackoff: Double = 0.5
    public var maxBackoff: Double = 30
    /// The pixel budget every frame is checked against.
    public var limits = DecoderLimits()

    public init(url: String, credentials: String? = nil, limits: DecoderLimits = DecoderLimits()) {
        self.url = url
        self.credentials = credentials
        self.limits = limits
    }

    /// True for a SOURCE that names a network stream rather than a file or a device.
    public static func isStreamURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return ["rtsp://", "rtsps://", "http://", "https://"].contains { lower.hasPrefix($0) }
    }

    /// Why `url` cannot be used as it is, or nil: credentials written in the URL would show in the process list
    /// and the logs.
    public static func problem(withURL url: String) -> String? {
        guard isStreamURL(url) else { return "'\(redacted(url))' is not an rtsp://, http:// or https:// URL" }
        if authority(of: url).contains("@") {
            return
                "\(redacted(url)): credentials in the URL would show in the process list and the logs; give them as "
                + "user:password in the environment (SCAND_CAMERA_CREDENTIALS[_NAME]) or in a file "
                + "(SCAND_CAMERA_CREDENTIALS[_NAME]_FILE, or systemd's LoadCredential=camera[-NAME])"
        }
        return nil
    }

    /// The credentials of camera `camera` (nil: a one-camera run), as `user:password`, from the environment
    /// `SCAND_CAMERA_CREDENTIALS_<NAME>` (NAME upper-cased, `-` as `_`; no suffix for a one-camera run), or
    /// the file that `…_FILE` names, or systemd's `$CREDENTIALS_DIRECTORY/camera-<name>` (`camera` alone for
    /// one camera). The first line of a file counts, without its line end. nil when none is given.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming a file that cannot be read or a value without `:`.
    public static func credentials(camera: String?, environment: [String: String]) throws -> String? {
        let suffix = camera.map { "_" + String($0.uppercased().map { $0 == "-" ? "_" : $0 }) } ?? ""
        let variable = "SCAND_CAMERA_CREDENTIALS" + suffix
        var value = environment[variable]
        var origin = variable
        if value == nil, let path = environment[variable + "_FILE"] {
            value = try readFirstLine(path)
            origin = path
        } else if value == nil, let directory = environment["CREDENTIALS_DIRECTORY"] {
            let path = directory + "/camera" + (camera.map { "-" + $0 } ?? "")
            if let line = try? readFirstLine(path) {
                value = line
                origin = path
            }
        }
        guard let value else { return nil }
        guard value.contains(":") else {
            throw ScanError.invalidArgument("\(origin): camera credentials must be user:password")
        }
        return value
    }

    private static func readFirstLine(_ path: String) throws -> String {
        var bytes = [UInt8](repeating: 0, count: 4096)
        do {
            let fd = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
            let n = try fd.closeAfter { try bytes.withUnsafeMutableBytes { try fd.read(into: $0) } }
            bytes.removeSubrange(n...)
        } catch {
            throw ScanError.invalidArgument("camera credentials file \(printable(path)): \(error)")
        }
        let line = bytes.prefix { $0 != 0x0A && $0 != 0x0D }
        return String(decoding: line, as: UTF8.self)
    }

    /// `text` for a message: control characters and invalid UTF-8 escaped.
    static func printable(_ text: String) -> String { InputPath.escapedText(Array(text.utf8)) }

    /// Where `url`'s authority starts: just after the first `://`.
    static func afterScheme(_ url: String) -> String.Index? {
        var i = url.startIndex
        while i < url.endIndex {
            if url[i...].hasPrefix("://") { return url.index(i, offsetBy: 3) }
            i = url.index(after: i)
        }
        return nil
    }

    /// The part of `url` between `scheme://` and the path.
    static func authority(of url: String) -> Substring {
        guard let start = afterScheme(url) else { return "" }
        let rest = url[start...]
        return rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }

    /// `url` with any credentials in it replaced by `***` (for messages).
    public static func redacted(_ url: String) -> String {
        guard let start = afterScheme(url) else { return printable(url) }
        let authority = authority(of: url)
        guard let at = authority.lastIndex(of: "@") else { return printable(url) }
        return printable(
            String(url[..<start]) + "***" + String(url[at...]))
    }

    /// The URL FFmpeg connects to: ``url`` with the credentials, percent-encoded, before the host.
    var connectURL: String {
        guard let credentials, let start = Self.afterScheme(url) else { return url }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        func encode(_ s: Substring) -> String {
            var out: [UInt8] = []
            for b in s.utf8 {
                if allowed.contains(b) { out.append(b) } else { out += [0x25, hex[Int(b >> 4)], hex[Int(b & 15)]] }
            }
            return String(decoding: out, as: UTF8.self)
        }
        let colon = credentials.firstIndex(of: ":")!
        let user = encode(credentials[..<colon])
        let password = encode(credentials[credentials.index(after: colon)...])
        return String(url[..<start]) + user + ":" + password + "@" + String(url[start...])
    }
}

/// A network camera (issue 49): frames from its stream, paced by the stream itself, and its state as
/// `device` events, as a V4L2 camera reports them. A camera not reachable at start is `waiting` and starts
/// (`started`) when it answers; a stream that ends, fails or sends nothing for ``NetworkCameraConfiguration/readTimeout``
/// is `wasInterrupted`, and is connected again with backoff (`interruptionEnded` when frames flow again).
/// ``nextFrame()`` returns nil only once the daemon stops (``close()`` or ``stopReporting()``).
public final class NetworkCamera: FrameSource, Sendable {
    public let configuration: NetworkCameraConfiguration
    public let info: SourceInfo

    private struct State: Sendable {
        var handler: (@Sendable (DeviceEvent) -> Void)?
        var stopped = false
        /// The open stream (used by the reading thread only, outside the lock; the lock guards the slot).
        var video: VideoSource?
        /// `started` was reported (the first connection), and the stream is interrupted now.
        var started = false
        var interrupted = false
        var waitingReported = false
    }
    private let state = Locked(State())

    public init(_ configuration: NetworkCameraConfiguration) {
        self.configuration = configuration
        info = SourceInfo(name: configuration.url, isLive: true)
    }

    public func startReporting(_ handler: @escaping @Sendable (DeviceEvent) -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Stops reporting, and ends a wait for the camera (the daemon is stopping).
    public func stopReporting() {
        state.withLock {
            $0.handler = nil
            $0.stopped = true
        }
        state.broadcast()
    }

    private func report(_ kind: DeviceEvent.Kind, reason: String? = nil) {
        let handler = state.withLock { $0.handler }
        handler?(DeviceEvent(kind: kind, device: configuration.url, reason: reason))
    }

    /// The next frame: reconnecting (with backoff) for as long as the stream is down. nil once stopped.
    public func nextFrame() throws -> Frame? {
        var backoff = configuration.initialBackoff
        while !state.withLock({ $0.stopped }) {
            guard let video = state.withLock({ $0.video }) ?? connect() else {
                // Not connected: wait (a stop ends the wait), then try again, waiting longer each time.
                let deadline = MonotonicInstant.now.advanced(by: .milliseconds(Int64(backoff * 1000)))
                state.withLock(waitingUntil: { $0.stopped }, deadline: deadline, { _ in })
                backoff = min(configuration.maxBackoff, backoff * 2)
                continue
            }
            let frame: Frame?
            var why = "the stream ended or sent nothing for \(configuration.readTimeout) s"
            do {
                frame = try video.nextFrame()
            } catch {
                frame = nil
                why = Self.reason(error)
            }
            if let frame {
                let resumed = state.withLock { s -> Bool in
                    defer { s.interrupted = false }
                    return s.interrupted
                }
                if resumed { report(.interruptionEnded) }
                return frame
            }
            dropped(video, reason: why)
            backoff = configuration.initialBackoff
        }
        return nil
    }

    /// One attempt to connect; reports `started` (first time) or, while it fails before the first
    /// connection, `waiting` once. Returns the stream, or nil.
    private func connect() -> VideoSource? {
        do {
            let video = try VideoSource(
                streamURL: configuration.connectURL, name: configuration.url,
                openTimeout: configuration.openTimeout, readTimeout: configuration.readTimeout,
                limits: configuration.limits)
            let first = state.withLock { s -> Bool in
                s.video = video
                defer { s.started = true }
                return !s.started
            }
            if first { report(.started) }
            return video
        } catch {
            let first = state.withLock { s -> Bool in
                defer { s.waitingReported = true }
                return !s.started && !s.waitingReported
            }
            // Before the first connection: `waiting`, once; after a drop the camera is already interrupted.
            if first { report(.waiting, reason: Self.reason(error)) }
            return nil
        }
    }

    /// The stream ended or failed: closed, and `wasInterrupted` reported once until frames flow again.
    private func dropped(_ video: VideoSource, reason: String) {
        video.close()
        let report = state.withLock { s -> Bool in
            s.video = nil
            defer { s.interrupted = true }
            return !s.interrupted && !s.stopped
        }
        if report { self.report(.interrupted, reason: reason) }
    }

    /// The error's reason without the URL (the event already names the camera).
    private static func reason(_ error: any Error) -> String {
        if case ScanError.undecodableInput(_, let reason) = error { return reason }
        return "\(error)"
    }

    public func close() {
        let video = state.withLock { s -> VideoSource? in
            s.stopped = true
            defer { s.video = nil }
            return s.video
        }
        state.broadcast()
        video?.close()
    }
}
