internal import Foundation
internal import ScanCore

/// Reads the frames of a stream (video, Y4M, camera) within a budget: the plain zbar pass and the QR look on
/// every frame, then steps taken in rotation (``StreamScheduler``), with what recent frames tell (the conflict
/// rule across frames, reads waiting for a second sighting, the deskewed pass's bar directions).
final class StreamReader: PassReader {
    init(configuration: BarcodeConfiguration) { super.init(configuration: configuration, streaming: true) }

    /// Reads one stream frame (``BarcodeDetector/readStream(in:rectOfInterest:steps:deadline:)``).
    func read(in frame: Frame, rectOfInterest: NormalizedRect, steps: Int, deadline: MonotonicInstant?) throws
        -> BarcodeRead
    {
        try failingOnZBarErrors {
            try readStreamChecked(in: frame, rectOfInterest: rectOfInterest, steps: steps, deadline: deadline)
        }
    }

    /// Stream steps put off so far because they would have missed the frame's deadline.
    var deferredSteps: Int { scheduler.deferredSteps }

    /// Forgets what earlier frames tell (``BarcodeDetector/startStream()``).
    func start() {
        crossFrame.forget()
        streamPending = PendingReads()
        deskewMemo = nil
        conflictChecked.removeAll()
        retailChecked.removeAll()
        textReader.forget()
    }

    /// The stream step scheduler: the steps' rotation, their costs and deferrals, the step that last read.
    private lazy var scheduler = StreamScheduler(
        configuration: configuration, passes: effectivePasses, zbar: !zbarEnabled.isEmpty,
        zxing: !zxingEnabled.isEmpty)

    /// Every step after the plain zbar pass (``StreamScheduler/steps``).
    var streamSteps: [StreamStep] { scheduler.steps }

    /// ``StreamScheduler/largeFrameSteps``.
    var largeFrameStreamSteps: [StreamStep] { scheduler.largeFrameSteps }

    /// On streams: the bar directions the deskewed pass found, on which stream frame, for images of which size.
    private var deskewMemo: (frame: Int, size: PixelSize, degrees: [Double])?

    /// The steps a stream frame of `width`×`height` pixels rotates through (``StreamScheduler/steps(width:height:)``).
    func streamSteps(width: Int, height: Int) -> [StreamStep] { scheduler.steps(width: width, height: height) }

    /// ``StreamScheduler/downscaleDivisors(width:height:)``.
    func streamDownscaleDivisors(width: Int, height: Int) -> [Int] {
        scheduler.downscaleDivisors(width: width, height: height)
    }

    /// ``StreamScheduler/isLargeFrame(longSide:)``.
    func isLargeStreamFrame(longSide: Int) -> Bool { scheduler.isLargeFrame(longSide: longSide) }

    /// ``StreamScheduler/zbarDensity(_:density:large:)``.
    func zbarStepDensity(_ pass: ReaderPass, density: Int, large: Bool) -> Int {
        scheduler.zbarDensity(pass, density: density, large: large)
    }

