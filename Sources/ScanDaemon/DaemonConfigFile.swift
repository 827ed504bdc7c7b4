import FoundationEssentials
import Logging
public import ScanCapture
public import ScanCore
public import ScanKit

/// The `scand run --config FILE` format: one JSON object; every key is optional and an explicit command-line
/// flag always overrides it. Every option of `run` has a key: the flag's long name in camelCase
/// (`--scan-density` → `scanDensity`, `--face-cascade` → `faceCascade`). The flags of the socket, presence and
/// MQTT groups sit in the `socket`, `presence` and `mqtt` objects, named without the group's prefix
/// (`--socket-group` → `socket.group`, `--lost-after` → `presence.lostAfter`, `--mqtt-topic-prefix` →
/// `mqtt.topicPrefix`), and the group's own flag may be given as a plain value (`"socket": PATH`,
/// `"presence": false`, `"mqtt": URL`). Older names stay as aliases (`tryInverted` for `inverted`).
/// Unknown keys, duplicate keys and values outside the flags' bounds are errors (a typo must not be silently
/// ignored), and every error names the file, the line and the column. See docs/daemon.md.
///
/// ```json
/// {"input": "demo.y4m", "types": ["qr", "ean13"], "metadata": false,
///  "socket": {"path": "/run/scand/scand.sock", "group": "scand"},
///  "presence": {"lostAfter": 1.0, "cooldown": 0.5}}
/// ```
public struct DaemonConfigFile: Sendable, Equatable {
    public struct Socket: Sendable, Equatable {
        public var path: String?
        public var group: String?
        public var clientQueue: Int?
        public var stallTimeout: Double?
        public var sendBuffer: Int?
        public init() {}
    }
    public struct Presence: Sendable, Equatable {
        public var enabled: Bool?
        public var appearAfterFrames: Int?
        public var lostAfter: Double?
        public var cooldown: Double?
        public var faceLostAfter: Double?
        public var by: PresenceBy?
        public var duplicateFilter: DuplicateFilter?
        public init() {}
    }

    public var input: String?
    public var device: String?
    /// `cameraCa`: the CA file network cameras' TLS servers are checked against (top level only).
    public var cameraCa: String?
    /// Comma-separated string or array of type names (`metadataObjectTypes`), or "all"/"codes".
    public var types: String?
    public var rectOfInterest: NormalizedRect?
    /// `--inverted` (key `inverted`; `tryInverted` is its older name).
    public var tryInverted: Bool?
    /// Decode Code 39 as Full ASCII (`--code39-full-ascii`).
    public var code39FullASCII: Bool?
    /// Decode Code 32 (Italian Pharmacode) symbols as "A" + 9 digits (`--code32`).
    public var code32: Bool?
    /// Hold back 1-D reads from transformed passes until confirmed (`--confirm-transformed`).
    public var confirmTransformed: Bool?
    /// zxing's second opinion on small EAN/UPC codes (`--check-small-retail`).
    public var checkSmallRetail: Bool?
    /// 1-D corners out to the bars' ends (`--extend-linear-bounds`, default on).
    public var extendLinearBounds: Bool?
    /// Two payloads of one 1-D type on one symbol: zxing decides (`--resolve-conflicts`, default on).
    public var resolveConflicts: Bool?
    /// Drop UPC-E reads with bars past both ends, EAN-13 left halves (`--upce-quiet-zone`, default on).
    public var upceQuietZone: Bool?
    public var scanDensity: Int?
    public var models: String?
    public var metadata: Bool?
    public var pacing: Bool?
    public var loop: Bool?
    public var exitAtEnd: Bool?
    public var stdout: Bool?
    /// Events kept waiting for a slow stdout reader in `run` before the oldest are dropped.
    public var stdoutQueue: Int?
    /// The decoders' pixel budget (`--max-pixels`).
    public var maxPixels: Int?
    public var logLevel: String?
    public var socket = Socket()
    public var presence = Presence()
    /// Camera controls by `v4l2-ctl` name: `{"brightness": 140, "auto_exposure": "manual_mode"}` (issue 18).
    /// Values are kept as text (numbers, true/false, menu item names) and checked against the device at start.
    public var controls: [String: String]?
    /// The MQTT client (issue 19); see DaemonConfigFile+MQTT.swift.
    public var mqtt = MQTTConfigSection()
    /// Focus, exposure, white balance and torch modes and exposure metering (`--focus-mode`, …).
    public var cameraModes = CameraModeSettings()
    /// `--fail-fast`: an absent camera is an error at once.
    public var failFast: Bool?

