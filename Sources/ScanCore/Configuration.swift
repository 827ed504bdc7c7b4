/// Which barcode engine reads codes.
public enum BarcodeEngine: String, Sendable, Hashable, CaseIterable {
    /// zbar only (no Data Matrix, Aztec, PDF417, Micro QR).
    case zbar
    /// zxing-cpp only.
    case zxing
    /// zbar first; zxing-cpp on passes where zbar found nothing, and always for the formats zbar cannot read.
    case both
}

/// One way of looking at a frame. The reader tries the passes in order on frames where nothing has decoded
/// yet and stops at the first pass that reads. Every pass reports geometry in the original frame's coordinates.
public enum ReaderPass: String, Sendable, Hashable, CaseIterable {
    /// The frame as captured.
    case plain
    /// Inverted luma (light-on-dark codes, dark-mode screens).
    case inverted
    /// Downscaled to half size by pixel averaging: removes moiré and noise (both polarities). On still images,
    /// further halvings and thirds down to ``BarcodeConfiguration/pyramidMinimumSide`` (large photos;
    /// ``BarcodeConfiguration/pyramidThirds``), then, on photos, a finer ladder of sizes for 2-D formats
    /// (``BarcodeConfiguration/matrixLadderSteps``).
    case downscaled
    /// Upscaled ×2 (small codes, ≈2 px per module); only for frames up to ``BarcodeConfiguration/maximumUpscaleSide``.
    case upscaled
    /// Locally (adaptively) thresholded: glare and uneven light (both polarities).
    case thresholded
    /// Upscaled ×2, then locally thresholded with a small block and a bias towards light: small 2-D codes under
    /// a specular band with moiré (phone screens). Reads 2-D codes only (QR, Micro QR, Data Matrix, Aztec,
    /// PDF417); only for frames up to ``BarcodeConfiguration/maximumUpscaleSide``.
    case upscaledThresholded = "upscaled-thresholded"
    /// Turned so that bar-like texture at an angle stands upright: 1-D codes at 7–83° from the frame's axes,
    /// whose bars are too short for zbar's horizontal and vertical scan lines to cross whole (up to two
    /// directions per frame, found from the image's gradients). Reads 1-D codes only.
    case deskewed

    /// The default order.
    public static let standard: [ReaderPass] = [
        .plain, .inverted, .downscaled, .upscaled, .thresholded, .deskewed, .upscaledThresholded,
    ]
}