    private func readStreamChecked(
        in frame: Frame, rectOfInterest: NormalizedRect, steps: Int, deadline: MonotonicInstant?
    )
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
            objects, frame: streamFrames, engine: configuration.engine, capacity: BarcodeDetector.rereadCacheSize,
            held: { self.confirmations[$0, default: 0] += 1 }, zxing: zxing)
    }

    private func readStreamFrame(
        in frame: Frame, rectOfInterest: NormalizedRect, steps: Int,
        deadline: MonotonicInstant?
    ) throws -> BarcodeRead {
        streamFrames += 1
        guard let base = startFrame(frame, rectOfInterest: rectOfInterest) else { return BarcodeRead() }
        let density = streamDensity(for: frame.size)
        let (plain, looked) = try plainPassAndQRLook(base, frameSize: frame.size, density: density)
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
            let started = MonotonicInstant.now
            defer { scheduler.record(step, took: started.elapsed) }
            guard let (image, levelDivisor) = streamStepImage(step, base: base, made: &images) else { continue }
            var found = try streamStepReads(
                step, image: image, levelDivisor: levelDivisor, base: base, frameSize: frame.size, density: density,
                large: large)
            found = BarcodeDetector.suppressFragments(
                found.filter(accept), upceInsideEAN13: configuration.checkUPCEQuietZone)
            if step.pass != .plain {
                // On a stream the second sighting may come from another step on a later frame: a candidate
                // is remembered for ``streamConfirmationFrames`` frames.
                streamPending.forget(olderThan: streamFrames - BarcodeDetector.streamConfirmationFrames)
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
                if let memo = deskewMemo, memo.size == size,
                    streamFrames - memo.frame < BarcodeDetector.deskewMemoryFrames
                {
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

    /// The plain zbar pass over `base` (the frame or its rect of interest) and the QR look after it
    /// (``streamQRLook(_:frameSize:after:)``). When the plain pass's lines are
    /// ``BarcodeDetector/parallelPlainPassDensity`` or more pixels apart (1920×1080 and larger), its rows, its
    /// columns and the QR look run at the same time (``concurrently(_:)``), and the rows' and columns' symbols are
    /// merged as one scan gives them (``ZBarReader/merged(rows:columns:)``): zbar's QR reader needs both
    /// directions in one scanner, so that plain pass reads no QR code, and the look always runs (with lines that
    /// far apart zbar's QR finder keeps almost no cluster anyway; docs/reader.md). The reads, the checks and
    /// the order of the objects are those of the plain pass followed by the look.
    private func plainPassAndQRLook(_ base: PassImage, frameSize: PixelSize, density: Int) throws -> (
        plain: [MetadataObject], looked: [MetadataObject]
    ) {
        guard !zbarEnabled.isEmpty, density >= BarcodeDetector.parallelPlainPassDensity else {
            var plain: [MetadataObject] = []
            if !zbarEnabled.isEmpty {
                plain = BarcodeDetector.suppressFragments(
                    try zbarReads(
                        base, pass: .plain, base: base, frameSize: frameSize, density: density, matrixOnly: false),
                    upceInsideEAN13: configuration.checkUPCEQuietZone)
            }
            return (plain, try streamQRLook(base, frameSize: frameSize, after: plain))
        }
        /// What one job made: a zbar scan of the plain pass's rows or columns, or the QR look's reads.
        enum Part {
            case plain(ZBarReader.Scan)
            case look(QRLookRead?)
        }
        let zbar = self.zbar
        let plane = base.plane
        let zxingLook = zxingEnabled.contains(.qr)
        var jobs: [() -> Part] = [
            { .plain(zbar.scan(plane, density: density, qrOnly: false, lines: .rows)) },
            { .plain(zbar.scan(plane, density: density, qrOnly: false, lines: .columns)) },
        ]
        if let size = qrLookSize(base, after: []) {
            jobs.append { .look(Self.qrLookRead(base, size: size, zbar: zbar, zxing: zxingLook)) }
        }
        let done = concurrently(jobs)
        guard case .plain(let rows) = done[0], case .plain(let columns) = done[1] else { return ([], []) }
        let scan = (ZBarReader.merged(rows: rows.symbols, columns: columns.symbols), rows.failure ?? columns.failure)
        let plain = BarcodeDetector.suppressFragments(
            try checkedZBarReads(
                objects(fromZBar: scan, pass: base, frameSize: frameSize), on: base, pass: .plain, base: base,
                frameSize: frameSize, density: density),
            upceInsideEAN13: configuration.checkUPCEQuietZone)
        var looked: [MetadataObject] = []
        if done.count > 2, case .look(let read?) = done[2] { looked = try qrLookObjects(read, frameSize: frameSize) }
        return (plain, looked)
    }

    /// The size of the image the QR look reads on `base`, after a plain pass that read `plain`: `base`'s own
    /// (nil size change) or smaller; nil when there is no look (off, QR not wanted, or the plain pass read one).
    private func qrLookSize(_ base: PassImage, after plain: [MetadataObject]) -> PixelSize?? {
        guard let lines = configuration.streamQRLookLines, lines > 0, enabledTypes.contains(.qr),
            !plain.contains(where: { $0.type == .qr })
        else { return nil }
        let width = base.plane.width
        let height = base.plane.height
        let short = min(width, height)
        guard short > lines else { return .some(nil) }
        let scale = Double(lines) / Double(short)
        return PixelSize(
            width: max(1, Int((Double(width) * scale).rounded())),
            height: max(1, Int((Double(height) * scale).rounded())))
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
        guard let size = qrLookSize(base, after: plain),
            let read = Self.qrLookRead(base, size: size, zbar: zbar, zxing: zxingEnabled.contains(.qr))
        else { return [] }
        return try qrLookObjects(read, frameSize: frameSize)
    }

    /// What the QR look read on its image, before it becomes metadata objects: zxing-cpp's symbols, or zbar's
    /// with `--engine zbar`.
    struct QRLookRead {
        var image: PassImage
        var zxing: Result<[ZXingReader.Symbol], any Error>?
        var zbar: ZBarReader.Scan?
    }

    /// The QR look's reading of `base` scaled to `size` (nil: its own size): touches no state of the reader, so it
    /// can run beside the plain pass (``plainPassAndQRLook(_:frameSize:density:)``). nil when the image cannot be
    /// made.
    private static func qrLookRead(_ base: PassImage, size: PixelSize?, zbar: ZBarReader, zxing: Bool) -> QRLookRead? {
        var image = base
        if let size {
            guard let level = base.resized(width: size.width, height: size.height, interpolation: 0) else { return nil }
            image = level
        }
        if zxing { return QRLookRead(image: image, zxing: Result { try ZXingReader.read(image.plane, types: [.qr]) }) }
        guard zbar.types.contains(.qr) else { return nil }
        return QRLookRead(image: image, zbar: zbar.scan(image.plane, density: 1, qrOnly: true))
    }

    /// The QR look's reads as metadata objects in frame coordinates, after the misread filters.
    private func qrLookObjects(_ read: QRLookRead, frameSize: PixelSize) throws -> [MetadataObject] {
        if let zxing = read.zxing {
            return dropConflicts(objects(in: try zxing.get(), pass: read.image, frameSize: frameSize)).filter(accept)
        }
        guard let scan = read.zbar else { return [] }
        return objects(fromZBar: scan, pass: read.image, frameSize: frameSize).filter(accept)
    }

    /// A pass image a stream frame has made, for another step on the same frame.
    private struct StreamImageKey: Hashable {
        var pass: ReaderPass
        var image: Int
    }

    /// Candidates from transformed stream steps, across frames.
    private var streamPending = PendingReads()
}

extension BarcodeDetector {
    /// Stream frames for which the deskewed pass's bar directions are used (the frame they were found on and the
    /// next ones): its steps (2 images × 2 engines) follow one another in the rotation, and a code in view
    /// turns little in 4 frames. Finding them costs 6 ms at 1280×720 on this machine.
    static let deskewMemoryFrames = 4

    /// Stream frames a read is remembered for (``CrossFrameMemory/rememberedFrames``).
    static var recentFrames: Int { CrossFrameMemory.rememberedFrames }

    /// Frames within which a second sighting confirms a transformed 1-D read on a stream.
    static let streamConfirmationFrames = 3

    /// The plain pass's line spacing (pixels) from which a stream frame's plain pass and QR look run at the same
    /// time (``StreamReader``): 5 at 1920×1080 and above (`streamScanDensity` 2 at 480 lines). zbar's QR finder
    /// reads only crisp QR codes there (zbarimg on clean symbols: up to 5 px apart, never 6), which the QR look
    /// reads as well; at 1280×720 (3 px) and below zbar's QR reads are kept and the look waits for them.
    static let parallelPlainPassDensity = 5
}