    // Reader (`--engine`, `--passes`, …), as the flags of the same name.
    public var engine: BarcodeEngine?
    public var passes: [ReaderPass]?
    public var extraPasses: Bool?
    public var codabarMinLength: Int?
    public var i25MinLength: Int?
    public var i25Checksum: Bool?
    public var minLinearQuality: Int?
    public var zbarUncertainty: Int?
    public var confirm1D: Bool?
    public var streamSteps: Int?
    public var allPassesOnStreams: Bool?
    public var streamScanDensity: Int?
    public var streamQRLines: Int?
    public var parallelDetectors: Bool?
    public var loadShedding: Bool?

    // Camera (`--preset`, `--size`, `--fps`, `--stall-timeout`).
    public var preset: SessionPreset?
    public var size: PixelSize?
    public var fps: Double?
    public var stallTimeout: Double?

    // Preview (`--view-size`, …): view coordinates for every object.
    public var viewSize: ViewSize?
    public var videoGravity: VideoGravity?
    public var orientation: VideoOrientation?
    public var mirrored: Bool?
    public var rectOfInterestView: NormalizedRect?

    // HTTP (`--http`, `--http-token`): the address to serve on and the token file (the token itself never
    // goes in this file or on argv).
    public var http: String?
    public var httpToken: String?
    /// `--http-max-fps`: the most MJPEG frames per second the preview encodes (0: as many as are processed).
    public var httpMaxFps: Double?

    // Faces (`--face-detector`, `--face-cascade`, …).
    public var faceDetector: FaceDetectorKind?
    public var faceCascade: FaceCascade?
    /// `--face-neural-width`, `--face-threshold`: CenterFace's input width (pixels) and score threshold.
    public var faceNeuralWidth: Int?
    public var faceThreshold: Double?
    public var minFaceSize: Int?
    public var maxFaceSize: Int?
    public var faceInterval: Int?
    public var faceAnalysisSize: Int?
    public var faceWindow: Bool?
    public var rollSearch: Bool?
    public var eyeRoll: Bool?
    public var yaw: Bool?
    public var faceMaxMisses: Int?
    public var faceGrace: Double?
    public var faceScaleFactor: Double?
    public var faceMinNeighbors: Int?

    // Script output and the end of the input (`--raw`, `--raw-bytes`, `--oneshot`, `--keep-running`).
    public var raw: Bool?
    public var rawBytes: Bool?
    public var oneshot: Bool?
    /// `--timeout` (with `oneshot`): seconds to wait for an object, (0, 31536000].
    public var timeout: Double?
    public var keepRunning: Bool?
    /// `cameras`: the cameras of a multi-camera run, by name (in name order), each with the top level's
    /// settings and its entry's over them (DaemonConfigFile+Cameras.swift).
    public var cameras: [CameraSection] = []

    public init() {}

    /// The largest config file read, in bytes.
    public static let maximumFileBytes = 1 << 20

