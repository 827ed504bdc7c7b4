// The catalogue of `scand run`'s settings (see Setting.swift): camera, camera controls, reader and faces.

extension Setting {
    // MARK: Camera tuning (--device)

    public static let preset = Setting(
        "preset", flag: "preset", valueName: "preset", help: "Session preset (default high).")
    public static let size = Setting(
        "size", flag: "size", valueName: "WxH", help: "Explicit frame size in pixels (overrides the preset).")
    public static let fps = Setting(
        "fps", flag: "fps", valueName: "fps",
        bounds: .above(0, atMost: 1000),
        help: "Frames per second to ask the driver for (S_PARM); the rate it chose is reported.")
    public static let stallTimeout = Setting(
        "stallTimeout", flag: "stall-timeout", valueName: "S",
        bounds: .above(0, atMost: 86_400, unit: "seconds"),
        help:
            "Seconds without a frame before the device counts as stalled (wasInterrupted) and is reopened, or a pipe (a FIFO, stdin from a program) counts as stalled (default 2)."
    )

    // MARK: Camera controls (with --device)

    public static let control = Setting(
        "controls", flag: "control", aliases: ["control"], valueName: "NAME=VALUE",
        help:
            "Set a V4L2 control, by its v4l2-ctl snake-case name (see 'scand devices'); repeatable. VALUE: a number, true/false, or a menu item's name. Out-of-range values are errors."
    )
    public static let exposurePointOfInterest = Setting(
        "exposurePointOfInterest", flag: "exposure-point-of-interest", valueName: "x,y",
        help:
            "Meter exposure in software on a 0.2x0.2 square around this point (normalized device coordinates) by stepping exposure_time_absolute, gain or brightness."
    )
    public static let exposureOnRectOfInterest = Setting(
        "exposureOnRectOfInterest", flag: "exposure-on-rect-of-interest",
        help: "Meter exposure in software on the --rect-of-interest (instead of a point).")
    public static let exposureTarget = Setting(
        "exposureTarget", flag: "exposure-target", valueName: "t",
        bounds: .between(0, and: 1), help: "Target mean luma of the metered region, 0...1 of full scale (default 0.5).")
    public static let exposureControl = Setting(
        "exposureControl", flag: "exposure-control", valueName: "name",
        help:
            "The control the exposure loop steps (default: the first writable, active one of exposure_time_absolute, gain, brightness)."
    )

    // MARK: Reader tuning

