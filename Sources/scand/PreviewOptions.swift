import ArgumentParser
import ScanCapture
import ScanCore
import ScanDaemon
import ScanKit

/// The consumer's preview (`AVCaptureVideoPreviewLayer`), shared by every command that reports objects
/// (`scan`, and the daemon). With `--view-size`, every object gets `view` geometry in view points.
struct PreviewOptions: ParsableArguments {
    @Option(name: .setting(.viewSize), help: .setting(.viewSize))
    var viewSize: String?

    @Option(name: .setting(.videoGravity), help: .setting(.videoGravity))
    var videoGravity: VideoGravity?

    @Option(name: .setting(.orientation), help: .setting(.orientation))
    var orientation: VideoOrientation?

    @Flag(name: .setting(.mirrored), inversion: .prefixedNo, help: .setting(.mirrored))
    var mirrored: Bool?

    @Option(name: .setting(.rectOfInterestView), help: .setting(.rectOfInterestView))
    var rectOfInterestView: String?

    /// The preview configuration from the flags, each falling back to `file`'s value; nil without a view size.
    /// - Throws: `ValidationError` for malformed values, or preview options without a view size.
    func previewConfiguration(file: DaemonConfigFile = DaemonConfigFile()) throws -> PreviewConfiguration? {
        let size: ViewSize
        if let viewSize {
            size = try parseViewSize(viewSize)
        } else if let fileSize = file.viewSize {
            size = fileSize
        } else {
            var given: [String] = []
            if videoGravity != nil || file.videoGravity != nil { given.append("--video-gravity") }
            if orientation != nil || file.orientation != nil { given.append("--orientation") }
            if mirrored != nil || file.mirrored != nil { given.append("--mirrored") }
            if rectOfInterestView != nil || file.rectOfInterestView != nil { given.append("--rect-of-interest-view") }
            if !given.isEmpty { throw ValidationError("\(given.joined(separator: ", ")) needs --view-size WxH") }
            return nil
        }
        return PreviewConfiguration(
            viewSize: size,
            videoGravity: videoGravity ?? file.videoGravity ?? .resizeAspect,
            orientation: orientation ?? file.orientation ?? .landscapeRight,
            isMirrored: mirrored ?? file.mirrored ?? false)
    }

    /// Adds the preview and the view rect of interest to `config`. The two rects of interest are one setting:
    /// a flag for either replaces the file's (whichever the file gives).
    func apply(
        to config: inout OutputConfiguration, rectOfInterestFlag: String?, file: DaemonConfigFile = DaemonConfigFile()
    ) throws {
        config.preview = try previewConfiguration(file: file)
        if let rectOfInterestView {
            guard rectOfInterestFlag == nil else {
                throw ValidationError("--rect-of-interest-view and --rect-of-interest exclude each other")
            }
            let r = try parseRect(rectOfInterestView, name: "--rect-of-interest-view")
            if let view = config.preview?.viewSize,
                !(r.width > 0 && r.height > 0 && r.minX >= 0 && r.minY >= 0 && r.maxX <= view.width
                    && r.maxY <= view.height)
            {
                throw ValidationError(
                    "--rect-of-interest-view must be a non-empty rectangle inside the \(plainNumber(view.width))x\(plainNumber(view.height)) view, got '\(rectOfInterestView)'"
                )
            }
            config.rectOfInterest = .unit
            config.rectOfInterestView = ViewRect(x: r.x, y: r.y, width: r.width, height: r.height)
        } else if rectOfInterestFlag == nil, let r = file.rectOfInterestView {
            config.rectOfInterestView = ViewRect(x: r.x, y: r.y, width: r.width, height: r.height)
        }
    }
}

/// Parses `WxH` (view points; decimals allowed), e.g. `1080x1920` or `390x844.5`.
func parseViewSize(_ text: String) throws -> ViewSize {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Double(String($0)) }
    guard parts.count == 2, let w = parts[0], let h = parts[1], w.isFinite, h.isFinite, w > 0, h > 0 else {
        throw ValidationError("--view-size takes WxH with positive numbers (e.g. 1080x1920), got '\(text)'")
    }
    return ViewSize(width: w, height: h)
}
