import ArgumentParser
import ScanCore
import ScanKit

/// Face detection and tracking options (used with `--types face`).
struct FaceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Face detector: centerface (neural network, Models/centerface.onnx; default: finds the most faces at real-time speed, landmarks give roll and yaw), haar or lbp (OpenCV cascades with roll search). Without the model file, centerface falls back to the --face-cascade family with a warning. See docs/faces.md.", valueName: "centerface|haar|lbp"))
    var faceDetector: String?

    @Option(name: .long, help: ArgumentHelp("Cascade family: the detector when --face-detector is not given as centerface (same as --face-detector haar|lbp), and the fallback of centerface.", valueName: "haar|lbp"))
    var faceCascade: String?

    @Option(name: .long, help: ArgumentHelp("Smallest face side to look for, in frame pixels.", valueName: "px"))
    var minFaceSize: Int = FaceConfiguration().minimumFaceSize

    @Option(name: .long, help: ArgumentHelp("Largest face side to look for, in frame pixels (default: no limit).", valueName: "px"))
    var maxFaceSize: Int?

    @Option(name: .long, help: ArgumentHelp("Search the whole frame every N frames; known faces are re-detected in a window around them on every frame. 1 = whole frame every frame. On video and cameras the search is spread over the N frames, and faces of twice the smallest size are looked for on every frame.", valueName: "N"))
    var faceInterval: Int = FaceConfiguration().detectionInterval

    @Option(name: .long, help: ArgumentHelp("On video and cameras, search for new faces on a copy of the frame scaled down to this shorter side (0 = full resolution). At 1280x720 the default makes the smallest face 1.5x --min-face-size (LBP: 67 px). Still images always use full resolution.", valueName: "px"))
    var faceAnalysisSize: Int = FaceConfiguration().analysisShortSide ?? 0

    @Flag(name: .long, help: "Do not re-detect known faces in a window between full-frame searches (they are then reported only on full-search frames).")
    var noFaceWindow = false

    @Flag(name: .long, help: "Search upright faces only (faster; faces rolled beyond about ±15° are missed).")
    var noRollSearch = false

    @Flag(name: .long, help: "Do not estimate roll from the eyes (roll is then the coarse search angle).")
    var noEyeRoll = false

    @Flag(name: .long, help: "Do not run the profile cascades (no yawAngle 45/90/270/315, turned faces are lost).")
    var noYaw = false

    @Option(name: .long, help: ArgumentHelp("Frames a face may go undetected and keep its faceID.", valueName: "N"))
    var faceMaxMisses: Int = FaceConfiguration().maxMissedFrames

    @Option(name: .long, help: ArgumentHelp("Seconds a face must stay undetected before a 'lost' presence transition (the one face grace setting; `scand run --face-lost-after` is an alias). Default \(FaceConfiguration().presenceGrace).", valueName: "s"))
    var faceGrace: Double?

    @Option(name: .long, help: ArgumentHelp("Pyramid scale step of the full-frame search (1.05 slow and thorough … 1.3 fast).", valueName: "f"))
    var faceScaleFactor: Double = FaceConfiguration().scaleFactor

    @Option(name: .long, help: ArgumentHelp("Cascade min neighbours of the full-frame search (higher: fewer false faces, more misses).", valueName: "n"))
    var faceMinNeighbors: Int = FaceConfiguration().minNeighbors

    func configuration() throws -> FaceConfiguration {
        var c = FaceConfiguration()
        if let faceCascade {
            guard let cascade = FaceCascade(rawValue: faceCascade.lowercased()) else {
                throw ValidationError("--face-cascade must be haar or lbp, got '\(faceCascade)'")
            }
            c.cascade = cascade
            c.detector = cascade == .haar ? .haar : .lbp
        }
        if let faceDetector {
            guard let kind = FaceDetectorKind(rawValue: faceDetector.lowercased()) else {
                throw ValidationError("--face-detector must be centerface, haar or lbp, got '\(faceDetector)'")
            }
            c.detector = kind
            if let family = kind.cascade { c.cascade = family }
        }
        c.minimumFaceSize = minFaceSize
        c.maximumFaceSize = maxFaceSize
        c.detectionInterval = faceInterval
        c.analysisShortSide = faceAnalysisSize > 0 ? faceAnalysisSize : nil
        c.windowSearch = !noFaceWindow
        c.rollSearch = !noRollSearch
        c.eyeRoll = !noEyeRoll
        c.estimateYaw = !noYaw
        c.maxMissedFrames = faceMaxMisses
        if let faceGrace { c.presenceGrace = faceGrace }
        c.scaleFactor = faceScaleFactor
        c.minNeighbors = faceMinNeighbors
        if let problem = c.validationError { throw ValidationError(problem) }
        return c
    }
}
