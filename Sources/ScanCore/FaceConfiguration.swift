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

/// Which detector finds faces (`--face-detector`).
public enum FaceDetectorKind: String, Sendable, Hashable, CaseIterable {
    /// CenterFace, a small neural network (`Models/centerface.onnx`) run by OpenCV's dnn: finds more faces
    /// than the cascades on varied people and gives five landmarks (roll from the eye line, yaw from the nose).
    /// Falls back to ``FaceConfiguration/cascade`` when the model cannot be loaded.
    case centerface
    /// OpenCV's Haar frontal cascade (with roll search, eye-pair roll and profile yaw).
    case haar
    /// OpenCV's LBP frontal cascade (faster than Haar, finds fewer faces).
    case lbp

    /// The cascade family of a cascade detector; nil for the neural one.
    public var cascade: FaceCascade? {
        switch self {
        case .centerface: return nil
        case .haar: return .haar
        case .lbp: return .lbp
        }
    }
}

/// Maps a detector's raw face box to the face square (forehead to chin, cheek to cheek: the box OpenCV's frontal
/// Haar cascade draws around an upright face, the convention of AVFoundation's face bounds), as measured on real
/// photographs by `bench/faces/calibrate.py` against the squares of `bench/faces/marks.json` ("faceSquare",
/// derived by `bench/faces/face_squares.py`).
public struct FaceBoxCalibration: Sendable, Hashable {
    /// Face square side / raw box side.
    public var scale: Double
    /// Shift of the centre along the face's downward axis, in raw box sides (positive: toward the chin).
    public var shiftDown: Double

    public init(scale: Double, shiftDown: Double) {
        self.scale = scale
        self.shiftDown = shiftDown
    }

    public static let identity = FaceBoxCalibration(scale: 1, shiftDown: 0)
}

/// How faces are found and tracked (`AVMetadataFaceObject`). All sizes are frame pixels, times seconds.
public struct FaceConfiguration: Sendable, Hashable {
    /// The detector (`--face-detector`).
    public var detector: FaceDetectorKind
    /// Input width of the neural detector's full-frame search, pixels (a multiple of 32; the height follows
    /// the frame's aspect, rounded up to a multiple of 32). Faces smaller than ~1/25 of it are missed.
    public var neuralInputWidth: Int
    /// Score a neural detection needs (0…1).
    public var neuralThreshold: Double
    /// Cascade family (`--face-cascade`): the detector when ``detector`` is a cascade, the fallback when the
    /// neural model is missing.
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

    public init(
        detector: FaceDetectorKind = .centerface, neuralInputWidth: Int = 320, neuralThreshold: Double = 0.5,
        cascade: FaceCascade = .haar, minimumFaceSize: Int = 40, maximumFaceSize: Int? = nil,
        detectionInterval: Int = 8, windowSearch: Bool = true, rollSearch: Bool = true,
        rollSearchAngle: Double = 30, eyeRoll: Bool = true, estimateYaw: Bool = true,
        scaleFactor: Double = 1.15, minNeighbors: Int = 3, maxMissedFrames: Int = 20,
        confirmationFrames: Int = 2, presenceGrace: Double = 0.5, analysisShortSide: Int? = 480
    ) {
        self.detector = detector
        self.neuralInputWidth = neuralInputWidth
        self.neuralThreshold = neuralThreshold
        self.cascade = cascade
        self.minimumFaceSize = minimumFaceSize
        self.maximumFaceSize = maximumFaceSize
        self.detectionInterval = detectionInterval
        self.windowSearch = windowSearch
        self.rollSearch = rollSearch
        self.rollSearchAngle = rollSearchAngle
        self.eyeRoll = eyeRoll
        self.estimateYaw = estimateYaw
        self.scaleFactor = scaleFactor
        self.minNeighbors = minNeighbors
        self.maxMissedFrames = maxMissedFrames
        self.confirmationFrames = confirmationFrames
        self.presenceGrace = presenceGrace
        self.analysisShortSide = analysisShortSide
    }

    /// A description of the first invalid setting, or nil when the configuration is usable.
    public var validationError: String? {
        if neuralInputWidth < 64 || neuralInputWidth > 1920 || neuralInputWidth % 32 != 0 {
            return "neural input width must be a multiple of 32 in 64…1920"
        }
        if !(neuralThreshold > 0 && neuralThreshold < 1) { return "neural threshold must be in (0, 1)" }
        if minimumFaceSize < 8 { return "minimum face size must be at least 8 pixels" }
        if let m = maximumFaceSize, m < minimumFaceSize { return "maximum face size must be at least the minimum" }
        if detectionInterval < 1 { return "face detection interval must be at least 1" }
        if !(scaleFactor > 1.0 && scaleFactor < 2.0) { return "face scale factor must be in (1, 2)" }
        if minNeighbors < 0 { return "face min neighbours must be >= 0" }
        if maxMissedFrames < 0 { return "max missed frames must be >= 0" }
        if confirmationFrames < 1 { return "confirmation frames must be at least 1" }
        if !(presenceGrace >= 0) || !presenceGrace.isFinite {
            return "presence grace must be a finite number of seconds >= 0"
        }
        if let a = analysisShortSide, a != 0 && a < 48 {
            return "face analysis size must be 0 (off) or at least 48 pixels"
        }
        if !(rollSearchAngle > 0 && rollSearchAngle <= 45) { return "roll search angle must be in (0, 45] degrees" }
        return nil
    }
}
