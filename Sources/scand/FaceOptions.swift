import ArgumentParser
import ScanCore
import ScanKit

/// Face detection and tracking options (used with `--types face`).
struct FaceOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Face detector: centerface (neural network, Models/centerface.onnx; default: finds the most faces at real-time speed, landmarks give roll and yaw), haar or lbp (OpenCV cascades with roll search). Without the model file, centerface falls back to the --face-cascade family with a warning. See docs/faces.md.",
            valueName: "centerface|haar|lbp"))
    var faceDetector: FaceDetectorKind?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Cascade family: the detector when --face-detector is not given as centerface (same as --face-detector haar|lbp), and the fallback of centerface.",
            valueName: "haar|lbp"))
    var faceCascade: FaceCascade?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "centerface: input width of the full-frame search, pixels (a multiple of 32, 64…1920; larger finds smaller faces and costs more; default \(FaceConfiguration().neuralInputWidth)).",
            valueName: "px"))
    var faceNeuralWidth: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "centerface: score a detection needs, 0…1 (lower: more faces and more false ones; default \(format(FaceConfiguration().neuralThreshold))).",
            valueName: "s"))
    var faceThreshold: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Smallest face side to look for, in frame pixels (default \(FaceConfiguration().minimumFaceSize)).",
            valueName: "px"))
    var minFaceSize: Int?

    @Option(
        name: .long,
        help: ArgumentHelp("Largest face side to look for, in frame pixels (default: no limit).", valueName: "px"))
    var maxFaceSize: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Search the whole frame every N frames; known faces are re-detected in a window around them on every frame. 1 = whole frame every frame. On video and cameras the search is spread over the N frames, and faces of twice the smallest size are looked for on every frame (default \(FaceConfiguration().detectionInterval)).",
            valueName: "N"))
    var faceInterval: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "On video and cameras, search for new faces on a copy of the frame scaled down to this shorter side (0 = full resolution; default \(FaceConfiguration().analysisShortSide ?? 0)). At 1280x720 the default makes the smallest face 1.5x --min-face-size (LBP: 67 px). Still images always use full resolution.",
            valueName: "px"))
    var faceAnalysisSize: Int?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Re-detect known faces in a window between full-frame searches (default on; off: they are reported only on full-search frames)."
    )
    var faceWindow: Bool?

    @Flag(
        inversion: .prefixedNo,
        help:
            "Search rolled faces too (default on; off: upright only, faster, faces rolled beyond about ±15° are missed)."
    )
    var rollSearch: Bool?

    @Flag(
        inversion: .prefixedNo, help: "Estimate roll from the eyes (default on; off: roll is the coarse search angle).")
    var eyeRoll: Bool?

    @Flag(
        inversion: .prefixedNo,
        help: "Run the profile cascades for yawAngle 45/90/270/315 (default on; off: turned faces are lost).")
    var yaw: Bool?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Frames a face may go undetected and keep its faceID (default \(FaceConfiguration().maxMissedFrames)).",
            valueName: "N"))
    var faceMaxMisses: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds a face must stay undetected before a 'lost' presence transition (the one face grace setting; `scand run --face-lost-after` is an alias; default \(format(FaceConfiguration().presenceGrace))).",
            valueName: "s"))
    var faceGrace: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Pyramid scale step of the full-frame search (1.05 slow and thorough … 1.3 fast; default \(format(FaceConfiguration().scaleFactor))).",
            valueName: "f"))
    var faceScaleFactor: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Cascade min neighbours of the full-frame search (higher: fewer false faces, more misses; default \(FaceConfiguration().minNeighbors)).",
            valueName: "n"))
    var faceMinNeighbors: Int?

    /// Sets what was given on the command line (over the defaults or the config file's values).
    func apply(to c: inout FaceConfiguration) {
        if let faceCascade {
            c.cascade = faceCascade
            c.detector = faceCascade == .haar ? .haar : .lbp
        }
        if let faceDetector {
            c.detector = faceDetector
            if let family = faceDetector.cascade { c.cascade = family }
        }
        if let faceNeuralWidth { c.neuralInputWidth = faceNeuralWidth }
        if let faceThreshold { c.neuralThreshold = faceThreshold }
        if let minFaceSize { c.minimumFaceSize = minFaceSize }
        if let maxFaceSize { c.maximumFaceSize = maxFaceSize }
        if let faceInterval { c.detectionInterval = faceInterval }
        if let faceAnalysisSize { c.analysisShortSide = faceAnalysisSize > 0 ? faceAnalysisSize : nil }
        if let faceWindow { c.windowSearch = faceWindow }
        if let rollSearch { c.rollSearch = rollSearch }
        if let eyeRoll { c.eyeRoll = eyeRoll }
        if let yaw { c.estimateYaw = yaw }
        if let faceMaxMisses { c.maxMissedFrames = faceMaxMisses }
        if let faceGrace { c.presenceGrace = faceGrace }
        if let faceScaleFactor { c.scaleFactor = faceScaleFactor }
        if let faceMinNeighbors { c.minNeighbors = faceMinNeighbors }
    }
}
