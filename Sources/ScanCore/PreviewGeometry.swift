/// How the picture is fitted into the view (`AVLayerVideoGravity`).
public enum VideoGravity: String, Sendable, Hashable, CaseIterable, Codable {
    /// Stretch the picture to fill the view exactly; the aspect ratio is not kept.
    case resize
    /// Scale the picture to fit inside the view, keeping its aspect ratio, and centre it (letterbox or
    /// pillarbox bars where the picture does not reach).
    case resizeAspect
    /// Scale the picture to cover the whole view, keeping its aspect ratio, and centre it (the parts of the
    /// picture past the view's edges are cropped away).
    case resizeAspectFill
}

/// How the picture is turned for display (`AVCaptureVideoOrientation`).
///
/// The frame as captured is `landscapeRight`; the others turn it clockwise as displayed by
/// ``rotationDegrees``.
public enum VideoOrientation: String, Sendable, Hashable, CaseIterable, Codable {
    case portrait
    case portraitUpsideDown
    case landscapeRight
    case landscapeLeft

    /// Clockwise rotation (as displayed, y down) from the frame as captured to the view, in degrees:
    /// `landscapeRight` 0, `portrait` 90, `landscapeLeft` 180, `portraitUpsideDown` 270.
    public var rotationDegrees: Int {
        switch self {
        case .landscapeRight: return 0
        case .portrait: return 90
        case .landscapeLeft: return 180
        case .portraitUpsideDown: return 270
        }
    }

    /// Whether the rotation swaps the picture's width and height (90° and 270°).
    public var swapsAxes: Bool { rotationDegrees % 180 != 0 }
}

/// A consumer's preview, without the frame size: everything ``PreviewGeometry`` needs except the size of
/// the frames, which comes from the source (and may differ per source). Defaults match
/// `AVCaptureVideoPreviewLayer`: `resizeAspect`, the frame as captured (`landscapeRight`), not mirrored.
public struct PreviewConfiguration: Sendable, Hashable {
    /// The view's size in view points.
    public var viewSize: ViewSize
    public var videoGravity: VideoGravity
    public var orientation: VideoOrientation
    /// Mirror the picture left-right after rotating it (`isVideoMirrored`), as a selfie preview does.
    public var isMirrored: Bool

    public init(
        viewSize: ViewSize, videoGravity: VideoGravity = .resizeAspect,
        orientation: VideoOrientation = .landscapeRight, isMirrored: Bool = false
    ) {
        self.viewSize = viewSize
        self.videoGravity = videoGravity
        self.orientation = orientation
        self.isMirrored = isMirrored
    }

    /// The geometry for frames of `frameSize` pixels.
    public func geometry(frameSize: PixelSize) -> PreviewGeometry {
        PreviewGeometry(configuration: self, frameSize: frameSize)
    }
}

/// Converts between normalized device coordinates and view coordinates exactly as
/// `AVCaptureVideoPreviewLayer` does.
///
/// The model, for a device point (u, v) ∈ [0,1]² (origin top-left of the frame as captured):
/// 1. rotate clockwise by ``VideoOrientation/rotationDegrees`` θ inside the unit square:
///    0° (u, v); 90° (1 − v, u); 180° (1 − u, 1 − v); 270° (v, 1 − u);
/// 2. if ``isMirrored``, X → 1 − X;
/// 3. fit the rotated picture — ``frameSize`` with width and height swapped at 90°/270° — into
///    ``viewSize`` per ``videoGravity`` (see ``pictureRect``): view = picture origin + (X, Y) × picture size.
///
/// The mapping is affine and exactly invertible. Points are **never clamped**: a device point outside
/// [0,1]² maps outside the picture, a view point in a letterbox bar (`resizeAspect`) maps outside [0,1]², and
/// a device point cropped away by `resizeAspectFill` maps outside the view. Check against
/// ``NormalizedRect/unit`` or the view's bounds yourself when that matters.
///
/// Sizes must be positive and finite; otherwise the conversions give non-finite values.
public struct PreviewGeometry: Sendable, Hashable {
    /// The view's size in view points.
    public var viewSize: ViewSize
    public var videoGravity: VideoGravity
    public var orientation: VideoOrientation
    /// Mirror left-right after rotating (`isVideoMirrored`).
    public var isMirrored: Bool
    /// The size of the frames as captured, in pixels (before rotation).
    public var frameSize: PixelSize

