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
public final class BarcodeDetector: MetadataDetector {
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

    private let zbarEnabled: Set<MetadataObjectType>
    private let zxingEnabled: Set<MetadataObjectType>
    /// Enabled types only zxing reads (always scanned by zxing on the plain pass with `both`).
    private let zxingOnly: Set<MetadataObjectType>

    /// Creates a detector for `configuration.types ∩ availableTypes(engine:)`.
    public init(configuration: BarcodeConfiguration = BarcodeConfiguration()) {
        self.configuration = configuration
        enabledTypes = configuration.types.intersection(Self.availableTypes(engine: configuration.engine))
        switch configuration.engine {
        case .zbar:
            zbarEnabled = enabledTypes
            zxingEnabled = []
        case .zxing:
            zbarEnabled = []
            zxingEnabled = enabledTypes
        case .both:
            zbarEnabled = enabledTypes.intersection(Self.zbarTypes)
            zxingEnabled = enabledTypes.intersection(Self.zxingTypes)
        }
        zxingOnly = configuration.engine == .both ? zxingEnabled.subtracting(zbarEnabled) : []
        zbar = ZBarReader(types: zbarEnabled, configuration: configuration)
        textReader = TextReader(configuration: configuration)
    }

    /// The zbar reader, for ``zbarEnabled``.
    private let zbar: ZBarReader

    /// The passes this configuration runs, in order: `plain` first, inverted ones dropped when
    /// `tryInverted` is off, extra ones dropped when `extraPasses` is off.
    public var effectivePasses: [ReaderPass] {
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
    private func startFrame(_ frame: Frame, rectOfInterest: NormalizedRect) -> PassImage? {
        guard !enabledTypes.isEmpty else { return nil }
        let pixelRect = PixelRect(covering: rectOfInterest.intersection(.unit), in: frame.size)
        guard pixelRect.width > 0, pixelRect.height > 0 else { return nil }
        return PassImage(
            plane: frame.luma.cropped(to: pixelRect), scaleX: 1, scaleY: 1,
            originX: Double(pixelRect.x), originY: Double(pixelRect.y))
    }

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
        try failingOnZBarErrors { try readStill(in: frame, rectOfInterest: rectOfInterest) }
    }

    /// What zbar could not do in the current frame (a scan that failed, a scanner or image it could not
    /// allocate): reported as the frame's error by ``failingOnZBarErrors(_:)``, never as "no code here".
    private var zbarFailure: String?

    /// Runs one frame's read and throws ``ScanError/detector(_:)`` if zbar failed in it.
    private func failingOnZBarErrors<T>(_ body: () throws -> T) throws -> T {
        zbarFailure = nil
        defer { zbarFailure = nil }
        let result = try body()
        if let failure = zbarFailure { throw ScanError.detector("zbar: \(failure)") }
        return result
    }