    public static let inverted = Setting(
        "inverted", flag: "inverted", aliases: ["tryInverted"],
        help: "Retry frames with no code as inverted (light-on-dark) luma (default on).")
    public static let scanDensity = Setting(
        "scanDensity", flag: "scan-density", valueName: "n",
        bounds: .range(1...16),
        help:
            "zbar scan density on still images: pixels between scan lines (1 = every line). Default: every line on images of up to 2249 lines, every 2nd on 2250-3749 (12 MP photos), every 3rd on 3750-5249 and so on (docs/reader.md); given, it holds on images of any size."
    )
    public static let engine = Setting(
        "engine", flag: "engine", valueName: "engine",
        help:
            "Barcode engine: zbar, zxing, or both (default; zbar first, zxing-cpp where zbar reads nothing and for Data Matrix, Aztec, PDF417, Micro QR)."
    )
    public static let passes = Setting(
        "passes", flag: "passes", valueName: "passes",
        help:
            "Reader passes in order, tried only while nothing has decoded: plain,inverted,downscaled,upscaled,thresholded,deskewed,upscaled-thresholded (default all)."
    )
    public static let extraPasses = Setting(
        "extraPasses", flag: "extra-passes",
        help:
            "Extra passes (downscaled, upscaled, thresholded, deskewed, upscaled-thresholded) after plain and inverted (default on)."
    )
    public static let codabarMinLength = Setting(
        "codabarMinLength", flag: "codabar-min-length", valueName: "n",
        bounds: .range(3...1000), help: "Minimum Codabar length, start/stop characters included (default 6).")
    public static let i25MinLength = Setting(
        "i25MinLength", flag: "i25-min-length", valueName: "n", bounds: .range(2...1000),
        help: "Minimum Interleaved 2 of 5 length (default 6).")
    public static let i25Checksum = Setting(
        "i25Checksum", flag: "i25-checksum",
        help: "Require a valid mod-10 check digit on Interleaved 2 of 5 (default off).")
    public static let minLinearQuality = Setting(
        "minLinearQuality", flag: "min-linear-quality", valueName: "n",
        bounds: .range(0...1000), help: "Drop 1-D codes read on fewer scan lines than this (0 keeps all; default 2).")
    public static let zbarUncertainty = Setting(
        "zbarUncertainty", flag: "zbar-uncertainty", valueName: "n",
        bounds: .range(0...100),
        help: "zbar uncertainty for 1-D codes (extra agreeing decodes required); default: zbar's own.")
    public static let confirm1D = Setting(
        "confirm1D", flag: "confirm-1d", aliases: ["confirm1d"],
        help:
            "On video and streams, report a 1-D code only after it was read in two frames (within 3 frames; default off)."
    )
    public static let models = Setting(
        "models", flag: "models", valueName: "dir",
        help:
            "Directory holding the model (cascade) files (default: found next to the binary, or <prefix>/share/scand/Models)."
    )
    public static let streamSteps = Setting(
        "streamSteps", flag: "stream-steps", valueName: "n",
        bounds: .range(0...100),
        help:
            "On video, Y4M and cameras: further reading steps (one pass with one engine) per frame after the plain zbar pass finds nothing; they rotate across frames (default 1)."
    )
    public static let allPassesOnStreams = Setting(
        "allPassesOnStreams", flag: "all-passes-on-streams",
        help:
            "On video, Y4M and cameras, try every pass and engine on every frame (as for still images; slow on frames with no code; default off)."
    )
    public static let streamScanDensity = Setting(
        "streamScanDensity", flag: "stream-scan-density", valueName: "n",
        bounds: .range(1...16),
        help:
            "zbar scan density on video, Y4M and cameras (pixels between scan lines; --scan-density is for still images; default 2)."
    )
    public static let streamQRLines = Setting(
        "streamQRLines", flag: "stream-qr-lines", aliases: ["streamQrLines"], valueName: "n",
        bounds: .range(120...8192, off: 0),
        help:
            "On video, Y4M and cameras: every frame gets a QR look (zxing-cpp, QR only) on the frame scaled down to at most this many lines; zbar finds no QR once its scan lines are 5 or more pixels apart, as they are at 1080p (default 720; 0: off)."
    )
    public static let parallelDetectors = Setting(
        "parallelDetectors", flag: "parallel-detectors",
        help: "Read codes and faces at the same time on two threads (default on).")
    public static let code39FullASCII = Setting(
        "code39FullASCII", flag: "code39-full-ascii", aliases: ["code39FullAscii"],
        help:
            "Decode Code 39 as Full ASCII (+A → a, %J → ?, /A → !) always (--code39-full-ascii) or never (--no-code39-full-ascii); default: where the symbol is evidently Full ASCII, with the other reading kept (see docs/reader.md)."
    )
    public static let code32 = Setting(
        "code32", flag: "code32",
        help:
            "Decode Code 39 symbols that are Code 32 (Italian Pharmacode) as \"A\" + 9 digits, the printed characters kept in rawValue (default on; see docs/reader.md)."
    )
    public static let confirmTransformed = Setting(
        "confirmTransformed", flag: "confirm-transformed",
        help:
            "Hold back 1-D reads from transformed passes (inverted, scaled, thresholded) until 3+ scan lines, the other engine or (on streams) a second frame confirms them (default on; see docs/reader.md)."
    )
    public static let checkSmallRetail = Setting(
        "checkSmallRetail", flag: "check-small-retail",
        help:
            "Small EAN/UPC codes (module under 2.5 px) zbar reads get zxing-cpp's second opinion, which replaces zbar's digits when it differs (default off; see docs/reader.md)."
    )
    public static let extendLinearBounds = Setting(
        "extendLinearBounds", flag: "extend-linear-bounds",
        help:
            "On still images, report a 1-D code's corners and bounds out to the ends of its bars, followed across the bars from the scan lines that read it, instead of the scan lines' box (default on; streams keep the box; see docs/geometry.md)."
    )
    public static let resolveConflicts = Setting(
        "resolveConflicts", flag: "resolve-conflicts",
        help:
            "Two different payloads of one 1-D type read on one symbol: zxing-cpp decides, and without its read neither is reported. On video, Y4M and cameras, a payload read where another was read on recent frames waits for a second frame, and while the other is read more often; zxing-cpp on the frame decides where it reads either (default on; see docs/reader.md)."
    )
    public static let upceQuietZone = Setting(
        "upceQuietZone", flag: "upce-quiet-zone",
        help:
            "Drop a UPC-E read that is part of a longer code (bars run on past where it ends, or its box overlaps an EAN-13 read in the same image): the left half of an EAN-13/UPC-A that did not decode (default on; see docs/reader.md)."
    )
    public static let loadShedding = Setting(
        "loadShedding", flag: "load-shedding",
        help:
            "Cameras: shed optional work when late (code steps past the frame's deadline, the face-search slice after a late frame; default on)."
    )

    // MARK: Face tuning (--types face)