    public init(
        viewSize: ViewSize, videoGravity: VideoGravity = .resizeAspect,
        orientation: VideoOrientation = .landscapeRight, isMirrored: Bool = false,
        frameSize: PixelSize
    ) {
        self.viewSize = viewSize
        self.videoGravity = videoGravity
        self.orientation = orientation
        self.isMirrored = isMirrored
        self.frameSize = frameSize
    }

    public init(configuration c: PreviewConfiguration, frameSize: PixelSize) {
        self.init(
            viewSize: c.viewSize, videoGravity: c.videoGravity, orientation: c.orientation,
            isMirrored: c.isMirrored, frameSize: frameSize)
    }

    /// The same geometry without the frame size.
    public var configuration: PreviewConfiguration {
        PreviewConfiguration(
            viewSize: viewSize, videoGravity: videoGravity, orientation: orientation,
            isMirrored: isMirrored)
    }

    /// The size of the picture after rotation, in frame pixels (width and height swapped at 90°/270°).
    public var rotatedFrameSize: ViewSize {
        let w = Double(frameSize.width)
        let h = Double(frameSize.height)
        return orientation.swapsAxes ? ViewSize(width: h, height: w) : ViewSize(width: w, height: h)
    }

    /// Where the whole picture lands in the view, in view points. With `resize` it is the view; with
    /// `resizeAspect` it lies inside the view (bars around it); with `resizeAspectFill` it covers the
    /// view and sticks out on two sides.
    public var pictureRect: ViewRect {
        let content = rotatedFrameSize
        let sx = viewSize.width / content.width
        let sy = viewSize.height / content.height
        let scale: Double
        switch videoGravity {
        case .resize:
            return ViewRect(x: 0, y: 0, width: viewSize.width, height: viewSize.height)
        case .resizeAspect: scale = Swift.min(sx, sy)
        case .resizeAspectFill: scale = Swift.max(sx, sy)
        }
        let w = content.width * scale
        let h = content.height * scale
        return ViewRect(x: (viewSize.width - w) / 2, y: (viewSize.height - h) / 2, width: w, height: h)
    }

    // MARK: Points

    /// The view point (view points, origin top-left of the view) showing `point` (normalized device
    /// coordinates). `layerPointConverted(fromCaptureDevicePoint:)`. Not clamped.
    public func viewPoint(fromDevicePoint point: NormalizedPoint) -> ViewPoint {
        viewPoint(fromDevicePoint: point, picture: pictureRect)
    }

    /// The normalized device point shown at `point` (view points). `captureDevicePointConverted(fromLayerPoint:)`.
    /// Not clamped: view points outside the picture give values outside [0,1].
    public func devicePoint(fromViewPoint point: ViewPoint) -> NormalizedPoint {
        devicePoint(fromViewPoint: point, picture: pictureRect)
    }

    private func viewPoint(fromDevicePoint p: NormalizedPoint, picture: ViewRect) -> ViewPoint {
        var (x, y): (Double, Double)
        switch orientation {
        case .landscapeRight: (x, y) = (p.x, p.y)
        case .portrait: (x, y) = (1 - p.y, p.x)
        case .landscapeLeft: (x, y) = (1 - p.x, 1 - p.y)
        case .portraitUpsideDown: (x, y) = (p.y, 1 - p.x)
        }
        if isMirrored { x = 1 - x }
        return ViewPoint(x: picture.x + x * picture.width, y: picture.y + y * picture.height)
    }

    private func devicePoint(fromViewPoint p: ViewPoint, picture: ViewRect) -> NormalizedPoint {
        var x = (p.x - picture.x) / picture.width
        let y = (p.y - picture.y) / picture.height
        if isMirrored { x = 1 - x }
        switch orientation {
        case .landscapeRight: return NormalizedPoint(x: x, y: y)
        case .portrait: return NormalizedPoint(x: y, y: 1 - x)
        case .landscapeLeft: return NormalizedPoint(x: 1 - x, y: 1 - y)
        case .portraitUpsideDown: return NormalizedPoint(x: 1 - y, y: x)
        }
    }