    private func readStill(in frame: Frame, rectOfInterest: NormalizedRect) throws -> BarcodeRead {
        streaming = false
        guard let base = startFrame(frame, rectOfInterest: rectOfInterest) else { return BarcodeRead() }

        var extra: [MetadataObject] = []
        var pending = PendingReads()
        // (zxing-cpp reads the ladder: none when it looks for no 2-D format.)
        let ladder =
            zxingEnabled.isDisjoint(with: Self.matrixTypes)
            ? [] : matrixLadderExponents(width: base.plane.width, height: base.plane.height)
        for pass in effectivePasses {
            // The downscaled pass ends with the ladder for 2-D codes, each level made when it is read.
            let images = passImages(pass, base: base)
            let count = images.count + (pass == .downscaled ? ladder.count : 0)
            for index in 0..<count {
                let image: PassImage
                if index < images.count {
                    image = images[index]
                } else {
                    guard let made = matrixLadderImage(exponent: ladder[index - images.count], base: base) else {
                        continue
                    }
                    image = made
                }
                // An upscaled copy needs no denser scan lines than the frame itself: keep zbar's cost ≈ 2×, not 4×.
                // (The binarised upscaled-thresholded image is scanned on every line: its moiré-broken
                // finder patterns need them.)
                let density =
                    pass == .upscaled ? 2 * max(1, configuration.scanDensity) : max(1, configuration.scanDensity)
                var found: [MetadataObject]
                var engine = BarcodeEngine.zbar
                let alongside = pass == .plain && !zxingOnly.isEmpty
                if alongside {
                    // Formats zbar cannot read are always looked for on the plain frame: zxing's quick look
                    // (no tryHarder, fixed threshold: ≈ half the cost) when zbar reads the frame, its full
                    // search for every enabled format when zbar reads nothing.
                    found = try zbarReads(
                        image, pass: pass, base: base, frameSize: frame.size, density: density, matrixOnly: false)
                    if found.isEmpty {
                        found = try zxingPassReads(
                            image, pass: pass, base: base, types: zxingEnabled, frameSize: frame.size, density: density)
                        engine = .zxing
                    } else {
                        extra = try scanZXing(image, types: zxingOnly, frameSize: frame.size, quick: true)
                    }
                } else if image.matrixOnly {
                    found = []  // a ladder level is zxing-cpp's alone
                } else {
                    found = try zbarReads(
                        image, pass: pass, base: base, frameSize: frame.size, density: density,
                        matrixOnly: pass.matrixOnly)
                }
                if !alongside && found.isEmpty && !zxingEnabled.isEmpty {
                    // (On a ladder level: 2-D formats only, both polarities, and a PDF417 read again nearby.)
                    let types = image.matrixOnly ? zxingEnabled.intersection(Self.matrixTypes) : zxingTypes(pass)
                    found = try zxingPassReads(
                        image, pass: pass, base: base, types: types, frameSize: frame.size, density: density,
                        bothPolarities: image.matrixOnly)
                    if image.matrixOnly {
                        found = try confirmLadderPDF417(
                            found, exponent: ladder[index - images.count], base: base, frameSize: frame.size)
                    }
                    engine = .zxing
                }
                found = Self.suppressFragments(found.filter(accept), upceInsideEAN13: configuration.checkUPCEQuietZone)
                if pass != .plain {
                    found = try confirm(
                        found, pass: image, base: base, engine: engine, frameSize: frame.size,
                        source: pass.rawValue + "/\(index)", pending: &pending)
                }
                if !found.isEmpty || !extra.isEmpty {
                    return BarcodeRead(objects: found + extra, pass: pass, engine: found.isEmpty ? .zxing : engine)
                }
            }
        }
        return BarcodeRead()
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

    /// The stream step scheduler: the steps' rotation, their costs and deferrals, the step that last read.
    private lazy var scheduler = StreamScheduler(
        configuration: configuration, passes: effectivePasses, zbar: !zbarEnabled.isEmpty,
        zxing: !zxingEnabled.isEmpty)
    /// Every step after the plain zbar pass (``StreamScheduler/steps``).
    var streamSteps: [StreamStep] { scheduler.steps }
    /// ``StreamScheduler/largeFrameSteps``.
    var largeFrameStreamSteps: [StreamStep] { scheduler.largeFrameSteps }
    /// zbar's scan-line spacing on a stream frame of `size`: ``BarcodeConfiguration/streamScanDensity`` is
    /// for frames of 480 lines and grows with taller frames (2 → 3 at 720p, 5 at 1080p), so the lines stay as
    /// far apart on a code of a given physical size as on a VGA camera. Explicit `--scan-density` (no stream
    /// density) is used as given.
    func streamDensity(for size: PixelSize) -> Int {
        guard let d = configuration.streamScanDensity else { return max(1, configuration.scanDensity) }
        let lines = min(size.width, size.height)
        return max(1, d, Int((Double(d) * Double(lines) / 480).rounded()))
    }
    /// How many times in a row a step may be put off for a deadline before it runs anyway.
    public static var maximumDeferrals: Int { StreamScheduler.maximumDeferrals }
    /// Stream steps put off so far because they would have missed the frame's deadline.
    public var deferredSteps: Int { scheduler.deferredSteps }
    /// On streams: the bar directions the deskewed pass found, on which stream frame, for images of which size.
    private var deskewMemo: (frame: Int, size: PixelSize, degrees: [Double])?
    /// Stream frames for which the deskewed pass's bar directions are used (the frame they were found on and the
    /// next ones): its steps (2 images × 2 engines) follow one another in the rotation, and a code in view
    /// turns little in 4 frames. Finding them costs 6 ms at 1280×720 on this machine.
    static let deskewMemoryFrames = 4

    /// The steps a stream frame of `width`×`height` pixels rotates through (``StreamScheduler/steps(width:height:)``).
    func streamSteps(width: Int, height: Int) -> [StreamStep] { scheduler.steps(width: width, height: height) }

    /// ``StreamScheduler/downscaleDivisors(width:height:)``.
    func streamDownscaleDivisors(width: Int, height: Int) -> [Int] {
        scheduler.downscaleDivisors(width: width, height: height)
    }

    /// ``BarcodeConfiguration/pyramidDivisors(width:height:)``.
    func pyramidDivisors(width: Int, height: Int) -> [Int] {
        configuration.pyramidDivisors(width: width, height: height)
    }

    /// The exponents k of the ladder's levels on a still image (or rect of interest) of `width`×`height` pixels,
    /// largest level first (``BarcodeConfiguration/matrixLadderSteps``, n): the image scaled by 2^(−k/n) below
    /// half size, k = n + 1, n + 2, …, leaving out every k that is a multiple of n (the pyramid's halvings), while
    /// the long side is at least ``BarcodeConfiguration/matrixLadderMinimumSide``. None for an image whose long
    /// side is under ``BarcodeConfiguration/matrixLadderImageSide``.
    func matrixLadderExponents(width: Int, height: Int) -> [Double] {
        let n = configuration.matrixLadderSteps
        let long = max(width, height)
        guard n > 0, long >= configuration.matrixLadderImageSide else { return [] }
        var out: [Double] = []
        for k in (n + 1)... {
            guard
                matrixLadderSize(width: long, height: 1, exponent: Double(k)).width
                    >= max(1, configuration.matrixLadderMinimumSide)
            else { break }
            if k % n != 0 { out.append(Double(k)) }
        }
        return out
    }

    /// `width`×`height` scaled by 2^(−exponent/n) (n: ``BarcodeConfiguration/matrixLadderSteps``), each side
    /// rounded, at least 1.
    func matrixLadderSize(width: Int, height: Int, exponent: Double) -> PixelSize {
        let scale = pow(2, -exponent / Double(max(1, configuration.matrixLadderSteps)))
        return PixelSize(
            width: max(1, Int((Double(width) * scale).rounded())),
            height: max(1, Int((Double(height) * scale).rounded())))
    }

    /// The sizes of the ladder's levels (``matrixLadderExponents(width:height:)``), largest first. A 2048×1536
    /// still: 861×646, 724×543, 609×457, 431×323, 362×272, 304×228, 215×161, 181×136.
    func matrixLadderSizes(width: Int, height: Int) -> [PixelSize] {
        matrixLadderExponents(width: width, height: height).map {
            matrixLadderSize(width: width, height: height, exponent: $0)
        }
    }

    /// Offsets, in ladder steps, of the sizes a PDF417 read on a ladder level is looked for again at
    /// (``confirmLadderPDF417(_:exponent:base:frameSize:)``), nearest first.
    static let ladderPDF417Offsets: [Double] = [-0.125, 0.125, -0.25, 0.25, -0.5, 0.5]

    /// `found` (reads of the ladder level 2^(−`exponent`/n) of `base`) without the PDF417 reads
    /// that no nearby size reads again: each is looked for at the sizes ``ladderPDF417Offsets`` steps away
    /// (PDF417 only, zxing-cpp) and kept at the first that reads the same bytes. zxing-cpp's PDF417 decoder tries
    /// combinations of ambiguous codewords, and on a blurred, tiny symbol one combination can pass the error
    /// correction with wrong data: held-out make_photos seed 308's PDF417 ("VRX 3 chSLQb PEeE") read as
    /// "KQ3 chSLQWGWNQCGBJMOSAHK" at 2^(−9/4) of its size, and at no size near it; every right PDF417 read of
    /// the tuning photos read again within half a step. Data Matrix, Aztec and QR reads are kept as read.
    func confirmLadderPDF417(
        _ found: [MetadataObject], exponent: Double, base: PassImage,
        frameSize: PixelSize
    ) throws -> [MetadataObject] {
        guard found.contains(where: { $0.type == .pdf417 }) else { return found }
        var nearby: [[MetadataObject]?] = Array(repeating: nil, count: Self.ladderPDF417Offsets.count)
        return try found.filter { o in
            guard o.type == .pdf417 else { return true }
            for (i, offset) in Self.ladderPDF417Offsets.enumerated() {
                if nearby[i] == nil {
                    guard let level = matrixLadderImage(exponent: exponent + offset, base: base) else {
                        nearby[i] = []
                        continue
                    }
                    nearby[i] = try scanZXing(level, types: [.pdf417], frameSize: frameSize, bothPolarities: true)
                }
                if nearby[i]!.contains(where: { $0.payload == o.payload }) { return true }
            }
            return false
        }
    }

    /// The ladder's level 2^(−`exponent`/n) of `base` (``matrixLadderSize(width:height:exponent:)``),
    /// pixel-averaged and marked ``PassImage/matrixOnly``. It has no inverted twin: zxing-cpp reads it in both
    /// polarities on one binarisation. nil when OpenCV fails.
    func matrixLadderImage(exponent: Double, base: PassImage) -> PassImage? {
        let size = matrixLadderSize(width: base.plane.width, height: base.plane.height, exponent: exponent)
        guard var level = base.resized(width: size.width, height: size.height, interpolation: 0) else { return nil }
        level.matrixOnly = true
        return level
    }

    /// ``StreamScheduler/isLargeFrame(longSide:)``.
    func isLargeStreamFrame(longSide: Int) -> Bool { scheduler.isLargeFrame(longSide: longSide) }

    /// ``StreamScheduler/zbarDensity(_:density:large:)``.
    func zbarStepDensity(_ pass: ReaderPass, density: Int, large: Bool) -> Int {
        scheduler.zbarDensity(pass, density: density, large: large)
    }

    /// Reads one frame of a stream (video, Y4M, camera) within a budget: the plain zbar pass always, then,
    /// only if that finds nothing, `steps` further steps taken in rotation from frame to frame. Each frame
    /// costs at most `1 + steps` scans, and a code held in view meets every pass within a few frames.
    /// Geometry is relative to the whole frame, as in ``detect(in:rectOfInterest:)``.
    ///
    /// With a `deadline` (``monotonicSeconds()``; live sources), a step whose recent cost (a moving average of
    /// its own timings) would end after the deadline is put off to its next turn, at most
    /// ``maximumDeferrals`` times in a row, so an expensive step still runs every few turns instead of never.
    /// The step that read the last frame is never put off.
    public func detectStream(
        in frame: Frame, rectOfInterest: NormalizedRect = .unit, steps: Int,
        deadline: Double? = nil
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
    public func startStream() {
        crossFrame.forget()
        streamPending = PendingReads()
        deskewMemo = nil
        conflictChecked.removeAll()
        retailChecked.removeAll()
        textReader.forget()
    }

    /// ``detectStream(in:rectOfInterest:steps:deadline:)``, saying which pass and engine read the codes.
    public func readStream(
        in frame: Frame, rectOfInterest: NormalizedRect = .unit, steps: Int,
        deadline: Double? = nil
    ) throws -> BarcodeRead {
        try failingOnZBarErrors {
            try readStreamChecked(in: frame, rectOfInterest: rectOfInterest, steps: steps, deadline: deadline)
        }
    }

    private func readStreamChecked(in frame: Frame, rectOfInterest: NormalizedRect, steps: Int, deadline: Double?)
        throws -> BarcodeRead
    {
        var read = try readStreamFrame(in: frame, rectOfInterest: rectOfInterest, steps: steps, deadline: deadline)
        // zxing's reads of the frame, made at most once per set of types however many reads ask.
        var base: PassImage?
        var zxingReads: [Set<MetadataObjectType>: [MetadataObject]] = [:]
        read.objects = try checkAgainstRecentFrames(read.objects) { types in
            if let known = zxingReads[types] { return known }
            if base == nil { base = self.startFrame(frame, rectOfInterest: rectOfInterest) }
            guard let image = base else { return [] }
            let symbols = try ZXingReader.read(image.plane, types: types).filter { types.contains($0.type) }
            let found = self.objects(in: symbols, pass: image, frameSize: frame.size)
            zxingReads[types] = found
            return found
        }
        if read.objects.isEmpty {
            read.pass = nil
            read.engine = nil
        }
        return read
    }

    /// On streams: the 1-D reads of recent frames and the conflict rule across them.
    private var crossFrame = CrossFrameMemory()
    /// Stream frames a read is remembered for (``CrossFrameMemory/rememberedFrames``).
    static var recentFrames: Int { CrossFrameMemory.rememberedFrames }

    /// ``checkAgainstRecentFrames(_:zxing:)`` with a zxing-cpp that reads nothing (for tests).
    func checkAgainstRecentFrames(_ objects: [MetadataObject]) -> [MetadataObject] {
        checkAgainstRecentFrames(objects, zxing: { _ in [] })
    }

    /// The conflict rule across stream frames (``CrossFrameMemory/check(_:frame:engine:capacity:held:zxing:)``)
    /// on this stream frame's reads, when ``BarcodeConfiguration/resolveConflictingReads`` is on.
    func checkAgainstRecentFrames(
        _ objects: [MetadataObject],
        zxing: (Set<MetadataObjectType>) throws -> [MetadataObject]
    ) rethrows -> [MetadataObject] {
        guard configuration.resolveConflictingReads else { return objects }
        return try crossFrame.check(
            objects, frame: streamFrames, engine: configuration.engine, capacity: Self.rereadCacheSize,
            held: { self.confirmations[$0, default: 0] += 1 }, zxing: zxing)
    }

    private func readStreamFrame(
        in frame: Frame, rectOfInterest: NormalizedRect, steps: Int,
        deadline: Double?
    ) throws -> BarcodeRead {
        streaming = true
        streamFrames += 1
        guard let base = startFrame(frame, rectOfInterest: rectOfInterest) else { return BarcodeRead() }
        let density = streamDensity(for: frame.size)
        var plain: [MetadataObject] = []
        if !zbarEnabled.isEmpty {
            plain = Self.suppressFragments(
                try zbarReads(
                    base, pass: .plain, base: base, frameSize: frame.size,
                    density: density, matrixOnly: false),
                upceInsideEAN13: configuration.checkUPCEQuietZone)
        }
        let looked = try streamQRLook(base, frameSize: frame.size, after: plain)
        if !plain.isEmpty || !looked.isEmpty {
            return BarcodeRead(objects: plain + looked, pass: .plain, engine: plain.isEmpty ? .zxing : .zbar)
        }
        let longSide = max(base.plane.width, base.plane.height)
        let all = streamSteps(width: base.plane.width, height: base.plane.height)
        guard !all.isEmpty else { return BarcodeRead() }
        let large = isLargeStreamFrame(longSide: longSide)
        var images = StreamFrameImages()
        let (queue, sticky) = scheduler.queue(from: all, count: steps)
        for step in queue {
            if scheduler.putsOff(step, sticky: sticky, deadline: deadline) { continue }
            let started = monotonicSeconds()
            defer { scheduler.record(step, seconds: monotonicSeconds() - started) }
            guard let (image, levelDivisor) = streamStepImage(step, base: base, made: &images) else { continue }
            var found = try streamStepReads(
                step, image: image, levelDivisor: levelDivisor, base: base, frameSize: frame.size, density: density,
                large: large)
            found = Self.suppressFragments(found.filter(accept), upceInsideEAN13: configuration.checkUPCEQuietZone)
            if step.pass != .plain {
                // On a stream the second sighting may come from another step on a later frame: a candidate
                // is remembered for ``streamConfirmationFrames`` frames.
                streamPending.forget(olderThan: streamFrames - Self.streamConfirmationFrames)
                found = try confirm(
                    found, pass: image, base: base, engine: step.engine, frameSize: frame.size,
                    source: "\(step.pass.rawValue)/\(step.image)/\(step.engine)", pending: &streamPending,
                    stamp: streamFrames)
            }
            if !found.isEmpty {
                scheduler.read(by: step)
                return BarcodeRead(objects: found, pass: step.pass, engine: step.engine)
            }
        }
        return BarcodeRead()
    }

    /// The images of one stream frame's steps, each made at most once: the pass images, the pyramid's levels,
    /// the deskewed pass's plan.
    private struct StreamFrameImages {
        var passes: [StreamImageKey: PassImage] = [:]
        var levels: [Int: PassImage] = [:]
        var deskew: (base: PassImage, degrees: [Double], border: UInt8)?
    }

    /// The image `step` reads on `base` (the frame or its rect of interest), and the divisor of the pyramid
    /// level it is (2 unless a level below half size); nil when it cannot be made.
    private func streamStepImage(_ step: StreamStep, base: PassImage, made: inout StreamFrameImages) -> (
        PassImage, Int
    )? {
        if step.pass == .deskewed {
            // Only the image this step reads is turned, and the bar directions found on one frame serve
            // the deskewed steps of the next few (the pass's steps follow one another in the rotation).
            let size = PixelSize(width: base.plane.width, height: base.plane.height)
            if made.deskew == nil {
                if let memo = deskewMemo, memo.size == size, streamFrames - memo.frame < Self.deskewMemoryFrames {
                    made.deskew = deskewPlan(base, degrees: memo.degrees)
                } else {
                    made.deskew = deskewPlan(base)
                    deskewMemo = (streamFrames, size, made.deskew?.degrees ?? [])
                }
            }
            guard let plan = made.deskew else { return nil }
            guard step.image < plan.degrees.count,
                let turned = plan.base.turned(by: -plan.degrees[step.image], border: plan.border)
            else { return nil }
            return (turned, 2)
        } else if step.pass == .downscaled {
            // Only the level this step reads (pixel-averaged from the frame), and its inverted twin only
            // when that is the image.
            let twins = configuration.tryInverted ? 2 : 1
            let divisors = streamDownscaleDivisors(width: base.plane.width, height: base.plane.height)
            guard step.image < twins * divisors.count else { return nil }
            let divisor = divisors[step.image / twins]
            guard
                let level = made.levels[divisor]
                    ?? base.resized(
                        width: base.plane.width / divisor,
                        height: base.plane.height / divisor, interpolation: 0)
            else { return nil }
            made.levels[divisor] = level
            return (step.image % twins == 1 ? level.inverted() : level, divisor)
        } else {
            let key = StreamImageKey(pass: step.pass, image: step.image)
            guard let image = made.passes[key] ?? passImage(step.pass, index: step.image, base: base) else {
                return nil
            }
            made.passes[key] = image
            return (image, 2)
        }
    }

    /// What `step`'s engine reads on `image` (a level of divisor `levelDivisor`), before the checks: zbar at the
    /// step's line spacing, or zxing-cpp for the step's formats.
    private func streamStepReads(
        _ step: StreamStep, image: PassImage, levelDivisor: Int, base: PassImage, frameSize: PixelSize, density: Int,
        large: Bool
    ) throws -> [MetadataObject] {
        if step.engine == .zbar {
            // (A level below half size keeps the half-size image's lines in frame pixels.)
            let lines = zbarStepDensity(step.pass, density: density, large: large)
            return try zbarReads(
                image, pass: step.pass, base: base, frameSize: frameSize,
                density: levelDivisor > 2 ? max(1, lines * 2 / levelDivisor) : lines,
                matrixOnly: step.pass.matrixOnly)
        } else {
            // zbar's spacing for this image as the checks that re-read with zbar expect it (`large` not applied:
            // those checks scan the frame, not this step's image).
            return try zxingPassReads(
                image, pass: step.pass, base: base, types: zxingTypes(step), frameSize: frameSize,
                density: zbarStepDensity(step.pass, density: density, large: false))
        }
    }

    /// The QR look of a stream frame (``BarcodeConfiguration/streamQRLookLines``): QR codes in `base` (the frame
    /// or its rect of interest) when the plain pass read none, from zxing-cpp (zbar's QR reader on every line
    /// with `--engine zbar`) on `base` scaled down (pixel-averaged) to at most that many lines. The plain pass's
    /// lines are `streamDensity` pixels apart, and zbar's QR finder keeps a cluster of finder lines only when
    /// they number at least a fifth of their length in pixels (qrdec.c, `qr_finder_cluster_lines`): lines 5 or
    /// more pixels apart never find a QR code, whatever its size, and 3–4 apart lose blurred ones. Geometry is
    /// relative to the whole frame.
    func streamQRLook(_ base: PassImage, frameSize: PixelSize, after plain: [MetadataObject]) throws -> [MetadataObject]
    {
        guard let lines = configuration.streamQRLookLines, lines > 0, enabledTypes.contains(.qr),
            !plain.contains(where: { $0.type == .qr })
        else { return [] }
        var image = base
        let width = base.plane.width
        let height = base.plane.height
        let short = min(width, height)
        if short > lines {
            let scale = Double(lines) / Double(short)
            guard
                let level = base.resized(
                    width: max(1, Int((Double(width) * scale).rounded())),
                    height: max(1, Int((Double(height) * scale).rounded())), interpolation: 0)
            else { return [] }
            image = level
        }
        if zxingEnabled.contains(.qr) {
            return dropConflicts(try scanZXing(image, types: [.qr], frameSize: frameSize)).filter(accept)
        }
        return scanZBar(image, frameSize: frameSize, density: 1, matrixOnly: true).filter(accept)
    }

    /// A pass image a stream frame has made, for another step on the same frame.
    private struct StreamImageKey: Hashable {
        var pass: ReaderPass
        var image: Int
    }

    /// The images a pass looks at: the pass itself (for `downscaled` on still images, each level of its pyramid)
    /// and, for extra passes, each one's inverted twin after it.
    func passImages(_ pass: ReaderPass, base: PassImage) -> [PassImage] {
        let p = base.plane
        var images: [PassImage] = []
        switch pass {
        case .plain:
            return [base]
        case .inverted:
            return [base.inverted()]
        case .downscaled:
            // Half size; on a still image also the further levels of ``pyramidDivisors(width:height:)``, largest
            // first, each made from the level above it in its chain (¼ from ½, ⅙ from ⅓). On streams: half size
            // only here; a stream step makes the one level it reads (readStreamFrame).
            let divisors = pyramidDivisors(width: p.width, height: p.height)
            var levels: [Int: PassImage] = [:]
            for d in streaming ? Array(divisors.prefix(1)) : divisors {
                let (parent, by) = d == 2 || d == 3 ? (base, d) : (levels[d / 2], 2)
                guard let parent,
                    let level = parent.resized(
                        width: parent.plane.width / by, height: parent.plane.height / by,
                        interpolation: 0)
                else { continue }
                levels[d] = level
                images.append(level)
            }
        case .upscaled:
            guard let u = upscaledImage(base) else { return [] }
            images.append(u)
        case .thresholded, .upscaledThresholded:
            guard let t = thresholdedImage(pass, base: base, inverted: false) else { return [] }
            images.append(t)
        case .deskewed:
            return deskewedImages(base)
        }
        // Each image, then its inverted twin.
        guard configuration.tryInverted else { return images }
        return images.flatMap { [$0, $0.inverted()] }
    }

    /// Image `index` of ``passImages(_:base:)`` for `pass`, made alone: a stream step reads one image of a pass
    /// per frame, so the pass's other image is not made, and a thresholded pass's inverted twin is thresholded
    /// inverted in one go (the same bytes as inverting the plain result). nil when the pass has no such image.
    /// (Not for `deskewed` or the stream pyramid's `downscaled` levels, which a stream step makes itself.)
    func passImage(_ pass: ReaderPass, index: Int, base: PassImage) -> PassImage? {
        let twins = configuration.tryInverted ? 2 : 1
        switch pass {
        case .thresholded, .upscaledThresholded:
            guard index < twins else { return nil }
            return thresholdedImage(pass, base: base, inverted: index == 1)
        case .upscaled:
            guard index < twins, let u = upscaledImage(base) else { return nil }
            return index == 1 ? u.inverted() : u
        default:
            let images = passImages(pass, base: base)
            return index < images.count ? images[index] : nil
        }
    }

    /// The `upscaled` pass's image: `base` at twice its size (bilinear), if its long side is at most
    /// ``BarcodeConfiguration/maximumUpscaleSide`` pixels.
    private func upscaledImage(_ base: PassImage) -> PassImage? {
        let p = base.plane
        guard max(p.width, p.height) <= configuration.maximumUpscaleSide else { return nil }
        return base.resized(width: p.width * 2, height: p.height * 2, interpolation: 1)
    }

    /// The binarised image of the `thresholded` or `upscaledThresholded` pass (0 and 255; dark 255 when
    /// `inverted`), with its map to frame pixels.
    private func thresholdedImage(_ pass: ReaderPass, base: PassImage, inverted: Bool) -> PassImage? {
        let p = base.plane
        if pass == .upscaledThresholded {
            // Binarising at ×2 keeps the module edges of ≈3 px modules (bilinear gives sub-pixel edges); the
            // block (≈1/20 of the frame's long side) follows a specular band, and the bias (`c`) keeps a
            // screen's faint pixel-grid moiré on the light side instead of turning it into module-sized dots.
            guard var u = upscaledImage(base) else { return nil }
            let block = min(101, max(15, (max(u.plane.width, u.plane.height) / 40) | 1))
            guard let t = ImageOps.thresholded(u.plane, block: block, c: Self.upscaledThresholdBias, inverted: inverted)
            else { return nil }
            u.plane = t
            return u
        }
        // On a large still: the half-size image (``BarcodeConfiguration/largeStillSide``).
        var source = base
        if !streaming, max(p.width, p.height) > configuration.largeStillSide,
            let d = base.resized(width: p.width / 2, height: p.height / 2, interpolation: 0)
        {
            source = d
        }
        var block = max(source.plane.width, source.plane.height) / 24
        block = min(101, max(15, block | 1))
        guard let t = ImageOps.thresholded(source.plane, block: block, c: 2, inverted: inverted) else { return nil }
        source.plane = t
        return source
    }

    /// The deskewed pass turns frames (or rects of interest) of at most this many pixels on the long side; larger
    /// ones are scaled down to it first.
    static let deskewMaximumSide = 1920
    /// How many directions the deskewed pass turns a frame to, at most.
    static let deskewDirections = 2
    /// Bar directions closer than this to the frame's axes (degrees) are left to the other passes: zbar's scan
    /// lines cross a code tilted that little whole unless its bars are very short.
    static let deskewMinimumTilt = 7.0

    /// The deskewed pass's images: `base` turned so that each of the strongest bar-like directions in it
    /// (``ImageOps/barOrientations(_:block:minimumCoherence:minimumBlocks:capacity:)``: 8-pixel blocks whose
    /// gradients agree, at least 6 of them within 5°) that is at least ``deskewMinimumTilt`` off the frame's
    /// axes lies along x (upright bars). The corners outside the frame are filled with the frame's mean grey.
    func deskewedImages(_ base: PassImage) -> [PassImage] {
        let plan = deskewPlan(base)
        return plan.degrees.compactMap { plan.base.turned(by: -$0, border: plan.border) }
    }

    /// What the deskewed pass turns: `base` (scaled to at most ``deskewMaximumSide`` pixels on its long side),
    /// the angles (degrees, image axes) by which its images stand the bars upright, at most
    /// ``deskewDirections`` of them, and the grey that fills the turned images' corners.
    /// Finding the directions costs more than a turn (6 and 4 ms at 1280×720 on this machine), so a stream
    /// step turns only the image it reads, and reuses directions found on a recent frame (``deskewMemoryFrames``).
    /// With `degrees`, those directions are used instead of being looked for.
    func deskewPlan(_ base: PassImage, degrees known: [Double]? = nil) -> (
        base: PassImage, degrees: [Double], border: UInt8
    ) {
        var base = base
        // A large photo is turned at most ``deskewMaximumSide`` pixels on its long side (area-averaged first):
        // a 12-megapixel frame turned by 45° would be 25 megapixels per direction.
        let long = max(base.plane.width, base.plane.height)
        if long > Self.deskewMaximumSide {
            let k = Double(Self.deskewMaximumSide) / Double(long)
            let w = max(1, Int(Double(base.plane.width) * k))
            let h = max(1, Int(Double(base.plane.height) * k))
            guard let small = base.resized(width: w, height: h, interpolation: 0) else { return (base, [], 0) }
            base = small
        }
        let p = base.plane
        guard p.width >= 32, p.height >= 32 else { return (base, [], 0) }
        if let known { return (base, known, known.isEmpty ? 0 : ImageOps.meanLevel(p)) }
        let directions = ImageOps.barOrientations(p, block: 8, minimumCoherence: 0.75, minimumBlocks: 6, capacity: 4)
        var degrees: [Double] = []
        for d in directions {
            let off = d.degrees.truncatingRemainder(dividingBy: 90)
            guard min(off, 90 - off) >= Self.deskewMinimumTilt else { continue }
            degrees.append(d.degrees)
            if degrees.count == Self.deskewDirections { break }
        }
        return (base, degrees, degrees.isEmpty ? 0 : ImageOps.meanLevel(p))
    }

    /// zbar's reads of one pass image, after the filters (``accept(_:)``), the check against the deskewed pass
    /// (``checkAgainstDeskewed(_:pass:base:frameSize:density:)``) and the conflict and small-retail checks
    /// (``checkRetailReads(_:image:frameSize:)``), in that order.
    func zbarReads(
        _ image: PassImage, pass: ReaderPass, base: PassImage, frameSize: PixelSize, density: Int,
        matrixOnly: Bool
    ) throws -> [MetadataObject] {
        var found = scanZBar(image, frameSize: frameSize, density: density, matrixOnly: matrixOnly)
        if streaming, pass == .plain, density > 1 {
            found = found.map { o in denseReread(o, on: image, density: density, frameSize: frameSize) ?? o }
        }
        found = found.filter(accept)
        return try checkRetailReads(
            checkAgainstDeskewed(
                found, pass: pass, base: base, frameSize: frameSize,
                density: Self.frameDensity(pass, density)),
            image: image, frameSize: frameSize)
    }

    /// On a stream frame's plain pass, whose lines are `density` pixels apart: a 1-D read on fewer lines than
    /// ``BarcodeConfiguration/minimumLinearQuality`` is read again by zbar on every line of the bands of the
    /// image around it (the rows and the columns within ``denseRereadSpan`` × `density` pixels of where it was
    /// read: zbar's box of a 1-line read is the point where that line finished it, at one end of the symbol, and
    /// the line may be a row or a column), and that read (same type and payload, on as many lines as a still
    /// image's read needs) replaces it. A small or blurred 1-D code decodes on a few rows only: a 1920×1080
    /// EAN-13 of 1.5 px modules on a busy backdrop read on 6–13 rows with every line scanned, and on 0–3 lines
    /// 5 px apart, so the quality rule dropped it on half the frames the naive pass read it on. nil when the
    /// dense read does not confirm it (the read is then dropped by the quality rule, as before).
    func denseReread(_ o: MetadataObject, on image: PassImage, density: Int, frameSize: PixelSize) -> MetadataObject? {
        guard o.type.isLinear, let q = o.quality, q > 0, q < configuration.minimumLinearQuality else { return nil }
        var lowered = o
        lowered.quality = configuration.minimumLinearQuality
        guard accept(lowered) else { return nil }  // the length and check-digit rules hold whatever the lines
        let center = image.fromFrame(
            (o.bounds.x + o.bounds.width / 2) * Double(frameSize.width),
            (o.bounds.y + o.bounds.height / 2) * Double(frameSize.height))
        let span = Self.denseRereadSpan * density
        let planeWidth = image.plane.width
        let planeHeight = image.plane.height
        let y0 = max(0, Int(center.1) - span)
        let y1 = min(planeHeight, Int(center.1) + span + 1)
        let x0 = max(0, Int(center.0) - span)
        let x1 = min(planeWidth, Int(center.0) + span + 1)
        var reads: [MetadataObject] = []
        if y1 - y0 > 2 {
            reads += scanZBar(
                image.cropped(to: PixelRect(x: 0, y: y0, width: planeWidth, height: y1 - y0)), frameSize: frameSize,
                density: 1, matrixOnly: false)
        }
        if x1 - x0 > 2 {
            reads += scanZBar(
                image.cropped(to: PixelRect(x: x0, y: 0, width: x1 - x0, height: planeHeight)), frameSize: frameSize,
                density: 1, matrixOnly: false)
        }
        guard
            let dense = reads.filter({ $0.type == o.type && $0.payload == o.payload && accept($0) })
                .max(by: { ($0.quality ?? 0) < ($1.quality ?? 0) })
        else { return nil }
        confirmations["dense re-read", default: 0] += 1
        return dense
    }

    /// Half the height of ``denseReread(_:on:density:frameSize:)``'s bands, in the plain pass's line spacings.
    static let denseRereadSpan = 4

    /// zxing-cpp's reads of one pass image of `types`, after its own conflict rule (``dropConflicts(_:)``),
    /// the filters (``accept(_:)``) and the check against the deskewed pass (zxing too reads part of a tilted
    /// Interleaved 2 of 5, on the downscaled image of a stream frame). `density` is zbar's for `pass`;
    /// `bothPolarities` as in ``ZXingReader/read(_:types:quick:bothPolarities:)``.
    func zxingPassReads(
        _ image: PassImage, pass: ReaderPass, base: PassImage, types: Set<MetadataObjectType>,
        frameSize: PixelSize, density: Int, bothPolarities: Bool = false
    ) throws -> [MetadataObject] {
        let found = dropConflicts(
            try scanZXing(image, types: types, frameSize: frameSize, bothPolarities: bothPolarities)
        ).filter(accept)
        return checkAgainstDeskewed(
            found, pass: pass, base: base, frameSize: frameSize, density: Self.frameDensity(pass, density))
    }

    /// zbar's scan-line spacing for frame-scale images given `density` for `pass` (the upscaled image is
    /// scanned on every 2nd line of 2).
    static func frameDensity(_ pass: ReaderPass, _ density: Int) -> Int {
        pass == .upscaled ? max(1, density / 2) : density
    }

    /// 1-D reads on fewer scan lines than this are checked against the deskewed pass
    /// (``checkAgainstDeskewed(_:pass:base:frameSize:density:)``).
    static let deskewCheckBelowQuality = 3

    /// 1-D reads (zbar's or zxing-cpp's) on few scan lines (below ``deskewCheckBelowQuality``) checked against
    /// the deskewed images of the frame: a horizontal scan line crossing a tilted code with short bars enters and leaves it
    /// through its long sides, and Interleaved 2 of 5 (no check digit, any even length) and Codabar then read
    /// the part crossed as a shorter code (held-out synthetic sets: "903922" of "56903922" at 20°, on 2 lines).
    /// When zbar reads the same kind of code (I2/5 and ITF-14 are one kind) on a deskewed image, on at least
    /// ``transformedQualityMargin`` lines, where the read lies, with a longer payload, that read replaces this
    /// one; with the same payload, a shorter one or nothing there, this one stands. Reads of any pass but the
    /// deskewed one; zbar's before its conflict and small-retail checks, so zxing's verdict there has the last
    /// word. Costs one orientation estimate and up to two turned zbar scans, on frames with such a read only.
    func checkAgainstDeskewed(
        _ found: [MetadataObject], pass: ReaderPass, base: PassImage, frameSize: PixelSize,
        density: Int
    ) -> [MetadataObject] {
        guard pass != .deskewed, configuration.passes.contains(.deskewed), configuration.extraPasses,
            found.contains(where: { $0.type.isLinear && ($0.quality ?? Int.max) < Self.deskewCheckBelowQuality })
        else { return found }
        let reads = deskewedImages(base).flatMap {
            scanZBar($0, frameSize: frameSize, density: density, matrixOnly: false).filter(accept)
        }.filter { ($0.quality ?? 0) >= Self.transformedQualityMargin }
        var out: [MetadataObject] = []
        for o in found {
            guard o.type.isLinear, (o.quality ?? Int.max) < Self.deskewCheckBelowQuality else {
                out.append(o)
                continue
            }
            let there = reads.filter {
                $0.type.family == o.type.family && Self.touch($0.bounds, o.bounds)
                    && ($0.payload?.count ?? 0) > (o.payload?.count ?? 0)
            }
            if there.isEmpty {
                out.append(o)
                continue
            }
            confirmations["deskewed replaced", default: 0] += 1
            if let best = there.max(by: { ($0.quality ?? 0) < ($1.quality ?? 0) }),
                !out.contains(where: { $0.type == best.type && $0.payload == best.payload })
            {
                out.append(best)
            }
        }
        return out
    }

    /// The `upscaledThresholded` pass's bias: a pixel turns dark only when this far below its local mean.
    static let upscaledThresholdBias = 8.0

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

    // MARK: zbar

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
            ? zxingEnabled.intersection(Self.matrixTypes)
            : pass.linearOnly ? zxingEnabled.filter(\.isLinear) : zxingEnabled
    }

    /// 2-D symbologies: all that the `upscaledThresholded` pass looks for.
    static let matrixTypes: Set<MetadataObjectType> = [.qr, .microQR, .dataMatrix, .aztec, .pdf417]

    /// zbar's scan-line spacing on `image`, an image of a still: `density`, or more on large images
    /// (``BarcodeConfiguration/stillScanLines``). An upscaled image counts its lines at the frame's scale,
    /// so the upscaled passes keep the spacing they are given.
    func stillDensity(_ density: Int, for image: PassImage) -> Int {
        guard let lines = configuration.stillScanLines, lines > 0 else { return density }
        let short = Double(min(image.plane.width, image.plane.height)) * min(1, image.framePixelsPerPixel)
        return max(density, Int((short / Double(lines)).rounded()))
    }

    /// One zbar pass over a pass image (``ZBarReader``), on every `density`th line (on a large still image,
    /// more: ``stillDensity(_:for:)``); `matrixOnly` reads QR only. What zbar could not do is kept for
    /// ``failingOnZBarErrors(_:)``.
    func scanZBar(_ pass: PassImage, frameSize: PixelSize, density: Int, matrixOnly: Bool) -> [MetadataObject] {
        guard !zbarEnabled.isEmpty, !matrixOnly || zbarEnabled.contains(.qr) else { return [] }
        let density = streaming ? density : stillDensity(density, for: pass)
        let scan = zbar.scan(pass.plane, density: density, qrOnly: matrixOnly)
        if let failure = scan.failure { zbarFailure = failure }
        return scan.symbols.compactMap { makeObject($0, pass: pass, frameSize: frameSize) }
    }

    /// What a zbar symbol on `pass` becomes: frame geometry, the payload's text; nil for a UPC-E read inside a
    /// longer symbol.
    private func makeObject(_ s: ZBarSymbol, pass: PassImage, frameSize: PixelSize) -> MetadataObject? {
        let frameWidth = Double(frameSize.width)
        let frameHeight = Double(frameSize.height)
        func normalized(_ p: (Double, Double)) -> NormalizedPoint {
            let f = pass.toFrame(p.0, p.1)
            return NormalizedPoint(x: f.0 / frameWidth, y: f.1 / frameHeight)
        }
        if s.type == .upce, configuration.checkUPCEQuietZone,
            let direction = RetailQuietZone.direction(zbarOrientation: s.orientation),
            RetailQuietZone.insideLongerSymbol(
                on: pass.plane, ends: s.points, direction: direction, edgeCounts: streaming)
        {
            confirmations["UPC-E inside a longer symbol", default: 0] += 1
            return nil
        }
        let corners = s.corners.map(normalized)
        var payload = s.bytes
        var segments = [TextDecoding.Segment(offset: 0, eci: nil, fromMode: false)]
        var isGS1 = s.isGS1
        if let refined = textReader.refine(
            type: s.type, bytes: s.bytes, points: s.points, pass: pass, frame: streaming ? streamFrames : nil)
        {
            payload = refined.bytes
            segments = refined.segments
            isGS1 = isGS1 || refined.isGS1
        }
        let (text, encoding) = textReader.decode(&payload, type: s.type, segments: segments)
        return MetadataObject(
            type: s.type, bounds: NormalizedRect(boundingPoints: corners), corners: corners,
            stringValue: text, payload: payload, quality: s.quality, textEncoding: encoding, isGS1: isGS1)
    }

    // MARK: confirming transformed reads

    /// Linear reads from transformed pass images that nothing has confirmed yet, by type and payload, with
    /// where they were read (a pass image on a still image, a frame on a stream).
    struct PendingReads {
        struct Key: Hashable {
            var type: MetadataObjectType
            var payload: [UInt8]
        }
        var sources: [Key: (source: String, stamp: Int)] = [:]
        mutating func forget(olderThan stamp: Int) { sources = sources.filter { $0.value.stamp >= stamp } }
    }
    /// Candidates from transformed stream steps, across frames.
    private var streamPending = PendingReads()
    /// A transformed 1-D read seen on at least this many scan lines (zbar's quality; zxing's agreeing lines)
    /// counts as confirmed: one above ``BarcodeConfiguration/minimumLinearQuality``'s default. Measured on the
    /// shelf set (docs/reader.md): the upscaled pass's wrong EAN-13 reads were on 2 lines, its right ones on 3–9.
    static let transformedQualityMargin = 3
    /// Frames within which a second sighting confirms a transformed 1-D read on a stream.
    static let streamConfirmationFrames = 3
    /// Transformed 1-D reads dropped because nothing confirmed them, and confirmations by kind, for tests and
    /// diagnostics.
    private(set) var unconfirmedReads = 0
    private(set) var confirmations: [String: Int] = [:]

    /// Whether a transformed read of `type` by `engine` must be confirmed: EAN-13/UPC-A, EAN-8 and UPC-E from
    /// either engine (one mod-10 check digit lets a blurred symbol pass as other digits), and the other linear
    /// types when zbar read them (zbar reads a skewed ITF-14 or long Interleaved 2 of 5 as a shorter one).
    /// 2-D codes carry error correction and are never held back. Measured on the four generated sets
    /// (2026-11-24, docs/reader.md): of zbar's transformed non-retail reads the 36 right ones were all on 3+
    /// scan lines and the 2 wrong ones (I2/5 prefixes) on 2; zxing's 19 were all right, 7 of them on fewer
    /// than 3 lines, which holding them back would have lost. Codabar is held back from zxing too: it has no
    /// check character at all, and zxing-cpp read "D4212C" along one pixel column (2 lines) of a code-free photo's
    /// thresholded image on 12–16 of 24 frames of a stream (docs/reader.md, "Codabar from zxing's transformed passes").
    /// So is GS1 DataBar Expanded: zxing-cpp read one on 2 lines of the thresholded image of a 12 MP photo of a
    /// tilted PDF417 symbol (never-seen seed 9595), and holding zxing's back lost no read on any set
    /// (docs/reader.md, "DataBar Expanded from zxing's transformed passes").
    static func needsConfirming(_ type: MetadataObjectType, engine: BarcodeEngine) -> Bool {
        retailModules[type] != nil
            || (type.isLinear && (engine != .zxing || [.codabar, .gs1DataBarExpanded].contains(type)))
    }

    /// Keeps the reads of a transformed pass image that are trustworthy: 2-D codes, zxing's non-retail linear
    /// reads other than Codabar and DataBar Expanded, and the other linear reads (``needsConfirming(_:engine:)``) once confirmed
    /// (``BarcodeConfiguration/confirmTransformedLinearReads``, on by default) by, in this order:
    /// 1. on a stream, another step on a recent frame having read it unconfirmed (`pending`, keyed by
    ///    `source`). On a still image two pass images are made from the same pixels and misread alike (an
    ///    ITF-14's 8-digit Interleaved 2 of 5 prefix on the upscaled and the thresholded image of one
    ///    frame), so their agreement confirms nothing there;
    /// 2. its quality: at least ``transformedQualityMargin`` scan lines (not for an EAN/UPC read on a still
    ///    image's pyramid level below half size, whose modules are too few pixels for lines to tell);
    /// 3. the other engine reading the same type and payload around the code on the same pass image;
    /// 4. the same on the plain frame (`base`): zxing with `tryHarder`, then zbar on every line.
    /// An EAN/UPC read of a lossy image (scaled, thresholded) confirmed only by the cheap evidence (1, 2) must
    /// also meet no conflict: no other image of the frame may read other EAN/UPC digits on its symbol
    /// (``conflictsElsewhere(_:base:source:frameSize:)``; a blur that misleads one pass image misleads the next
    /// the same way, so agreement and scan lines are weak evidence there, and the other reading shows the
    /// symbol is ambiguous).
    /// An unconfirmed read is remembered in `pending` and dropped.
    func confirm(
        _ found: [MetadataObject], pass: PassImage, base: PassImage, engine: BarcodeEngine, frameSize: PixelSize,
        source: String, pending: inout PendingReads, stamp: Int = 0
    ) throws -> [MetadataObject] {
        guard configuration.confirmTransformedLinearReads,
            found.contains(where: { Self.needsConfirming($0.type, engine: engine) })
        else { return found }
        var out: [MetadataObject] = []
        for o in found {
            guard Self.needsConfirming(o.type, engine: engine), let payload = o.payload else {
                out.append(o)
                continue
            }
            let key = PendingReads.Key(type: o.type, payload: payload)
            var how: String?
            // The cheap evidence first, then the re-reads.
            // On a still's pyramid level below half size an EAN/UPC read's scan lines are no evidence: held-out
            // photo seed 3131's inverted EAN-13 (modules of 5 px, blurred) read with other last digits and a valid
            // check digit on 4 lines of the ¼ level's inverted twin, where its modules are 1.3 px, and on no
            // other image.
            let smallLevelRetail = !streaming && Self.retailModules[o.type] != nil && pass.framePixelsPerPixel > 2.01
            if streaming, let seen = pending.sources[key], seen.source != source {
                how = "second pass"
            } else if !smallLevelRetail, let q = o.quality, q >= Self.transformedQualityMargin {
                how = "quality"
            } else if engine == .zbar, try readsSame(o, on: pass, frameSize: frameSize, engine: .zxing) {
                how = "other engine"
            } else if engine == .zxing, try readsSame(o, on: pass, frameSize: frameSize, engine: .zbar) {
                how = "other engine"
            } else if try readsSame(o, on: base, frameSize: frameSize, engine: .zxing) {
                how = "plain zxing"
            } else if try readsSame(o, on: base, frameSize: frameSize, engine: .zbar) {
                how = "plain zbar"
            }
            // (Not for the inverted frame: it loses nothing, so its reads stand as plain-pass reads do.)
            if how == "second pass" || how == "quality", Self.retailModules[o.type] != nil,
                !source.hasPrefix("inverted/"),
                try conflictsElsewhere(o, base: base, source: source, frameSize: frameSize)
            {
                confirmations["conflict across passes", default: 0] += 1
                how = nil
            }
            if let how {
                confirmations[how, default: 0] += 1
                pending.sources[key] = nil
                out.append(o)
            } else {
                unconfirmedReads += 1
                if pending.sources[key] == nil { pending.sources[key] = (source, stamp) }
            }
        }
        return out
    }

    /// Whether `engine` reads `o` (same type and payload) on `image` around where `o` was read: its box
    /// widened by a sixth of its length and at least 16 pass pixels on each side.
    private func readsSame(_ o: MetadataObject, on image: PassImage, frameSize: PixelSize, engine: BarcodeEngine) throws
        -> Bool
    {
        let region = Self.region(around: o, on: image, frameSize: frameSize)
        switch engine {
        case .zxing:
            return try zxingReads(around: o, on: image, frameSize: frameSize).contains { symbol in
                var p = symbol.bytes
                _ = textReader.decode(&p, type: symbol.type, segments: symbol.segments)
                return p == o.payload || (o.type == .code128 && p.map { $0 & 0x7F } == o.payload?.map { $0 & 0x7F })
            }
        case .zbar, .both:
            guard Self.zbarTypes.contains(o.type) else { return false }
            let clipped = PixelRect(
                x: max(0, region.x), y: max(0, region.y),
                width: min(image.plane.width, region.x + region.width) - max(0, region.x),
                height: min(image.plane.height, region.y + region.height) - max(0, region.y))
            guard clipped.width > 8, clipped.height > 2 else { return false }
            let crop = image.cropped(to: clipped)
            return scanZBar(crop, frameSize: frameSize, density: 1, matrixOnly: false).contains { r in
                r.type == o.type
                    && (r.payload == o.payload
                        || (o.type == .code128 && r.payload?.map { $0 & 0x7F } == o.payload?.map { $0 & 0x7F }))
                    && accept(r)
            }
        }
    }

    /// Whether another image of the frame (`base` and its pass images other than `source`'s; zbar, as the
    /// passes scan them) reads an EAN/UPC payload other than `o`'s on `o`'s symbol (boxes that touch, in
    /// normalized frame coordinates). On a stream a payload found free of conflict is not checked again while
    /// it keeps being read (``rereadMemoryFrames``). Costs one zbar scan per pass image, only for EAN/UPC reads
    /// of lossy images confirmed by agreement or scan lines alone. (It scans whole images: zbar's box may mark
    /// one end of the symbol only, so a crop around it missed the UPC-A a wrong UPC-E lay in.)
    func conflictsElsewhere(_ o: MetadataObject, base: PassImage, source: String, frameSize: PixelSize) throws -> Bool {
        guard let payload = o.payload else { return false }
        let key = RereadKey(type: o.type, bytes: payload)
        if streaming, let seen = conflictChecked[key], streamFrames - seen <= Self.rereadMemoryFrames {
            conflictChecked[key] = streamFrames
            return false
        }
        let density = streaming ? streamDensity(for: frameSize) : max(1, configuration.scanDensity)
        for pass in effectivePasses where !pass.matrixOnly {
            for (index, image) in passImages(pass, base: base).enumerated() {
                if source == "\(pass.rawValue)/\(index)" || source.hasPrefix("\(pass.rawValue)/\(index)/") { continue }
                let reads = scanZBar(
                    image, frameSize: frameSize, density: pass == .upscaled ? 2 * density : density, matrixOnly: false)
                if reads.contains(where: { r in
                    Self.retailModules[r.type] != nil && r.payload != payload && Self.touch(r.bounds, o.bounds)
                        && accept(r)
                }) {
                    return true
                }
            }
        }
        if streaming {
            if conflictChecked.count >= Self.rereadCacheSize { conflictChecked.removeAll(keepingCapacity: true) }
            conflictChecked[key] = streamFrames
        }
        return false
    }
    /// On streams: EAN/UPC payloads found free of conflict, with the stream frame they were last read in.
    private var conflictChecked: [RereadKey: Int] = [:]

    /// Whether two boxes (normalized frame coordinates) overlap or touch. zbar's boxes are the bands its scan
    /// lines crossed, and may be a pixel wide, so touching counts.
    static func touch(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
        min(a.x + a.width, b.x + b.width) >= max(a.x, b.x) && min(a.y + a.height, b.y + b.height) >= max(a.y, b.y)
    }

    /// `o`'s box on `image` (pass pixels), widened by a sixth of its length and 16 pixels on each side.
    static func region(around o: MetadataObject, on image: PassImage, frameSize: PixelSize, widen: Double = 1.0 / 6)
        -> PixelRect
    {
        let frameWidth = Double(frameSize.width)
        let frameHeight = Double(frameSize.height)
        let points = o.corners.map { image.fromFrame($0.x * frameWidth, $0.y * frameHeight) }
        let xs = points.map(\.0)
        let ys = points.map(\.1)
        let x0 = xs.min() ?? 0
        let x1 = xs.max() ?? 0
        let y0 = ys.min() ?? 0
        let y1 = ys.max() ?? 0
        let m = max(x1 - x0, y1 - y0) * widen + 16
        return PixelRect(
            x: Int((x0 - m).rounded(.down)), y: Int((y0 - m).rounded(.down)),
            width: Int((x1 - x0 + 2 * m).rounded(.up)) + 1, height: Int((y1 - y0 + 2 * m).rounded(.up)) + 1)
    }

    /// zxing-cpp's reads of `o`'s type around `o` on `image` (`tryHarder`).
    private func zxingReads(
        around o: MetadataObject, on image: PassImage, frameSize: PixelSize, widen: Double = 1.0 / 6
    ) throws -> [ZXingReader.Symbol] {
        guard ZXingReader.types.contains(o.type) else { return [] }
        let region = Self.region(around: o, on: image, frameSize: frameSize, widen: widen)
        return try ZXingReader.read(image.plane, region: region, types: [o.type], quick: false).filter {
            $0.type == o.type
        }
    }

    /// EAN/UPC codes whose module is narrower than this many pass pixels (by zbar's box) are checked by zxing.
    static let smallRetailModule = 2.5
    /// The checks on one pass image's zbar reads. First the conflict rule
    /// (``BarcodeConfiguration/resolveConflictingReads``, on by default): two payloads of one linear type on one
    /// symbol.
    /// Then, with ``BarcodeConfiguration/checkSmallRetailReads`` (off by default), the small-retail check:
    /// retail codes read with a module of fewer than ``smallRetailModule`` pixels get zxing's second opinion:
    /// zbar misreads blurred small EAN-13/UPC-A as other digits with a valid check digit (one of the 11
    /// misreads on the shelf set was on the plain pass, read on 17 scan lines) where zxing-cpp reads the right
    /// digits or nothing. When zxing reads the same type there with other digits, zxing's read replaces
    /// zbar's; when it reads nothing, zbar's stands (plain pass) or needs confirming (transformed passes).
    /// Both run on every pass, on stills and streams.
    func checkRetailReads(_ found: [MetadataObject], image: PassImage, frameSize: PixelSize) throws -> [MetadataObject]
    {
        guard configuration.checkSmallRetailReads || configuration.resolveConflictingReads else { return found }
        // Two different payloads of one linear type in overlapping boxes are one symbol read two ways: at least
        // one is wrong (EAN/UPC first; since 2026-11-24 every linear type: a GS1 DataBar read two ways on 47 and
        // 31 lines of one inverted frame). zxing's read of that type on the image decides; without one, neither
        // is reported.
        // (A real phone photo of an ISBN, bench/reader/real_photos.py, gives zbar 9780071244763 on 17 scan lines
        // and 9180071844763 on 275: 1↔7 and 2↔8 swapped at two positions of weight 3, so the check digit holds.)
        let conflicted = !configuration.resolveConflictingReads ? [] : Self.conflicted(found)
        var arbiter: [[UInt8]] = []
        let conflictedTypes = Set(conflicted.map { found[$0].type }).filter { ZXingReader.types.contains($0) }
        if !conflicted.isEmpty {
            if !conflictedTypes.isEmpty {
                arbiter = try ZXingReader.read(image.plane, types: conflictedTypes).filter {
                    conflictedTypes.contains($0.type)
                }.map(\.bytes)
            }
            confirmations["conflict", default: 0] += 1
        }
        var out: [MetadataObject] = []
        // zxing's reads that replace zbar's, added after the loop unless a read of theirs stands already.
        var replacements: [(read: MetadataObject, by: MetadataObject)] = []
        for (i, o) in found.enumerated() {
            if conflicted.contains(i) {
                if let p = o.payload, arbiter.contains(p) { out.append(o) }
                continue
            }
            guard configuration.checkSmallRetailReads else {
                out.append(o)
                continue
            }
            guard let modules = Self.retailModules[o.type], let payload = o.payload else {
                out.append(o)
                continue
            }
            let frameWidth = Double(frameSize.width)
            let frameHeight = Double(frameSize.height)
            let points = o.corners.map { image.fromFrame($0.x * frameWidth, $0.y * frameHeight) }
            let xs = points.map(\.0)
            let ys = points.map(\.1)
            let length = max((xs.max() ?? 0) - (xs.min() ?? 0), (ys.max() ?? 0) - (ys.min() ?? 0))
            guard length / Double(modules) < Self.smallRetailModule else {
                out.append(o)
                continue
            }
            // On a stream a code in view is read frame after frame: checked once, then trusted while it keeps
            // being read (as the text re-reads).
            let key = RereadKey(type: o.type, bytes: payload)
            if streaming, let seen = retailChecked[key], streamFrames - seen <= Self.rereadMemoryFrames {
                retailChecked[key] = streamFrames
                out.append(o)
                continue
            }
            // zbar's box may cover only part of the symbol, off its centre (a misread's halves come from different
            // rows), and zxing missed such symbols in a region around the box: zxing looks at the whole pass image,
            // for this type only.
            // Only zxing's reads on this symbol count: with several codes of one type in view (a photo of four
            // ISBNs, Tests/Fixtures/photos), another symbol's read is no verdict on this one, and it replaced
            // this read with a second copy of that symbol's digits.
            let symbols = try ZXingReader.read(image.plane, types: [o.type]).filter { $0.type == o.type }
            let other = objects(in: symbols, pass: image, frameSize: frameSize).filter {
                Self.sameSymbol($0.bounds, o.bounds)
            }
            if other.isEmpty || other.contains(where: { $0.payload == payload }) {
                if streaming {
                    if retailChecked.count >= Self.rereadCacheSize { retailChecked.removeAll(keepingCapacity: true) }
                    retailChecked[key] = streamFrames
                }
                out.append(o)
            } else {
                confirmations["zxing replaced zbar", default: 0] += 1
                if let r = other.first { replacements.append((o, r)) }
            }
        }
        // A replacement with the digits of a read that stands, on the replaced read's symbol or zxing's, is a
        // second report of one code: a blurred UPC-E read right on 3 scan lines at one end and wrong on 2 lines of
        // the same end, whose bands were not one symbol by ``sameSymbol(_:_:)``, and zxing read the wrong one's
        // symbol as the right digits on rows 30 px lower (never-seen shelf 7711/197, a noise clip's frame).
        // Two replacements by one zxing read are one report too.
        for (o, r) in replacements
        where !out.contains(where: { k in
            k.type == r.type && k.payload == r.payload
                && [o.bounds, r.bounds].contains { Self.touch(k.bounds, $0) || Self.sameSymbol(k.bounds, $0) }
        }) {
            out.append(r)
        }
        return out
    }

    /// The conflict rule (``BarcodeConfiguration/resolveConflictingReads``) on zxing-cpp's own reads: zxing
    /// can read one blurred EAN/UPC symbol two ways on different rows (held-out shelf frames: UPC-E 07284151 on
    /// 7 lines and 12284117 on 3), and there is no second zxing to ask, so neither read is reported.
    func dropConflicts(_ found: [MetadataObject]) -> [MetadataObject] {
        guard configuration.resolveConflictingReads else { return found }
        let conflicted = Self.conflicted(found)
        guard !conflicted.isEmpty else { return found }
        confirmations["zxing conflict", default: 0] += 1
        return found.indices.filter { !conflicted.contains($0) }.map { found[$0] }
    }

    /// The indices of linear reads in `found` that another read of the same type, with another payload, shares a
    /// symbol with (``sameSymbol(_:_:)``): one symbol read two ways.
    static func conflicted(_ found: [MetadataObject]) -> Set<Int> {
        Set(
            found.indices.filter { i in
                found[i].type.isLinear
                    && found.indices.contains { j in
                        j != i && found[j].type == found[i].type && found[j].payload != found[i].payload
                            && sameSymbol(found[i].bounds, found[j].bounds)
                    }
            })
    }

    /// Whether two 1-D reads' boxes (normalized frame coordinates; zbar's are thin bands of scan-line
    /// crossings) lie on one symbol: they overlap along x and their centres are closer in y than the longer box
    /// is wide. Or both are end-only bands (zbar's points all at one end of the symbol: a box at least 4 times
    /// taller than wide, or 4 times wider than tall for a symbol read along y) at the same end (overlapping or
    /// side by side), with a gap between them across the bands no larger than the taller band: two readings of
    /// a blurred UPC-E on adjacent rows of a stream frame (2 lines each, one end, 7 pixels apart) were not one
    /// symbol by the centre rule, nor two 1-px bands in adjacent pixel columns (never-seen shelf 7711/197).
    static func sameSymbol(_ a: NormalizedRect, _ b: NormalizedRect) -> Bool {
        // Normalized units: far below a pixel of any frame, above the rounding of box edges.
        let touchTolerance = 1e-9
        let overlap = min(a.x + a.width, b.x + b.width) - max(a.x, b.x)
        if overlap > 0 && abs((a.y + a.height / 2) - (b.y + b.height / 2)) < max(a.width, b.width) { return true }
        // End-only bands a pixel wide may lie side by side: touching counts.
        if overlap >= -touchTolerance, a.height >= 4 * a.width, b.height >= 4 * b.width {
            let gap = max(a.y, b.y) - min(a.y + a.height, b.y + b.height)
            return gap <= max(a.height, b.height)
        }
        let overlapY = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
        if overlapY >= -touchTolerance, a.width >= 4 * a.height, b.width >= 4 * b.height {
            let gap = max(a.x, b.x) - min(a.x + a.width, b.x + b.width)
            return gap <= max(a.width, b.width)
        }
        return false
    }

    /// On streams: small retail payloads zxing did not contradict, with the stream frame they were last read in.
    private var retailChecked: [RereadKey: Int] = [:]

    /// Modules across EAN-13 (UPC-A), EAN-8 and UPC-E symbols, guards included.
    static let retailModules: [MetadataObjectType: Int] = [.ean13: 95, .ean8: 67, .upce: 51]

    // MARK: text

    /// The payload a check remembers its answer for (``conflictChecked``, ``retailChecked``).
    struct RereadKey: Hashable {
        var type: MetadataObjectType
        var bytes: [UInt8]
    }
    /// Whether the current frame is a stream frame (``detectStream(in:rectOfInterest:steps:deadline:)``).
    var streaming = false
    /// Stream frames read so far.
    var streamFrames = 0
    /// The most payloads a check remembers its answer for.
    static let rereadCacheSize = 64
    /// Stream frames a payload's answer is remembered for after it was last read.
    static let rereadMemoryFrames = 30

    /// The reader's text: decoding a payload, and zxing-cpp's re-reads of zbar's reads (``TextReader``).
    private var textReader: TextReader

    /// zxing-cpp re-reads of zbar reads for their text (``TextReader/refine(type:bytes:points:pass:frame:)``),
    /// for tests.
    var textRereads: Int { textReader.rereads }

    // MARK: zxing

    func scanZXing(
        _ pass: PassImage, types: Set<MetadataObjectType>, frameSize: PixelSize, quick: Bool = false,
        bothPolarities: Bool = false
    ) throws -> [MetadataObject] {
        guard !types.isEmpty else { return [] }
        return objects(
            in: try ZXingReader.read(pass.plane, types: types, quick: quick, bothPolarities: bothPolarities),
            pass: pass, frameSize: frameSize)
    }

    /// Whether zxing-cpp's UPC-E read `symbol` (corners in `plane`'s pixels; left and right edges at the
    /// symbol's ends, whichever way it reads) lies inside a longer symbol (``RetailQuietZone``), judged at both
    /// ends (with `edgeCounts`, an end at the plane's edge counts as inside: streams).
    static func upceInsideLongerSymbol(_ symbol: ZXingReader.Symbol, on plane: LumaPlane, edgeCounts: Bool = false)
        -> Bool
    {
        let c = symbol.corners
        guard c.count == 4 else { return false }
        let start = ((c[0].0 + c[3].0) / 2, (c[0].1 + c[3].1) / 2)
        let end = ((c[1].0 + c[2].0) / 2, (c[1].1 + c[2].1) / 2)
        let direction = (end.0 - start.0, end.1 - start.1)
        guard direction.0 * direction.0 + direction.1 * direction.1 >= 1 else { return false }
        return RetailQuietZone.insideLongerSymbol(on: plane, ends: c, direction: direction, edgeCounts: edgeCounts)
    }

    /// zxing-cpp symbols found in `pass` as metadata objects in frame coordinates (UPC-E reads inside a longer
    /// symbol dropped, ``BarcodeConfiguration/checkUPCEQuietZone``).
    private func objects(in symbols: [ZXingReader.Symbol], pass: PassImage, frameSize: PixelSize) -> [MetadataObject] {
        let frameWidth = Double(frameSize.width)
        let frameHeight = Double(frameSize.height)
        return symbols.compactMap { symbol -> MetadataObject? in
            if symbol.type == .upce, configuration.checkUPCEQuietZone,
                Self.upceInsideLongerSymbol(symbol, on: pass.plane, edgeCounts: streaming)
            {
                confirmations["UPC-E inside a longer symbol", default: 0] += 1
                return nil
            }
            var pts = symbol.corners
            if symbol.type.isLinear {
                // zxing gives a linear code's scan line; make it at least one pass pixel thick, as zbar's box.
                let ys = pts.map(\.1)
                if (ys.max() ?? 0) - (ys.min() ?? 0) < 1 {
                    pts[2].1 += 1
                    pts[3].1 += 1
                }
            }
            let corners = pts.map { p -> NormalizedPoint in
                let f = pass.toFrame(p.0, p.1)
                return NormalizedPoint(x: f.0 / frameWidth, y: f.1 / frameHeight)
            }
            var payload = symbol.bytes
            let (text, encoding) = textReader.decode(&payload, type: symbol.type, segments: symbol.segments)
            return MetadataObject(
                type: symbol.type, bounds: NormalizedRect(boundingPoints: corners), corners: corners,
                stringValue: text, payload: payload,
                quality: symbol.type.isLinear ? symbol.lineCount : nil,
                textEncoding: encoding, isGS1: symbol.isGS1)
        }
    }

    // MARK: type mapping

    /// Fragments of a longer read in the same frame:
    /// - Interleaved 2 of 5: a short I2/5 read that overlaps a longer one, or whose digits are part of a longer
    ///   read, is a partial decode of that longer code;
    /// - with `upceInsideEAN13` (``BarcodeConfiguration/checkUPCEQuietZone``), a UPC-E whose box overlaps or
    ///   touches an EAN-13/UPC-A read's box is that symbol's left half read as a UPC-E (docs/reader.md "UPC-E
    ///   inside EAN-13"): a real UPC-E's 51 modules cannot hold an EAN-13's 95.
    static func suppressFragments(_ objects: [MetadataObject], upceInsideEAN13: Bool = true) -> [MetadataObject] {
        let i25 = objects.filter { $0.type.family == .interleaved2of5 }
        let ean13 = upceInsideEAN13 ? objects.filter { $0.type == .ean13 } : []
        guard i25.count > 1 || (!ean13.isEmpty && objects.contains { $0.type == .upce }) else { return objects }
        return objects.filter { o in
            if o.type == .upce { return !ean13.contains { touch($0.bounds, o.bounds) } }
            guard o.type.family == .interleaved2of5, let p = o.payload else { return true }
            return !i25.contains { other in
                guard let q = other.payload, q.count > p.count else { return false }
                let contained = String(decoding: q, as: UTF8.self).contains(String(decoding: p, as: UTF8.self))
                return contained || other.bounds.intersection(o.bounds).area > 0.5 * o.bounds.area
            }
        }
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