    /// Reads and parses `path`.
    /// - Throws: ``ScanError/invalidArgument(_:)`` naming the file and the problem.
    public static func load(path: String) throws -> DaemonConfigFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            throw ScanError.invalidArgument("\(path): cannot read config file (missing or unreadable)")
        }
        guard data.count <= maximumFileBytes else {
            throw ScanError.invalidArgument("\(path): config file larger than \(maximumFileBytes) bytes")
        }
        return try parse([UInt8](data), name: path)
    }

    /// Parses a config document; `name` names it in errors, which read `NAME:LINE:COLUMN: message`.
    public static func parse(_ bytes: [UInt8], name: String) throws -> DaemonConfigFile {
        let syntax: StrictJSON
        do {
            syntax = try StrictJSON(checking: bytes)
        } catch {
            throw ScanError.invalidArgument("\(name):\(error.position): \(error.message)")
        }
        func at(_ path: [String]) -> String { "\(name):\(syntax.position(of: path))" }
        let value: DaemonConfigFile
        do {
            value = try JSONDecoder().decode(Coded.self, from: Data(bytes)).value
        } catch let error as ConfigKeyError {
            throw ScanError.invalidArgument("\(at(error.path)): \(error.message)")
        } catch let DecodingError.typeMismatch(type, ctx) {
            let path = ctx.codingPath.map(\.stringValue)
            throw ScanError.invalidArgument("\(at(path)): '\(pathText(ctx.codingPath))' must be \(typeName(type))")
        } catch let DecodingError.valueNotFound(type, ctx) {
            let path = ctx.codingPath.map(\.stringValue)
            throw ScanError.invalidArgument(
                "\(at(path)): '\(pathText(ctx.codingPath))' must be \(typeName(type)), not null")
        } catch let DecodingError.dataCorrupted(ctx) {
            let path = ctx.codingPath.map(\.stringValue)
            throw ScanError.invalidArgument(
                "\(at(path)): \(path.isEmpty ? "" : "'" + pathText(ctx.codingPath) + "': ")\(ctx.debugDescription)")
        } catch {
            throw ScanError.invalidArgument("\(name): \(error)")
        }
        do {
            try value.validate()
        } catch let error as ConfigKeyError {
            throw ScanError.invalidArgument("\(at(error.path)): \(error.message)")
        }
        return value
    }

    /// Sets the reader, face, model and rect-of-interest settings the file gives (not `types`, which the
    /// caller parses, nor the preview, which needs the flags' view size).
    public func apply(to o: inout OutputConfiguration) {
        if let v = rectOfInterest { o.rectOfInterest = v }
        if let v = tryInverted { o.barcode.tryInverted = v }
        if let v = code39FullASCII { o.barcode.code39FullASCII = v }
        if let v = code32 { o.barcode.code32 = v }
        if let v = confirmTransformed { o.barcode.confirmTransformedLinearReads = v }
        if let v = checkSmallRetail { o.barcode.checkSmallRetailReads = v }
        if let v = extendLinearBounds { o.barcode.extendLinearBounds = v }
        if let v = resolveConflicts { o.barcode.resolveConflictingReads = v }
        if let v = upceQuietZone { o.barcode.checkUPCEQuietZone = v }
        if let v = scanDensity {
            o.barcode.scanDensity = v
            o.barcode.stillScanLines = nil
        }
        if let v = models { o.models = ModelConfiguration(directory: v) }
        if let v = engine { o.barcode.engine = v }
        if let v = passes { o.barcode.passes = v }
        if let v = extraPasses { o.barcode.extraPasses = v }
        if let v = codabarMinLength { o.barcode.minimumCodabarLength = v }
        if let v = i25MinLength { o.barcode.minimumI25Length = v }
        if let v = i25Checksum { o.barcode.requireI25Checksum = v }
        if let v = minLinearQuality { o.barcode.minimumLinearQuality = v }
        if let v = zbarUncertainty { o.barcode.zbarUncertainty = v }
        if let v = confirm1D { o.barcode.confirmLinearCodes = v }
        if let v = streamSteps { o.barcode.streamStepsPerFrame = v }
        if allPassesOnStreams == true { o.barcode.streamStepsPerFrame = nil }
        if let v = streamScanDensity { o.barcode.streamScanDensity = v }
        if let v = streamQRLines { o.barcode.streamQRLookLines = v == 0 ? nil : v }
        if let v = parallelDetectors { o.parallelDetectors = v }
        if let v = loadShedding { o.shedLoadWhenLate = v }
        apply(to: &o.face)
    }

    /// Sets the face settings the file gives.
    public func apply(to f: inout FaceConfiguration) {
        if let v = faceCascade {
            f.cascade = v
            f.detector = v == .haar ? .haar : .lbp
        }
        if let v = faceDetector {
            f.detector = v
            if let family = v.cascade { f.cascade = family }
        }
        if let v = faceNeuralWidth { f.neuralInputWidth = v }
        if let v = faceThreshold { f.neuralThreshold = v }
        if let v = minFaceSize { f.minimumFaceSize = v }
        if let v = maxFaceSize { f.maximumFaceSize = v }
        if let v = faceInterval { f.detectionInterval = v }
        if let v = faceAnalysisSize { f.analysisShortSide = v > 0 ? v : nil }
        if let v = faceWindow { f.windowSearch = v }
        if let v = rollSearch { f.rollSearch = v }
        if let v = eyeRoll { f.eyeRoll = v }
        if let v = yaw { f.estimateYaw = v }
        if let v = faceMaxMisses { f.maxMissedFrames = v }
        if let v = faceGrace { f.presenceGrace = v }
        if let v = faceScaleFactor { f.scaleFactor = v }
        if let v = faceMinNeighbors { f.minNeighbors = v }
    }

    /// Sets the camera settings the file gives (not the device).
    public func apply(to c: inout CaptureConfiguration) {
        if let v = preset {
            c.sessionPreset = v
            c.frameSize = nil
        }
        if let v = size { c.frameSize = v }
        if let v = fps { c.frameRate = v }
        if let v = stallTimeout { c.stallTimeout = v }
    }

    /// Sets the presence settings the file gives.
    public func apply(to p: inout PresenceConfiguration) {
        if let v = presence.enabled { p.enabled = v }
        if let v = presence.appearAfterFrames { p.appearAfterFrames = v }
        if let v = presence.lostAfter { p.lostAfter = v }
        if let v = presence.cooldown { p.cooldown = v }
        if let v = presence.faceLostAfter { p.faceLostAfter = v }
        if let v = presence.by { p.by = v }
        if let v = presence.duplicateFilter { p.duplicateFilter = v }
    }

    static func pathText(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "top level" : path.map(\.stringValue).joined(separator: ".")
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type: return "a whole number"
        case is Double.Type: return "a number"
        case is [Double].Type, is [String].Type: return "an array"
        default: return "an object"
        }
    }
}