    // MARK: Rectangles

    /// The view rectangle (view points) covering `rect` (normalized device coordinates): its four corners
    /// converted, then their bounding box. `layerRectConverted(fromMetadataOutputRect:)`. Not clamped.
    public func viewRect(fromDeviceRect rect: NormalizedRect) -> ViewRect {
        let picture = pictureRect
        return ViewRect(boundingPoints: rect.corners.map { viewPoint(fromDevicePoint: $0, picture: picture) })
    }

    /// The device rectangle (normalized device coordinates) shown in `rect` (view points): its four corners
    /// converted, then their bounding box. `metadataOutputRectConverted(fromLayerRect:)`: how an on-screen
    /// box becomes a `rectOfInterest`. Not clamped: intersect with ``NormalizedRect/unit`` when the box
    /// reaches into letterbox bars.
    public func deviceRect(fromViewRect rect: ViewRect) -> NormalizedRect {
        let picture = pictureRect
        return NormalizedRect(boundingPoints: rect.corners.map { devicePoint(fromViewPoint: $0, picture: picture) })
    }

    // MARK: Angles

    /// Roll in the view's frame, degrees in (−180, 180], positive clockwise as displayed.
    ///
    /// Rotating the picture clockwise by θ adds θ to the roll; mirroring then negates it
    /// (a clockwise tilt becomes a counter-clockwise one): view roll = ±(roll + θ).
    public func viewRollAngle(fromDeviceRollAngle roll: Double) -> Double {
        let turned = roll + Double(orientation.rotationDegrees)
        return Self.normalizedRoll(isMirrored ? -turned : turned)
    }

    /// Yaw in the view's frame, degrees in [0, 360).
    ///
    /// Yaw is a turn about the face's own vertical axis, so turning the picture in its plane leaves it
    /// unchanged; mirroring reverses its direction: 45 ↔ 315, 90 ↔ 270, 0 and 180 stay.
    public func viewYawAngle(fromDeviceYawAngle yaw: Double) -> Double {
        Self.normalizedYaw(isMirrored ? -yaw : yaw)
    }

    /// `degrees` brought into (−180, 180].
    public static func normalizedRoll(_ degrees: Double) -> Double {
        var a = degrees.truncatingRemainder(dividingBy: 360)
        if a <= -180 { a += 360 } else if a > 180 { a -= 360 }
        return a == 0 ? 0 : a  // no -0
    }

    /// `degrees` brought into [0, 360).
    public static func normalizedYaw(_ degrees: Double) -> Double {
        var a = degrees.truncatingRemainder(dividingBy: 360)
        if a < 0 { a += 360 }
        if a >= 360 { a -= 360 }
        return a == 0 ? 0 : a
    }

    // MARK: Objects

    /// `object` with ``MetadataObject/view`` filled in: bounds (``viewRect(fromDeviceRect:)`` of the device
    /// bounds), corners (each converted, in the same order, so `corners[0]` is still the symbol's own
    /// top-left; with mirroring they wind counter-clockwise as displayed), and roll and yaw per
    /// ``viewRollAngle(fromDeviceRollAngle:)`` and ``viewYawAngle(fromDeviceYawAngle:)``.
    /// `transformedMetadataObject(for:)`. The device-space fields are kept unchanged.
    public func transformed(_ object: MetadataObject) -> MetadataObject {
        let picture = pictureRect
        var out = object
        out.view = ViewMetadata(
            bounds: ViewRect(
                boundingPoints: object.bounds.corners.map { viewPoint(fromDevicePoint: $0, picture: picture) }),
            corners: object.corners.map { viewPoint(fromDevicePoint: $0, picture: picture) },
            rollAngle: object.rollAngle.map(viewRollAngle(fromDeviceRollAngle:)),
            yawAngle: object.yawAngle.map(viewYawAngle(fromDeviceYawAngle:)))
        return out
    }
}
