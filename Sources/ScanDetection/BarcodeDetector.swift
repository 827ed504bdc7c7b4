internal import Foundation
public import ScanCore

/// What one read of a frame found (``BarcodeDetector/read(in:rectOfInterest:)``), and how.
public struct BarcodeRead: Sendable, Hashable {
    /// The codes found; geometry in normalized device coordinates of the whole frame.
    public var objects: [MetadataObject] = []
    /// The pass that produced ``objects`` (nil when nothing was found). For diagnostics and tests.
    public var pass: ReaderPass?
    /// The engine that produced ``objects`` (nil when nothing was found).
    public var engine: BarcodeEngine?

    public init(objects: [MetadataObject] = [], pass: ReaderPass? = nil, engine: BarcodeEngine? = nil) {
        self.objects = objects
        self.pass = pass
        self.engine = engine
    }
}

/// Reads machine-readable codes (`AVCaptureMetadataOutput` for codes) with zbar and zxing-cpp, in passes.
///
/// The plain frame is read first. Only when nothing decodes are the further passes tried (inverted,
/// downscaled, upscaled, locally thresholded; see ``ReaderPass``), stopping at the first pass that reads.
/// With ``BarcodeEngine/both`` zxing-cpp runs on a pass only when zbar found nothing there, and on the plain
/// frame for the formats zbar cannot read. Every result's geometry is in normalized device coordinates of the
/// whole frame, whatever pass produced it.
///
/// zbar is driven by ``ZBarReader`` (a fresh scanner per image; it says why), zxing-cpp by ``ZXingReader``;
/// frame bytes are lent to the engines only for the duration of a scan.
/// Not thread-safe: use one detector per thread.
public final class BarcodeDetector {
    /// Code types zbar can read.
    public static let zbarTypes: Set<MetadataObjectType> = Symbologies.zbarTypes

    /// Code types scand reads with zxing-cpp: zbar's but GS1 DataBar (omnidirectional), plus Micro QR,
    /// PDF417, Aztec, Data Matrix.
    public static var zxingTypes: Set<MetadataObjectType> { ZXingReader.types }

    /// The types `engine` can read (`availableMetadataObjectTypes` for that engine).
    public static func availableTypes(engine: BarcodeEngine) -> Set<MetadataObjectType> {
        switch engine {
        case .zbar: return zbarTypes
        case .zxing: return zxingTypes
        case .both: return zbarTypes.union(zxingTypes)
        }
    }

    /// zxing-cpp's version (e.g. "1.4.0").
    public static var zxingVersion: String { ZXingReader.version }

    public var availableTypes: Set<MetadataObjectType> { Self.availableTypes(engine: configuration.engine) }

    public let configuration: BarcodeConfiguration

    /// The enabled types this detector will report.
    public let enabledTypes: Set<MetadataObjectType>

    /// Creates a detector for `configuration.types ∩ availableTypes(engine:)`.
    public init(configuration: BarcodeConfiguration = BarcodeConfiguration()) {
        self.configuration = configuration
        still = StillReader(configuration: configuration)
        stream = StreamReader(configuration: configuration)
        enabledTypes = still.enabledTypes
    }

    /// The still-image reader (``read(in:rectOfInterest:)``).
    let still: StillReader
    /// The stream reader (``readStream(in:rectOfInterest:steps:deadline:)``), with its memory of recent frames.
    let stream: StreamReader

    /// The passes this configuration runs, in order: `plain` first, inverted ones dropped when
    /// `tryInverted` is off, extra ones dropped when `extraPasses` is off.
    public var effectivePasses: [ReaderPass] { still.effectivePasses }

    /// The readers whose counts the figures below add up: the still reader, its helper once made, the stream
    /// reader.
    private var readers: [PassReader] { [still] + (still.helperIfMade.map { [$0] } ?? []) + [stream] }
    /// Transformed 1-D reads dropped because nothing confirmed them (every reader), for tests and diagnostics.
    var unconfirmedReads: Int { readers.reduce(0) { $0 + $1.unconfirmedReads } }
    /// Confirmations and the other checks' verdicts by kind (every reader), for tests and diagnostics.
    var confirmations: [String: Int] {
        readers.reduce(into: [:]) { $0.merge($1.confirmations, uniquingKeysWith: +) }
    }
    /// zxing-cpp re-reads of zbar reads for their text (every reader), for tests.
    var textRereads: Int { readers.reduce(0) { $0 + $1.textRereads } }

    /// Finds codes in `frame` within `rectOfInterest` (normalized device coordinates): the objects of
    /// ``read(in:rectOfInterest:)``. Geometry in the results is relative to the whole frame.
    /// - Throws: ``ScanError/detector(_:)`` when zxing-cpp fails.
    public func detect(in frame: Frame, rectOfInterest: NormalizedRect = .unit) throws -> [MetadataObject] {
        extendingLinearBounds(try read(in: frame, rectOfInterest: rectOfInterest).objects, on: frame)
    }

    /// Each 1-D read's corners and bounds widened from the scan lines that read it to its bars' ends
    /// (``LinearExtent``; ``BarcodeConfiguration/extendLinearBounds``), on still images. Only what is reported changes: every
    /// decision of the reader (conflicts, confirmations) was made on the scan-line boxes.
    func extendingLinearBounds(_ objects: [MetadataObject], on frame: Frame) -> [MetadataObject] {
        guard configuration.extendLinearBounds, objects.contains(where: { $0.type.isLinear }) else { return objects }
        return objects.map { o in
            guard o.type.isLinear else { return o }
            var e = o
            e.corners = LinearExtent.extend(o.corners, on: frame.luma)
            e.bounds = NormalizedRect(boundingPoints: e.corners)
            return e
        }
    }