private func parseViewSizeText(_ text: String) -> ViewSize? {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Double(String($0)) }
    guard parts.count == 2, let w = parts[0], let h = parts[1], w.isFinite, h.isFinite, w > 0, h > 0 else { return nil }
    return ViewSize(width: w, height: h)
}

struct Coded: Decodable {
    var value = DaemonConfigFile()

    init(from decoder: any Decoder) throws {
        var r = KeyReader(try decoder.container(keyedBy: Key.self))
        try Self.readAll(&r, into: &value)
        value.cameraCa = try r.get(.cameraCa)
        if let cameras = try r.decoder(Setting.cameras.key) {
            value.cameras = try Self.readCameras(cameras, base: value)
        }
        try r.finish()
    }

    /// Every key of one object: the top level, or (over the top level's values) one camera's entry.
    static func readAll(_ r: inout KeyReader, into value: inout DaemonConfigFile) throws {
        try Self.readSourcesAndOutputs(&r, into: &value)
        try Self.readReader(&r, into: &value)
        try Self.readCaptureAndPreview(&r, into: &value)
        try Self.readFaces(&r, into: &value)
        try Self.readScriptOutput(&r, into: &value)
    }

    /// The sources, stdout, the socket, MQTT, the camera's controls and presence.
    static func readSourcesAndOutputs(_ r: inout KeyReader, into value: inout DaemonConfigFile) throws {
        value.input = try r.get(.input) ?? value.input
        value.device = try r.get(.device) ?? value.device
        value.types = try r.list(.types) ?? value.types
        value.rectOfInterest = try r.rect(.rectOfInterest) ?? value.rectOfInterest
        value.tryInverted = try r.get(.inverted) ?? value.tryInverted
        value.code39FullASCII = try r.bool(.code39FullASCII, or: "evident") ?? value.code39FullASCII
        value.code32 = try r.get(.code32) ?? value.code32
        value.confirmTransformed = try r.get(.confirmTransformed) ?? value.confirmTransformed
        value.checkSmallRetail = try r.get(.checkSmallRetail) ?? value.checkSmallRetail
        value.extendLinearBounds = try r.get(.extendLinearBounds) ?? value.extendLinearBounds
        value.resolveConflicts = try r.get(.resolveConflicts) ?? value.resolveConflicts
        value.upceQuietZone = try r.get(.upceQuietZone) ?? value.upceQuietZone
        value.scanDensity = try r.get(.scanDensity) ?? value.scanDensity
        value.models = try r.get(.models) ?? value.models
        value.metadata = try r.get(.metadata) ?? value.metadata
        value.pacing = try r.get(.pacing) ?? value.pacing
        value.loop = try r.get(.loop) ?? value.loop
        value.exitAtEnd = try r.get(.exitAtEnd) ?? value.exitAtEnd
        value.stdout = try r.get(.stdout) ?? value.stdout
        value.stdoutQueue = try r.get(.stdoutQueue) ?? value.stdoutQueue
        value.maxPixels = try r.get(.maxPixels) ?? value.maxPixels
        value.logLevel = try r.get(.logLevel) ?? value.logLevel
        try r.valueOrSection(
            .socket, as: String.self, value: { value.socket.path = $0 },
            section: { s in
                value.socket.path = try s.get(.socket) ?? value.socket.path
                value.socket.group = try s.get(.socketGroup) ?? value.socket.group
                value.socket.clientQueue = try s.get(.clientQueue) ?? value.socket.clientQueue
                value.socket.stallTimeout = try s.get(.clientStallTimeout) ?? value.socket.stallTimeout
                value.socket.sendBuffer = try s.get(.socketSendBuffer) ?? value.socket.sendBuffer
            })
        if let mqtt = try r.decoder(Setting.mqtt.section ?? "mqtt") { value.mqtt = try MQTTConfigSection(from: mqtt) }
        try DaemonConfigFile.readCamera(&r, into: &value)
        value.failFast = try r.get(.failFast) ?? value.failFast
        try r.valueOrSection(
            .presence, as: Bool.self, value: { value.presence.enabled = $0 },
            section: { p in
                value.presence.enabled = try p.get(.presence) ?? value.presence.enabled
                value.presence.appearAfterFrames = try p.get(.appearAfter) ?? value.presence.appearAfterFrames
                value.presence.lostAfter = try p.get(.lostAfter) ?? value.presence.lostAfter
                value.presence.cooldown = try p.get(.cooldown) ?? value.presence.cooldown
                value.presence.faceLostAfter = try p.get(.faceLostAfter) ?? value.presence.faceLostAfter
                value.presence.by = try p.choice(.presenceBy) ?? value.presence.by
                value.presence.duplicateFilter = try p.get(.duplicateFilter) ?? value.presence.duplicateFilter
            })
    }

