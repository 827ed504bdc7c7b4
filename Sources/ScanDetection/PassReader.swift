internal import Foundation
internal import ScanCore

/// The reading machinery the still-image reader (``StillReader``) and the stream reader (``StreamReader``) share:
/// the engines (zbar through ``ZBarReader``, zxing-cpp through ``ZXingReader``), the pass images, the misread
/// filters and checks, confirmation and the reads' text. Which reader it is is fixed when it is made
/// (``streaming``): the two readers are its two subclasses, and a ``BarcodeDetector`` holds one of each.
/// The still reader's checks remember nothing between images; the stream reader's remember recent frames.
/// Not thread-safe: one reader per thread.
class PassReader {
    let configuration: BarcodeConfiguration
    /// The enabled types this reader reports.
    let enabledTypes: Set<MetadataObjectType>
    /// Whether this is the stream reader: set by the subclass, never changed.
    let streaming: Bool

    typealias StreamStep = BarcodeDetector.StreamStep
    typealias PendingReads = BarcodeDetector.PendingReads
    typealias RereadKey = BarcodeDetector.RereadKey

    init(configuration: BarcodeConfiguration, streaming: Bool) {
        self.configuration = configuration
        self.streaming = streaming
        enabledTypes = configuration.types.intersection(BarcodeDetector.availableTypes(engine: configuration.engine))
        switch configuration.engine {
        case .zbar:
            zbarEnabled = enabledTypes
            zxingEnabled = []
        case .zxing:
            zbarEnabled = []
            zxingEnabled = enabledTypes
        case .both:
            zbarEnabled = enabledTypes.intersection(BarcodeDetector.zbarTypes)
            zxingEnabled = enabledTypes.intersection(BarcodeDetector.zxingTypes)
        }
        zxingOnly = configuration.engine == .both ? zxingEnabled.subtracting(zbarEnabled) : []
        zbar = ZBarReader(types: zbarEnabled, configuration: configuration)
        textReader = TextReader(configuration: configuration)
    }

    /// Enabled types zbar reads.
    let zbarEnabled: Set<MetadataObjectType>
    /// Enabled types zxing-cpp reads.
    let zxingEnabled: Set<MetadataObjectType>
    /// Enabled types only zxing reads (always scanned by zxing on the plain pass with `both`).
    let zxingOnly: Set<MetadataObjectType>

    /// The zbar reader, for ``zbarEnabled``.
    let zbar: ZBarReader

    /// The passes this configuration runs, in order: `plain` first, inverted ones dropped when
    /// `tryInverted` is off, extra ones dropped when `extraPasses` is off.
    var effectivePasses: [ReaderPass] {
        var out: [ReaderPass] = [.plain]
        for p in configuration.passes where !out.contains(p) {
            if p == .inverted && !configuration.tryInverted { continue }
            if p != .inverted && !configuration.extraPasses { continue }
            out.append(p)
        }
        return out
    }

    /// Crops the frame to the rect of interest (normalized device coordinates); nil when no type is enabled
    /// or the rectangle misses the frame.
    func startFrame(_ frame: Frame, rectOfInterest: NormalizedRect) -> PassImage? {
        guard !enabledTypes.isEmpty else { return nil }
        let pixelRect = PixelRect(covering: rectOfInterest.intersection(.unit), in: frame.size)
        guard pixelRect.width > 0, pixelRect.height > 0 else { return nil }
        return PassImage(
            plane: frame.luma.cropped(to: pixelRect), scaleX: 1, scaleY: 1,
            originX: Double(pixelRect.x), originY: Double(pixelRect.y))
    }

    /// What zbar could not do in the current frame (a scan that failed, a scanner or image it could not
    /// allocate): reported as the frame's error by ``failingOnZBarErrors(_:)``, never as "no code here".
    var zbarFailure: String?

    /// Runs one frame's read and throws ``ScanError/detector(_:)`` if zbar failed in it.
    func failingOnZBarErrors<T>(_ body: () throws -> T) throws -> T {
        zbarFailure = nil
        defer { zbarFailure = nil }
        let result = try body()
        if let failure = zbarFailure { throw ScanError.detector("zbar: \(failure)") }
        return result
    }

