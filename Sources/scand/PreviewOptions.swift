import ArgumentParser
import ScanCore
import ScanKit

/// The consumer's preview (`AVCaptureVideoPreviewLayer`), shared by every command that reports objects
/// (`scan`, and the daemon). With `--view-size`, every object gets `view` geometry in view points.
struct PreviewOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Size of the consumer's preview in view points, WxH (e.g. 1080x1920). Adds \"view\" geometry to every object.", valueName: "WxH"))
    var viewSize: String?

    @Option(name: .long, help: ArgumentHelp("How the picture fits the view: resize (stretch), resizeAspect (fit, letterbox), resizeAspectFill (fill, crop). Default resizeAspect.", valueName: "gravity"), transform: parseCase)
    var videoGravity: VideoGravity?

    @Option(name: .long, help: ArgumentHelp("How the picture is turned for display: landscapeRight (as captured), portrait (90° clockwise), landscapeLeft (180°), portraitUpsideDown (270°). Default landscapeRight.", valueName: "orientation"), transform: parseCase)
    var orientation: VideoOrientation?

    @Flag(name: .long, help: "The preview is mirrored left-right after rotation (isVideoMirrored), as a selfie view is.")
    var mirrored = false

    @Option(name: .long, help: ArgumentHelp("Scan only the part of the picture shown in this rectangle of the view: x,y,w,h in view points. Needs --view-size; not with --rect-of-interest.", valueName: "x,y,w,h"))
    var rectOfInterestView: String?

    /// The preview configuration, or nil without `--view-size`.
    /// - Throws: `ValidationError` for malformed values, or preview options without `--view-size`.
    func previewConfiguration() throws -> PreviewConfiguration? {
        guard let viewSize else {
            var given: [String] = []
            if videoGravity != nil { given.append("--video-gravity") }
            if orientation != nil { given.append("--orientation") }
            if mirrored { given.append("--mirrored") }
            if rectOfInterestView != nil { given.append("--rect-of-interest-view") }
            if !given.isEmpty { throw ValidationError("\(given.joined(separator: ", ")) needs --view-size WxH") }
            return nil
        }
        return PreviewConfiguration(viewSize: try parseViewSize(viewSize),
                                    videoGravity: videoGravity ?? .resizeAspect,
                                    orientation: orientation ?? .landscapeRight,
                                    isMirrored: mirrored)
    }

    /// Adds the preview and the view rect of interest to `config` (built from `detection`).
    func apply(to config: inout OutputConfiguration, detection: DetectionOptions) throws {
        config.preview = try previewConfiguration()
        if let rectOfInterestView {
            guard detection.rectOfInterest == nil else {
                throw ValidationError("--rect-of-interest-view and --rect-of-interest exclude each other")
            }
            let r = try parseRect(rectOfInterestView, name: "--rect-of-interest-view")
            if let view = config.preview?.viewSize,
               !(r.width > 0 && r.height > 0 && r.minX >= 0 && r.minY >= 0 && r.maxX <= view.width && r.maxY <= view.height) {
                throw ValidationError("--rect-of-interest-view must be a non-empty rectangle inside the \(format(view.width))x\(format(view.height)) view, got '\(rectOfInterestView)'")
            }
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

/// Parses one of an enum's raw names (AVFoundation's case names), listing them when `text` is none of them.
func parseCase<T: RawRepresentable & CaseIterable>(_ text: String) throws -> T where T.RawValue == String {
    guard let value = T(rawValue: text) else {
        throw ValidationError("'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return value
}

/// A number as a user would write it: no trailing `.0`.
func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