    /// The code reader's settings.
    static func readReader(_ r: inout KeyReader, into value: inout DaemonConfigFile) throws {
        value.engine = try r.choice(.engine) ?? value.engine
        if let text = try r.list(.passes) {
            var list: [ReaderPass] = []
            for name in text.split(separator: ",").map({ $0.filter { $0 != " " } }) {
                guard let pass = ReaderPass(rawValue: name) else {
                    throw ConfigKeyError(
                        path: [Setting.passes.key],
                        message:
                            "unknown pass '\(StrictJSON.printable(name))' in '\(Setting.passes.key)'; passes: \(ReaderPass.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                list.append(pass)
            }
            value.passes = list
        }
        value.extraPasses = try r.get(.extraPasses) ?? value.extraPasses
        value.codabarMinLength = try r.get(.codabarMinLength) ?? value.codabarMinLength
        value.i25MinLength = try r.get(.i25MinLength) ?? value.i25MinLength
        value.i25Checksum = try r.get(.i25Checksum) ?? value.i25Checksum
        value.minLinearQuality = try r.get(.minLinearQuality) ?? value.minLinearQuality
        value.zbarUncertainty = try r.get(.zbarUncertainty) ?? value.zbarUncertainty
        value.confirm1D = try r.get(.confirm1D) ?? value.confirm1D
        value.streamSteps = try r.get(.streamSteps) ?? value.streamSteps
        value.allPassesOnStreams = try r.get(.allPassesOnStreams) ?? value.allPassesOnStreams
        value.streamScanDensity = try r.get(.streamScanDensity) ?? value.streamScanDensity
        value.streamQRLines = try r.get(.streamQRLines) ?? value.streamQRLines
        value.parallelDetectors = try r.get(.parallelDetectors) ?? value.parallelDetectors
        value.loadShedding = try r.get(.loadShedding) ?? value.loadShedding
    }

    /// The camera's format, the preview geometry and HTTP.
    static func readCaptureAndPreview(_ r: inout KeyReader, into value: inout DaemonConfigFile) throws {
        value.preset = try r.choice(.preset) ?? value.preset
        value.size = try r.size(.size, parsePixelSize) ?? value.size
        value.fps = try r.get(.fps) ?? value.fps
        value.stallTimeout = try r.get(.stallTimeout) ?? value.stallTimeout
        // Preview
        value.viewSize = try r.size(.viewSize, parseViewSizeText) ?? value.viewSize
        value.videoGravity = try r.choice(.videoGravity) ?? value.videoGravity
        value.orientation = try r.choice(.orientation) ?? value.orientation
        value.mirrored = try r.get(.mirrored) ?? value.mirrored
        value.rectOfInterestView = try r.rect(.rectOfInterestView) ?? value.rectOfInterestView
        // HTTP
        value.http = try r.get(.http) ?? value.http
        value.httpToken = try r.get(.httpToken) ?? value.httpToken
        value.httpMaxFps = try r.get(.httpMaxFps) ?? value.httpMaxFps
    }

    /// The face detector and tracker.
    static func readFaces(_ r: inout KeyReader, into value: inout DaemonConfigFile) throws {
        value.faceDetector = try r.choice(.faceDetector) ?? value.faceDetector
        value.faceCascade = try r.choice(.faceCascade) ?? value.faceCascade
        value.faceNeuralWidth = try r.get(.faceNeuralWidth) ?? value.faceNeuralWidth
        value.faceThreshold = try r.get(.faceThreshold) ?? value.faceThreshold
        value.minFaceSize = try r.get(.minFaceSize) ?? value.minFaceSize
        value.maxFaceSize = try r.get(.maxFaceSize) ?? value.maxFaceSize
        value.faceInterval = try r.get(.faceInterval) ?? value.faceInterval
        value.faceAnalysisSize = try r.get(.faceAnalysisSize) ?? value.faceAnalysisSize
        value.faceWindow = try r.get(.faceWindow) ?? value.faceWindow
        value.rollSearch = try r.get(.rollSearch) ?? value.rollSearch
        value.eyeRoll = try r.get(.eyeRoll) ?? value.eyeRoll
        value.yaw = try r.get(.yaw) ?? value.yaw
        value.faceMaxMisses = try r.get(.faceMaxMisses) ?? value.faceMaxMisses
        value.faceGrace = try r.get(.faceGrace) ?? value.faceGrace
        value.faceScaleFactor = try r.get(.faceScaleFactor) ?? value.faceScaleFactor
        value.faceMinNeighbors = try r.get(.faceMinNeighbors) ?? value.faceMinNeighbors
    }

    /// The script options (`--raw`, `--oneshot`, `--timeout`, …).
    static func readScriptOutput(_ r: inout KeyReader, into value: inout DaemonConfigFile) throws {
        value.raw = try r.get(.raw) ?? value.raw
        value.rawBytes = try r.get(.rawBytes) ?? value.rawBytes
        value.oneshot = try r.get(.oneshot) ?? value.oneshot
        value.timeout = try r.get(.timeout) ?? value.timeout
        try DaemonConfigFile.bounded(.timeout, value.timeout)
        value.keepRunning = try r.get(.keepRunning) ?? value.keepRunning
    }
}
