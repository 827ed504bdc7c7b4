import ArgumentParser
import ScanCore
import ScanKit

/// Face detection and tracking options (used with `--types face`).
struct FaceOptions: ParsableArguments {
    @Option(name: .setting(.faceDetector), help: .setting(.faceDetector))
    var faceDetector: FaceDetectorKind?

    @Option(name: .setting(.faceCascade), help: .setting(.faceCascade))
    var faceCascade: FaceCascade?

    @Option(name: .setting(.faceNeuralWidth), help: .setting(.faceNeuralWidth))
    var faceNeuralWidth: Int?

    @Option(name: .setting(.faceThreshold), help: .setting(.faceThreshold))
    var faceThreshold: Double?

    @Option(name: .setting(.minFaceSize), help: .setting(.minFaceSize))
    var minFaceSize: Int?

    @Option(name: .setting(.maxFaceSize), help: .setting(.maxFaceSize))
    var maxFaceSize: Int?

    @Option(name: .setting(.faceInterval), help: .setting(.faceInterval))
    var faceInterval: Int?

    @Option(name: .setting(.faceAnalysisSize), help: .setting(.faceAnalysisSize))
    var faceAnalysisSize: Int?

    @Flag(name: .setting(.faceWindow), inversion: .prefixedNo, help: .setting(.faceWindow))
    var faceWindow: Bool?

    @Flag(name: .setting(.rollSearch), inversion: .prefixedNo, help: .setting(.rollSearch))
    var rollSearch: Bool?

    @Flag(name: .setting(.eyeRoll), inversion: .prefixedNo, help: .setting(.eyeRoll))
    var eyeRoll: Bool?

    @Flag(name: .setting(.yaw), inversion: .prefixedNo, help: .setting(.yaw))
    var yaw: Bool?

    @Option(name: .setting(.faceMaxMisses), help: .setting(.faceMaxMisses))
    var faceMaxMisses: Int?

    @Option(name: .setting(.faceGrace), help: .setting(.faceGrace))
    var faceGrace: Double?

    @Option(name: .setting(.faceScaleFactor), help: .setting(.faceScaleFactor))
    var faceScaleFactor: Double?

    @Option(name: .setting(.faceMinNeighbors), help: .setting(.faceMinNeighbors))
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