    /// Finds codes in `frame` within `rectOfInterest` (normalized device coordinates), and says which pass and
    /// engine read them. Geometry in the results is relative to the whole frame.
    /// - Throws: ``ScanError/detector(_:)`` when zxing-cpp fails.
    public func read(in frame: Frame, rectOfInterest: NormalizedRect = .unit) throws -> BarcodeRead {
        try still.read(in: frame, rectOfInterest: rectOfInterest)
    }

    /// One reading step on a stream: one image of a pass, read by one engine, for all of the pass's formats
    /// or one family of them.
    struct StreamStep: Hashable {
        var pass: ReaderPass
        var image: Int
        var engine: BarcodeEngine
        var formats: StepFormats = .all
    }

    /// Which of a pass's formats a stream step looks for.
    enum StepFormats: Hashable {
        case all
        /// 1-D formats only.
        case linear
        /// Every other format (QR, Micro QR, Data Matrix, Aztec, PDF417).
        case matrix
    }

    /// How many times in a row a step may be put off for a deadline before it runs anyway.
    public static var maximumDeferrals: Int { StreamScheduler.maximumDeferrals }

    /// Stream steps put off so far because they would have missed the frame's deadline.
    public var deferredSteps: Int { stream.deferredSteps }

    /// Reads one frame of a stream (video, Y4M, camera) within a budget: the plain zbar pass always, then,
    /// only if that finds nothing, `steps` further steps taken in rotation from frame to frame. Each frame
    /// costs at most `1 + steps` scans, and a code held in view meets every pass within a few frames.
    /// Geometry is relative to the whole frame, as in ``detect(in:rectOfInterest:)``.
    ///
    /// With a `deadline` (a ``MonotonicInstant``; live sources), a step whose recent cost (a moving average of
    /// its own timings) would end after the deadline is put off to its next turn, at most
    /// ``maximumDeferrals`` times in a row, so an expensive step still runs every few turns instead of never.
    /// The step that read the last frame is never put off.
    public func detectStream(
        in frame: Frame, rectOfInterest: NormalizedRect = .unit, steps: Int,
        deadline: MonotonicInstant? = nil
    ) throws -> [MetadataObject] {
        // Not on streams: following the bars costs each frame with a 1-D code more than the stream's budget
        // allows under load (under the sanitizers the daemon's event rate fell by a sixth); stills only.
        try readStream(in: frame, rectOfInterest: rectOfInterest, steps: steps, deadline: deadline).objects
    }

    /// Forgets what earlier stream frames tell about the codes in view: the recent reads of the conflict rule
    /// across frames, reads waiting for a second frame, the deskewed pass's bar directions and the per-payload
    /// answers of the checks. Call it when the frames start coming from another input, whose codes are not the
    /// ones seen before (`scand scan a.y4m b.y4m`: b's codes lie where a's were, and were held back a frame as
    /// conflicts). What only orders the work is kept: the step timings, the rotation's place and the step that
    /// last read (tried first; inputs in one run tend to be alike).
    public func startStream() { stream.start() }

    /// ``detectStream(in:rectOfInterest:steps:deadline:)``, saying which pass and engine read the codes.
    public func readStream(
        in frame: Frame, rectOfInterest: NormalizedRect = .unit, steps: Int,
        deadline: MonotonicInstant? = nil
    ) throws -> BarcodeRead {
        try stream.read(in: frame, rectOfInterest: rectOfInterest, steps: steps, deadline: deadline)
    }
}

extension ReaderPass {
    /// Passes that look for 2-D codes only (QR, Micro QR, Data Matrix, Aztec, PDF417).
    var matrixOnly: Bool { self == .upscaledThresholded }
    /// Reads 1-D codes only (zxing looks for linear formats only).
    var linearOnly: Bool { self == .deskewed }
}

extension MetadataObjectType {
    /// The symbology this type belongs to, for telling two reads of one symbol apart: an ITF-14 is an
    /// Interleaved 2 of 5 with 14 digits and a valid check digit, so the two are one family.
    var family: MetadataObjectType { self == .itf14 ? .interleaved2of5 : self }
}

/// GS1 check digits (EAN/UPC/ITF-14 mod-10).
enum GS1 {
    /// What an Interleaved 2 of 5 read is reported as, by either engine: ITF-14 when it has 14 digits with a
    /// valid GS1 check digit and ITF-14 is enabled, otherwise Interleaved 2 of 5.
    static func interleaved2of5Type(_ digits: [UInt8], enabled: Set<MetadataObjectType>) -> MetadataObjectType {
        digits.count == 14 && enabled.contains(.itf14) && hasValidCheckDigit(digits) ? .itf14 : .interleaved2of5
    }

    static func hasValidCheckDigit(_ digits: [UInt8]) -> Bool {
        guard digits.count >= 2, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        let values = digits.map { Int($0 - 0x30) }
        var sum = 0
        for (i, v) in values.dropLast().reversed().enumerated() { sum += v * (i % 2 == 0 ? 3 : 1) }
        return (10 - sum % 10) % 10 == values.last!
    }
}