/// How codes are read. Defaults read everything the engines can, including inverted codes.
public struct BarcodeConfiguration: Sendable, Hashable {
    /// Enabled code types (`metadataObjectTypes`, codes only).
    public var types: Set<MetadataObjectType>
    /// Try the inverted luma when nothing decodes (light-on-dark, dark-mode phone screens).
    /// When false, every inverted pass is skipped.
    public var tryInverted: Bool
    /// zbar scan density in pixels between scan lines (1 = every line; higher is faster, weaker on small 1-D codes).
    public var scanDensity: Int
    /// Minimum symbol length for Interleaved 2 of 5 (fragments of longer codes are shorter).
    public var minimumI25Length: Int
    /// Extra passes (downscaled, upscaled, thresholded, deskewed, upscaled-thresholded) on frames where nothing decodes. When false only
    /// `plain` and `inverted` run.
    public var extraPasses: Bool
    /// Engine(s) to read with.
    public var engine: BarcodeEngine
    /// The passes, in order (see ``ReaderPass``). `plain` always runs first whether listed or not.
    public var passes: [ReaderPass]
    /// Upscaling is skipped for frames (or rects of interest) whose longer side exceeds this, in pixels.
    public var maximumUpscaleSide: Int
    /// On still images the `downscaled` pass halves the image (or rect of interest) again and again while the
    /// next level's long side is at least this many pixels: a 4032×3024 photo is read at 2016, 1008 and 504 px
    /// on the long side, a 640×480 frame at 320 only. A code in a multi-megapixel photo spans hundreds of pixels
    /// under a lens blur of many pixels, which neither engine's binariser takes for edges until the image is
    /// brought to a few pixels per module (zxing-cpp's own `tryDownscale` pyramid does the same; scand runs
    /// its passes instead). `Int.max`: half size only. Streams read the half-size image only, unless their long
    /// side is at least ``streamPyramidSide``.
    public var pyramidMinimumSide: Int = 400
    /// On still images the `downscaled` pass also reads a third of the image and its halvings (⅓, ⅙, …, down to
    /// ``pyramidMinimumSide``) between the halvings: a 4032×3024 photo at 2016, 1344, 1008, 672 and 504 px on the
    /// long side. A blurred 2-D code reads at some scales and not at the next ones (the binariser meets its
    /// modules at a few pixels each); zxing-cpp's own `tryDownscale` steps by 3, scand's halvings by 2, and
    /// each read codes the other missed (docs/reader.md, "Thirds in the pyramid").
    public var pyramidThirds: Bool = true
    /// On still images whose long side is at least ``matrixLadderImageSide`` pixels, the `downscaled` pass
    /// ends with a finer ladder of sizes below half size, read by zxing-cpp for 2-D formats only (QR, Micro QR,
    /// Data Matrix, Aztec, PDF417), both polarities on one binarisation: the image scaled by 2^(−k/n) for
    /// k = n + 1, n + 2, … (n this value), without the halvings the pyramid has read, while the level's long
    /// side is at least ``matrixLadderMinimumSide``. A blurred 2-D code in a photo decodes at a narrow band of
    /// sizes (its modules at a few pixels each, the blur under one), which the pyramid's steps of 2 and 3 can
    /// jump over. A 2048×1536 photo gets 8 more levels (861, 724, 609, 431, 362, 304, 215 and 181 px on the
    /// long side); code-free photos take about 9 % longer (docs/reader.md, "A finer ladder for 2-D codes"). A
    /// PDF417 read there must be read again at a size near it. 1-D codes are not read there; streams are
    /// unchanged. 0: no ladder.
    public var matrixLadderSteps: Int = 4
    /// The smallest long side, in pixels, of a level of the ladder (``matrixLadderSteps``): zxing-cpp's own
    /// `tryDownscale` pyramid reads images down to about this size (a third of 500 px and more).
    public var matrixLadderMinimumSide: Int = 160
    /// Still images (or rects of interest) whose long side is at least this many pixels get the ladder
    /// (``matrixLadderSteps``): photos, whose codes span hundreds of pixels under a lens blur of several.
    /// Camera-sized frames (640×480, 720p) do not. `Int.max`: no ladder.
    public var matrixLadderImageSide: Int = 1200
    /// On still images whose long side (or rect of interest's) is at least this many pixels, the plain pass,
    /// when neither engine reads the image, has zxing-cpp read it at a third of its size, a ninth, … (zxing-cpp's
    /// own `tryDownscale` pyramid, which zxing-cpp reads by default: 4032×3024 also at 1344×1008 and 448×336),
    /// with the transformed reads' confirmation. A code in a phone photo spans hundreds of pixels under a lens blur
    /// of several, and is often read only at a smaller size: on the phone set (bench/reader/phone_photos.py) 11 of
    /// the 12 photos that only the later passes read are then read by the plain pass, each about a CPU-second
    /// sooner, with the same reads on every set (docs/reader.md, "The plain pass's smaller copies"). Smaller images
    /// (camera frames, VGA photos) are unchanged; streams never use it. `Int.max`: never.
    public var zxingDownscaleStillSide: Int = 1200
    /// Still images: after the plain pass, two readers read the passes' images at once on a machine of two cores
    /// or more, with the result of reading them in order (so a photo nothing reads at once takes about half the
    /// wall time, and about the same CPU). false: one after another on the calling thread.
    public var parallelStillPasses: Bool = true
    /// ``parallelStillPasses`` only for stills (or rects of interest) whose long side is at least this many
    /// pixels: a smaller image's steps take a few milliseconds each, and a second reader there cost 4 % more CPU
    /// (held-out 640×480 set, 195 images) for little wall time.
    public var parallelStillMinimumSide: Int = 1200
    /// On video and live streams, frames (or rects of interest) whose long side is at least this many pixels
    /// (1080p and up) read, in the `downscaled` pass, the levels a still image of their size is read at, not
    /// the half size only: 1920×1080 at 960, 640 and 480 px, 2592×1944 at 1296, 864, 648 and 432 px (see
    /// ``pyramidMinimumSide``, ``pyramidThirds``). Each level below half size, and its inverted twin, is one
    /// more zxing-cpp step in the stream's rotation; a frame still runs its one step. A blurred Data Matrix
    /// that a 5 MP camera shows at 8 px per module reads at some of these sizes and not at half size
    /// (docs/reader.md, "The pyramid on streams"). Smaller frames (720p, VGA) are unchanged. `Int.max`: half
    /// size only.
    public var streamPyramidSide: Int = 1920
    /// On still images zbar's scan-line spacing grows with the image it scans: every n-th line, n being the
    /// image's short side in pixels divided by this and rounded (at least ``scanDensity``). Images of up to 2249
    /// lines (every generated set, 5 MP photos, a 12 MP photo's pyramid levels) are scanned on every line, a
    /// 12 MP photo (3024 lines) on every 2nd, a 48 MP one on every 4th. A code in such a photo is hundreds of
    /// pixels tall, so it still meets dozens of lines; every line of 12 MP cost 0.6 s an image (docs/reader.md,
    /// "Large photos"). 1000 lost an inverted Code 128 of 2.5 px modules in a 2592×1944 photo. nil:
    /// ``scanDensity`` on every image. An explicit `--scan-density` (or config-file `scanDensity`) sets nil.
    public var stillScanLines: Int? = 1500
    /// On still images whose long side exceeds this many pixels, the `thresholded` pass binarises the half-size
    /// image (pixel-averaged) instead of the full one: a code in such a photo spans hundreds of pixels, and the
    /// full-size images (the binarised one and its inverted twin) cost about a second each at 12 MP
    /// (docs/reader.md, "Large photos"). Streams are unchanged. `Int.max`: full size always.
    public var largeStillSide: Int = 2048
    /// Minimum symbol length for Codabar, start/stop characters included.
    public var minimumCodabarLength: Int
    /// Require a valid mod-10 check digit on Interleaved 2 of 5 (the check digit is optional in the
    /// standard; ITF-14 always has one and is reported as `itf14`).
    public var requireI25Checksum: Bool
    /// Linear (1-D) codes read on fewer scan lines than this (zbar quality; zxing agreeing lines) are dropped.
    /// 0 keeps all. The default 2 removes most 1-D misreads at almost no cost in recall (docs/reader.md).
    public var minimumLinearQuality: Int
    /// zbar's uncertainty for linear codes (how many extra times a bar pattern must decode the same);
    /// nil keeps zbar's defaults.
    public var zbarUncertainty: Int?
    /// On video and live streams, report a linear (1-D) code only once it has been read in two frames
    /// within ``confirmationWindow`` frames. Still images are never filtered.
    public var confirmLinearCodes: Bool
    /// Frames within which the second sighting must come (≥ 2).
    public var confirmationWindow: Int
    /// On video and live streams: how many further reading steps (one pass image with one engine) a frame
    /// gets after the plain zbar pass finds nothing. The steps rotate from frame to frame, so a code held in
    /// view for a fraction of a second meets every pass, while each frame costs at most 1 + this many scans.
    /// nil: every pass on every frame, as for still images (which always get every pass).
    public var streamStepsPerFrame: Int?
    /// zbar's scan-line spacing on video and live streams of 480 lines, scaled with the frame's height
    /// (2 → 3 at 720p, 5 at 1080p); nil: ``scanDensity`` as it is. The default 2 halves zbar's cost per
    /// frame; a code in front of a camera is seen in many frames (docs/performance.md).
    public var streamScanDensity: Int?
    /// On video and live streams, every frame gets a QR look after the plain zbar pass (unless that pass read a
    /// QR code): zxing-cpp, QR only, on the frame scaled down so that its short side is at most this many pixels
    /// (1920×1080 is read at 1280×720, 3840×2160 at 1280×720; 720p and smaller frames at their own size), with
    /// zbar's QR reader on that image instead when zxing-cpp is off (`--engine zbar`). zbar's QR finder accepts a
    /// finder pattern only when the scan lines crossing it number at least a fixed fraction of its width in
    /// pixels, so it finds no QR code of any size once its lines are 5 or more pixels apart, which
    /// ``streamScanDensity`` gives at 1080p and up (docs/reader.md, "A clear QR code missed at 1080p"). nil: no
    /// QR look.
    public var streamQRLookLines: Int? = 720
    /// On video and live streams, the upscaled passes (`upscaled`, `upscaledThresholded`) run only on frames
    /// (or rects of interest) whose long side is at most this many pixels (nil: ``maximumUpscaleSide``).
    /// A 1280×720 camera already has twice a VGA camera's pixels per module, and doubling it costs 25–35 ms a
    /// step, which a code-free scene would pay on most frames (docs/performance.md).
    public var streamMaximumUpscaleSide: Int?
    /// On stream frames (or rects of interest) above ``streamMaximumUpscaleSide`` (large frames: 720p and up),
    /// zbar's steps on the full-size thresholded and deskewed images scan every n-th of the plain pass's scan
    /// lines: every 6th line at 720p for n = 2. Those four steps cost 18–21 ms each at 720p on the plain pass's
    /// lines, about half of it zbar's line filter, which scales with the lines, and they put a code-free
    /// frame's median step above 16 ms; a code in front of a camera is tens of lines tall there and is seen
    /// on many frames (docs/reader.md, "The 720p unpaced barcode p50"). The inverted frame keeps the plain pass's
    /// lines: on every 6th line zbar's QR finder misses a dark-mode QR of 5 px modules at 720p. Smaller frames,
    /// still images, the plain pass and the half-size images are unchanged. 1: the plain pass's spacing.
    public var largeFrameStepSpacing: Int = 2
    /// Decode Code 39 as Full ASCII: the pairs `+A`…`+Z`, `%A`…, `/A`…, `$A`… become lower case, punctuation
    /// and control characters ("E+X+T" → "Ext"); `value` and `bytes` then hold the decoded ASCII and `rawValue`
    /// the characters as printed. nil (the default): where the symbol is evidently Full ASCII
    /// (``TextDecoding/isEvidentlyFullASCII(_:)``: every pair valid, lower case spelled, not a HIBC code); where
    /// it is not but would read as Full ASCII, `value` stays as printed and `fullASCIIValue` gives the other
    /// reading. true: always; false: never (no `fullASCIIValue` either). A symbol with a `$ % / +` that starts
    /// no valid pair is plain Code 39 (docs/reader.md).
    public var code39FullASCII: Bool? = nil
    /// A linear (1-D) read from a transformed pass (inverted, downscaled, upscaled, thresholded) is reported
    /// only once confirmed: a second transformed image (on streams: a second frame) reads it too, it was read
    /// on at least 3 scan lines, the other engine reads the same value on that pass image or on the plain frame
    /// around the code, or zbar reads it again on the plain frame; and an EAN/UPC read confirmed only by
    /// agreement or scan lines must meet no other image of the frame reading other digits on its symbol.
    /// Blurred low-resolution EAN/UPC codes otherwise read as other digits with a valid check digit on those
    /// passes, and a skewed ITF-14 as a shorter Interleaved 2 of 5 (docs/reader.md, "Confirming transformed
    /// reads"). Plain-pass reads and 2-D codes (with their error correction) are never held back, nor are
    /// zxing-cpp's transformed 1-D reads of types other than EAN/UPC, Codabar and GS1 DataBar Expanded (each has
    /// a check character or a stricter structure; Codabar has neither, and zxing read a DataBar Expanded in a
    /// photo of a PDF417 symbol). On by default since 2026-11-24.
    public var confirmTransformedLinearReads: Bool = true
    /// On still images, report a 1-D code's corners and bounds out to the ends of its bars (followed across the
    /// bars from the scan lines that read it), as AVFoundation's cover the symbol, instead of the scan lines'
    /// box. Only the reported geometry changes. Streams keep the scan lines' box. On by default since
    /// 2026-11-28 (docs/geometry.md).
    public var extendLinearBounds: Bool = true
    /// The small-retail check: an EAN/UPC read by zbar with a module under 2.5 pixels gets zxing-cpp's read
    /// of the whole pass image, and zxing's other digits on the same symbol replace zbar's. Off by default:
    /// chosen on the tuned shelf set, on the held-out one it replaced a right read (zbar, 16 scan lines) with
    /// a wrong one (zxing, 5) (docs/reader.md).
    public var checkSmallRetailReads: Bool = false
    /// Two different payloads of one linear type read on one symbol (overlapping boxes, one pass image) are
    /// one symbol read two ways, so at least one is wrong: for zbar's reads zxing-cpp's read of that type on
    /// the same image decides, and with no zxing read neither is reported; zxing's own two readings are both
    /// dropped. On by default: zbar reads a blurred real photo of an ISBN both ways, the wrong way on more scan
    /// lines (docs/reader.md, "Real photos"). It costs one zxing call on the frames where it happens and
    /// nothing on the others. (EAN/UPC only until 2026-11-24.) On streams the rule also runs across frames:
    /// a 1-D read where another payload of the same kind was read on recent frames is held back until it is
    /// read on a second frame, and while the other was read on more of the last 15 frames and within the last
    /// 3; with both engines, a read on a recent other payload's place is reported only when zxing-cpp reads it
    /// there too, or reads nothing there and it was read on more recent frames than the other
    /// (`BarcodeDetector.checkAgainstRecentFrames`).
    public var resolveConflictingReads: Bool = true
    /// Drop a UPC-E read (zbar's or zxing-cpp's, any pass, stills and streams) that is part of a longer code:
    /// at one of its ends bars run on both ways, or more bars run on than a UPC-E has. That is the left half of
    /// an EAN-13/UPC-A that did not decode, whose centre guard and first bar look like a UPC-E end guard (one
    /// left half in ten then passes the UPC-E check digit). On by default: on the generated sets it removed
    /// such misreads and no right read (docs/reader.md, "UPC-E inside EAN-13"). It costs up to six line
    /// profiles per UPC-E read and nothing for other types. With it, a UPC-E read whose box overlaps an
    /// EAN-13/UPC-A read of the same image is dropped as that symbol's left half too (since 2026-11-25).
    public var checkUPCEQuietZone: Bool = true
    /// Decode Code 39 symbols that are Code 32 (Italian Pharmacode: 6 characters of its base-32 alphabet
    /// spelling 9 digits with a valid check digit) as "A" and the 9 digits, as printed under them; `value` and
    /// `bytes` then hold that text (the type stays `code39`) and `rawValue` the 6 characters as printed, so
    /// nothing is lost when a 6-character Code 39 passes the test by chance (about 1 in 60 random ones do).
    /// On by default since 2026-11-29 (zxing-cpp 3 reports such symbols as Code 32 the same way).
    public var code32: Bool = true