    public static let faceDetector = Setting(
        "faceDetector", flag: "face-detector", valueName: "centerface|haar|lbp",
        help:
            "Face detector: centerface (neural network, Models/centerface.onnx; default: finds the most faces at real-time speed, landmarks give roll and yaw), haar or lbp (OpenCV cascades with roll search). Without the model file, centerface falls back to the --face-cascade family with a warning. See docs/faces.md."
    )
    public static let faceCascade = Setting(
        "faceCascade", flag: "face-cascade", valueName: "haar|lbp",
        help:
            "Cascade family: the detector when --face-detector is not given as centerface (same as --face-detector haar|lbp), and the fallback of centerface."
    )
    public static let faceNeuralWidth = Setting(
        "faceNeuralWidth", flag: "face-neural-width", valueName: "px",
        help:
            "centerface: input width of the full-frame search, pixels (a multiple of 32, 64…1920; larger finds smaller faces and costs more; default \(faceDefaults.neuralInputWidth))."
    )
    public static let faceThreshold = Setting(
        "faceThreshold", flag: "face-threshold", valueName: "s",
        help:
            "centerface: score a detection needs, 0…1 (lower: more faces and more false ones; default \(plainNumber(faceDefaults.neuralThreshold)))."
    )
    public static let minFaceSize = Setting(
        "minFaceSize", flag: "min-face-size", valueName: "px",
        bounds: .range(8...16384, unit: "pixels"),
        help: "Smallest face side to look for, in frame pixels (default \(faceDefaults.minimumFaceSize)).")
    public static let maxFaceSize = Setting(
        "maxFaceSize", flag: "max-face-size", valueName: "px",
        help: "Largest face side to look for, in frame pixels (default: no limit).")
    public static let faceInterval = Setting(
        "faceInterval", flag: "face-interval", valueName: "N",
        bounds: .range(1...10_000),
        help:
            "Search the whole frame every N frames; known faces are re-detected in a window around them on every frame. 1 = whole frame every frame. On video and cameras the search is spread over the N frames, and faces of twice the smallest size are looked for on every frame (default \(faceDefaults.detectionInterval))."
    )
    public static let faceAnalysisSize = Setting(
        "faceAnalysisSize", flag: "face-analysis-size", valueName: "px",
        bounds: .range(48...16384, off: 0, unit: "pixels"),
        help:
            "On video and cameras, search for new faces on a copy of the frame scaled down to this shorter side (0 = full resolution; default \(faceDefaults.analysisShortSide ?? 0)). At 1280x720 the default makes the smallest face 1.5x --min-face-size (LBP: 67 px). Still images always use full resolution."
    )
    public static let faceWindow = Setting(
        "faceWindow", flag: "face-window",
        help:
            "Re-detect known faces in a window between full-frame searches (default on; off: they are reported only on full-search frames)."
    )
    public static let rollSearch = Setting(
        "rollSearch", flag: "roll-search",
        help:
            "Search rolled faces too (default on; off: upright only, faster, faces rolled beyond about ±15° are missed)."
    )
    public static let eyeRoll = Setting(
        "eyeRoll", flag: "eye-roll",
        help: "Estimate roll from the eyes (default on; off: roll is the coarse search angle).")
    public static let yaw = Setting(
        "yaw", flag: "yaw",
        help: "Run the profile cascades for yawAngle 45/90/270/315 (default on; off: turned faces are lost).")
    public static let faceMaxMisses = Setting(
        "faceMaxMisses", flag: "face-max-misses", valueName: "N",
        bounds: .range(0...100_000),
        help: "Frames a face may go undetected and keep its faceID (default \(faceDefaults.maxMissedFrames)).")
    public static let faceGrace = Setting(
        "faceGrace", flag: "face-grace", valueName: "s",
        bounds: .range(0...86_400.0, unit: "seconds"),
        help:
            "Seconds a face must stay undetected before a 'lost' presence transition (the one face grace setting; `scand run --face-lost-after` is an alias; default \(plainNumber(faceDefaults.presenceGrace)))."
    )
    public static let faceScaleFactor = Setting(
        "faceScaleFactor", flag: "face-scale-factor", valueName: "f",
        bounds: .between(1, and: 2),
        help:
            "Pyramid scale step of the full-frame search (1.05 slow and thorough … 1.3 fast; default \(plainNumber(faceDefaults.scaleFactor)))."
    )
    public static let faceMinNeighbors = Setting(
        "faceMinNeighbors", flag: "face-min-neighbors", valueName: "n",
        bounds: .range(0...100),
        help:
            "Cascade min neighbours of the full-frame search (higher: fewer false faces, more misses; default \(faceDefaults.minNeighbors))."
    )

    /// The settings declared in this file, in help order.
    public static let tuning: [Setting] = [
        preset, size, fps, stallTimeout, control,
        exposurePointOfInterest, exposureOnRectOfInterest, exposureTarget, exposureControl, inverted, scanDensity,
        engine, passes, extraPasses, codabarMinLength, i25MinLength, i25Checksum, minLinearQuality, zbarUncertainty,
        confirm1D, models, streamSteps, allPassesOnStreams, streamScanDensity, streamQRLines, parallelDetectors,
        code39FullASCII, code32, confirmTransformed, checkSmallRetail, extendLinearBounds, resolveConflicts,
        upceQuietZone, loadShedding, faceDetector, faceCascade, faceNeuralWidth, faceThreshold, minFaceSize,
        maxFaceSize, faceInterval, faceAnalysisSize, faceWindow, rollSearch, eyeRoll, yaw, faceMaxMisses, faceGrace,
        faceScaleFactor, faceMinNeighbors,
    ]
}

/// The face defaults the help texts quote.
private let faceDefaults = FaceConfiguration()