    /// zbar's scan-line spacing on a stream frame of `size`: ``BarcodeConfiguration/streamScanDensity`` is
    /// for frames of 480 lines and grows with taller frames (2 → 3 at 720p, 5 at 1080p), so the lines stay as
    /// far apart on a code of a given physical size as on a VGA camera. Explicit `--scan-density` (no stream
    /// density) is used as given.
    func streamDensity(for size: PixelSize) -> Int {
        guard let d = configuration.streamScanDensity else { return max(1, configuration.scanDensity) }
        let lines = min(size.width, size.height)
        return max(1, d, Int((Double(d) * Double(lines) / 480).rounded()))
    }

    /// ``BarcodeConfiguration/pyramidDivisors(width:height:)``.
    func pyramidDivisors(width: Int, height: Int) -> [Int] {
        configuration.pyramidDivisors(width: width, height: height)
    }

    /// Misread filters that apply to every engine: lengths and checksums, linear quality.
    func accept(_ o: MetadataObject) -> Bool {
        guard let payload = o.payload else { return true }
        switch o.type {
        case .interleaved2of5:
            if payload.count < configuration.minimumI25Length { return false }
            if configuration.requireI25Checksum && !GS1.hasValidCheckDigit(payload) { return false }
        case .codabar:
            if payload.count < configuration.minimumCodabarLength { return false }
        default: break
        }
        if o.type.isLinear, configuration.minimumLinearQuality > 0, let q = o.quality,
            q < configuration.minimumLinearQuality
        {
            return false
        }
        return true
    }

    /// What zxing-cpp looks for on a stream step: its pass's formats, or the 1-D or the other ones of them.
    func zxingTypes(_ step: StreamStep) -> Set<MetadataObjectType> {
        let types = zxingTypes(step.pass)
        switch step.formats {
        case .all: return types
        case .linear: return types.filter(\.isLinear)
        case .matrix: return types.filter { !$0.isLinear }
        }
    }

    /// The types zxing-cpp looks for on `pass`.
    func zxingTypes(_ pass: ReaderPass) -> Set<MetadataObjectType> {
        pass.matrixOnly
            ? zxingEnabled.intersection(BarcodeDetector.matrixTypes)
            : pass.linearOnly ? zxingEnabled.filter(\.isLinear) : zxingEnabled
    }

    /// zbar's scan-line spacing on `image`, an image of a still: `density`, or more on large images
    /// (``BarcodeConfiguration/stillScanLines``). An upscaled image counts its lines at the frame's scale,
    /// so the upscaled passes keep the spacing they are given.
    func stillDensity(_ density: Int, for image: PassImage) -> Int {
        guard let lines = configuration.stillScanLines, lines > 0 else { return density }
        let short = Double(min(image.plane.width, image.plane.height)) * min(1, image.framePixelsPerPixel)
        return max(density, Int((short / Double(lines)).rounded()))
    }

    /// Transformed 1-D reads dropped because nothing confirmed them, and confirmations by kind, for tests and
    /// diagnostics.
    var unconfirmedReads = 0
    var confirmations: [String: Int] = [:]

    /// The stream reader's memory of the checks' answers (the still reader leaves them empty): EAN/UPC payloads found free of conflict, with the stream frame they were last read in.
    var conflictChecked: [RereadKey: Int] = [:]

    /// On streams: small retail payloads zxing did not contradict, with the stream frame they were last read in.
    var retailChecked: [RereadKey: Int] = [:]
    /// Stream frames read so far (0 for the still reader).
    var streamFrames = 0

    /// The reader's text: decoding a payload, and zxing-cpp's re-reads of zbar's reads (``TextReader``).
    var textReader: TextReader

    /// zxing-cpp re-reads of zbar reads for their text (``TextReader/refine(type:bytes:points:pass:frame:)``),
    /// for tests.
    var textRereads: Int { textReader.rereads }
}

extension BarcodeDetector {
    /// 2-D symbologies: all that the `upscaledThresholded` pass looks for.
    static let matrixTypes: Set<MetadataObjectType> = [.qr, .microQR, .dataMatrix, .aztec, .pdf417]

    /// The payload a check remembers its answer for (``conflictChecked``, ``retailChecked``).
    struct RereadKey: Hashable {
        var type: MetadataObjectType
        var bytes: [UInt8]
    }

    /// The most payloads a check remembers its answer for.
    static let rereadCacheSize = 64

    /// Stream frames a payload's answer is remembered for after it was last read.
    static let rereadMemoryFrames = 30
}