    public init(
        types: Set<MetadataObjectType> = Set(MetadataObjectType.allCases.filter(\.isMachineReadableCode)),
        tryInverted: Bool = true, scanDensity: Int = 1, minimumI25Length: Int = 6, extraPasses: Bool = true,
        engine: BarcodeEngine = .both, passes: [ReaderPass] = ReaderPass.standard,
        maximumUpscaleSide: Int = 1280, minimumCodabarLength: Int = 6, requireI25Checksum: Bool = false,
        minimumLinearQuality: Int = 2, zbarUncertainty: Int? = nil,
        confirmLinearCodes: Bool = false, confirmationWindow: Int = 3, streamStepsPerFrame: Int? = 1,
        streamScanDensity: Int? = 2, streamMaximumUpscaleSide: Int? = 960
    ) {
        self.types = types
        self.tryInverted = tryInverted
        self.scanDensity = scanDensity
        self.minimumI25Length = minimumI25Length
        self.extraPasses = extraPasses
        self.engine = engine
        self.passes = passes
        self.maximumUpscaleSide = maximumUpscaleSide
        self.minimumCodabarLength = minimumCodabarLength
        self.requireI25Checksum = requireI25Checksum
        self.minimumLinearQuality = minimumLinearQuality
        self.zbarUncertainty = zbarUncertainty
        self.confirmLinearCodes = confirmLinearCodes
        self.confirmationWindow = confirmationWindow
        self.streamStepsPerFrame = streamStepsPerFrame
        self.streamScanDensity = streamScanDensity
        self.streamMaximumUpscaleSide = streamMaximumUpscaleSide
    }
}

/// Where scand looks for its model files.
public struct ModelConfiguration: Sendable, Hashable {
    /// An explicit directory (`--models`), tried first.
    public var directory: String?
    public init(directory: String? = nil) { self.directory = directory }
}
