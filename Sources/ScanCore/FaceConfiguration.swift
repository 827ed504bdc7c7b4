/// Which OpenCV cascade family finds faces.
public enum FaceCascade: String, Sendable, Hashable, CaseIterable {
    /// Haar features (`haarcascade_frontalface_alt2.xml`): slower, finds smaller faces (20 px window).
    case haar
    /// Local binary patterns (`lbpcascade_frontalface_improved.xml`): several times faster; 45 px window,
    /// so faces smaller than ~45 px are not found.
    case lbp

    /// Frontal cascade file name inside the models directory.
    public var frontalFile: String {
        switch self {
        case .haar: return "haarcascade_frontalface_alt2.xml"
        case .lbp: return "lbpcascade_frontalface_improved.xml"
        }
    }

    /// Profile cascade file name inside the models directory: the Haar one for both families
    /// (`lbpcascade_profileface.xml` misses most profiles; the profile search only runs on small windows).
    public var profileFile: String { "haarcascade_profileface.xml" }

    /// Eye cascade used for roll (the same for both families).
    public static let eyeFile = "haarcascade_eye.xml"
}

/// How faces are found and tracked (`AVMetadataFaceObject`). All sizes are frame pixels, times seconds.
public struct FaceConfiguration: Sendable, Hashable {
    /// Cascade family (`--face-cascade`).
    public var cascade: FaceCascade
    /// Smallest face side searched for on full-frame detection, in frame pixels (`--min-face-size`).
    public var minimumFaceSize: Int
    /// Largest face side, in frame pixels; nil: no limit.
    public var maximumFaceSize: Int?
    /// Full-frame detection every N frames (`--face-interval`); 1 searches the whole frame every frame.
    /// Between full detections known faces are followed by a window search (or by prediction alone when
    /// ``windowSearch`` is off). New faces are found by the full search only. On video, Y4M and cameras the
    /// full search is cut into jobs (``FaceDetector/SearchJob``) spread evenly over the N frames, so its cost
    /// is paid a slice per frame instead of all on one frame; the first frame of a source is searched whole.
    public var detectionInterval: Int
    /// Re-detect each known face in a window around its predicted position on every frame.
    public var windowSearch: Bool
    /// Search copies of the frame rotated by ±``rollSearchAngle`` so faces rolled up to ±45° are found
    /// (frontal cascades alone stop at about ±15–20°). Full searches after the first alternate between the
    /// two rotated copies; the window search around a known face follows its roll.
    public var rollSearch: Bool
    /// Rotation of the extra full-frame search copies, degrees.
    public var rollSearchAngle: Double
    /// Estimate roll from the eye pair (otherwise roll is the search angle that found the face, coarse).
    public var eyeRoll: Bool
    /// Try the profile cascade (and its mirror) to report yaw 90/270 and to keep turned faces.
    public var estimateYaw: Bool
    /// cv::CascadeClassifier scale step between pyramid levels of the full-frame search (> 1).
    public var scaleFactor: Double
    /// cv::CascadeClassifier minNeighbors for full-frame detection.
    public var minNeighbors: Int
    /// Frames a face may go undetected and keep its faceID (short-miss tolerance).
    public var maxMissedFrames: Int
    /// Consecutive detections before a new face is reported (suppresses one-frame false positives).
    public var confirmationFrames: Int
    /// Seconds a face must stay undetected before it counts as gone (`lost` presence transition).
    public var presenceGrace: Double
    /// On video, Y4M and cameras, the full search looks at a copy of the frame scaled down so its shorter
    /// side is at most this many pixels (`--face-analysis-size`); nil or 0: the frame as it is. The smallest
    /// face found grows with it: on a 1280×720 stream with 480 it is 1.5 × ``minimumFaceSize`` (or 1.5 × the
    /// cascade's window, 45 px for LBP). Still images are always searched at full resolution, and the
    /// window search around known faces is unaffected.
    public var analysisShortSide: Int?

    public init(cascade: FaceCascade = .lbp, minimumFaceSize: Int = 40, maximumFaceSize: Int? = nil,
                detectionInterval: Int = 8, windowSearch: Bool = true, rollSearch: Bool = true,
                rollSearchAngle: Double = 30, eyeRoll: Bool = true, estimateYaw: Bool = true,
                scaleFactor: Double = 1.15, minNeighbors: Int = 3, maxMissedFrames: Int = 20,
                confirmationFrames: Int = 2, presenceGrace: Double = 0.5, analysisShortSide: Int? = 480) {
        self.cascade = cascade; self.minimumFaceSize = minimumFaceSize; self.maximumFaceSize = maximumFaceSize
        self.detectionInterval = detectionInterval; self.windowSearch = windowSearch
        self.rollSearch = rollSearch; self.rollSearchAngle = rollSearchAngle; self.eyeRoll = eyeRoll
        self.estimateYaw = estimateYaw; self.scaleFactor = scaleFactor; self.minNeighbors = minNeighbors
        self.maxMissedFrames = maxMissedFrames; self.confirmationFrames = confirmationFrames
        self.presenceGrace = presenceGrace; self.analysisShortSide = analysisShortSide
    }

    /// A description of the first invalid setting, or nil when the configuration is usable.
    public var validationError: String? {
        if minimumFaceSize < 8 { return "minimum face size must be at least 8 pixels" }
        if let m = maximumFaceSize, m < minimumFaceSize { return "maximum face size must be at least the minimum" }
        if detectionInterval < 1 { return "face detection interval must be at least 1" }
        if !(scaleFactor > 1.0 && scaleFactor < 2.0) { return "face scale factor must be in (1, 2)" }
        if minNeighbors < 0 { return "face min neighbours must be >= 0" }
        if maxMissedFrames < 0 { return "max missed frames must be >= 0" }
        if confirmationFrames < 1 { return "confirmation frames must be at least 1" }
        if !(presenceGrace >= 0) || !presenceGrace.isFinite { return "presence grace must be a finite number of seconds >= 0" }
        if let a = analysisShortSide, a != 0 && a < 48 { return "face analysis size must be 0 (off) or at least 48 pixels" }
        if !(rollSearchAngle > 0 && rollSearchAngle <= 45) { return "roll search angle must be in (0, 45] degrees" }
        return nil
    }
}
