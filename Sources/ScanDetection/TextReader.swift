import ScanCore

/// The reader's text component (``BarcodeDetector``): a read's text (Code 39 Full ASCII or Code 32 first when
/// configured, then ``TextDecoding``), and what zbar's data cannot say, asked of zxing-cpp on the symbol's
/// region (``refine(type:bytes:points:pass:frame:)``), with a stream's memory of zxing's answers.
///
/// A value type owned by one detector (not shared between threads).
struct TextReader {
    /// A zbar read as zxing-cpp confirmed it: its bytes, its character-set runs, its GS1 flag.
    typealias Refined = (bytes: [UInt8], segments: [TextDecoding.Segment], isGS1: Bool)
    typealias RereadKey = BarcodeDetector.RereadKey

    private let code39FullASCII: Bool?
    private let code32: Bool
    /// zxing-cpp re-reads made so far.
    private(set) var rereads = 0

    init(configuration: BarcodeConfiguration) {
        code39FullASCII = configuration.code39FullASCII
        code32 = configuration.code32
    }

    /// Forgets zxing's answers (a new input's codes are not the ones seen before).
    mutating func forget() { rereadCache.removeAll() }

    /// The text of a read: a Code 39's Full ASCII or Code 32 decoding first (`payload` becomes the decoded
    /// text), then ``TextDecoding``.
    func decode(_ payload: inout [UInt8], type: MetadataObjectType, segments: [TextDecoding.Segment]) -> (
        String?, TextEncoding?
    ) {
        _ = code39(&payload, type: type)
        return TextDecoding.decode(payload, type: type, segments: segments)
    }

    /// The other readings of a Code 39 (see ``BarcodeConfiguration/code39FullASCII`` and
    /// ``BarcodeConfiguration/code32``): `raw`, the characters as printed, when `payload` became their Full ASCII
    /// or Code 32 decoding; `fullASCII`, the Full ASCII reading, when `payload` stays as printed but reads as
    /// Full ASCII too. Both nil for any other symbology.
    func code39(_ payload: inout [UInt8], type: MetadataObjectType) -> (raw: String?, fullASCII: String?) {
        guard type == .code39 else { return (nil, nil) }
        let printed = String(decoding: payload, as: UTF8.self)
        if code39FullASCII != false, let full = TextDecoding.code39FullASCII(payload), full != payload {
            if code39FullASCII == true || TextDecoding.isEvidentlyFullASCII(payload) {
                payload = full
                return (printed, nil)
            }
            // Code 32 is 6 characters without `$ % / +`, so never Full ASCII as well.
            return (nil, String(decoding: full, as: UTF8.self))
        }
        if code32, let pharmacode = TextDecoding.code32(payload) {
            payload = pharmacode
            return (printed, nil)
        }
        return (nil, nil)
    }

    /// What zbar's data cannot say, asked of zxing-cpp on the symbol's region of the pass image:
    /// - a QR whose payload is not plain printable ASCII: its character-set runs (ECI designators, Kanji
    ///   mode), which zbar's binary mode drops;
    /// - a Code 128: its FNC4 characters (zbar 0.23 drops FNC4 and reports the character without its high
    ///   bit) and FNC1.
    /// zxing's read is used only when it is the same symbol: the same bytes (Code 128: the same bytes once
    /// the high bits are cleared). nil when zxing does not confirm it, or nothing is to be learnt. `frame` is
    /// the stream frame's number (zxing's answers are remembered across frames), nil on a still image.
    mutating func refine(
        type: MetadataObjectType, bytes: [UInt8], points: [(Double, Double)], pass: PassImage, frame: Int?
    ) -> Refined? {
        switch type {
        case .qr:
            guard !bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                return nil
            }
        case .code128: break
        default: return nil
        }
        guard !points.isEmpty else { return nil }
        // On a stream, a code in view is read frame after frame: zxing's answer is reused while the same
        // payload keeps being read (a failed re-read is retried at most `maximumRereadAttempts` times). Not on
        // still images: two symbols with the same bytes may differ in their runs (Kanji mode or byte mode, an
        // ECI or none), and separate images are separate symbols.
        guard let streamFrames = frame else { return reread(type: type, bytes: bytes, points: points, pass: pass) }
        let key = RereadKey(type: type, bytes: bytes)
        if var cached = rereadCache[key], streamFrames - cached.lastSeen <= BarcodeDetector.rereadMemoryFrames {
            cached.lastSeen = streamFrames
            rereadCache[key] = cached
            if let found = cached.found { return found }
            if cached.attempts >= Self.maximumRereadAttempts { return nil }
        } else {
            rereadCache[key] = nil
        }
        let found = reread(type: type, bytes: bytes, points: points, pass: pass)
        if rereadCache[key] == nil {
            rereadCache = rereadCache.filter { streamFrames - $0.value.lastSeen <= BarcodeDetector.rereadMemoryFrames }
            if rereadCache.count >= BarcodeDetector.rereadCacheSize { rereadCache.removeAll(keepingCapacity: true) }
        }
        var entry = rereadCache[key] ?? RereadResult(found: nil, attempts: 0, lastSeen: streamFrames)
        entry.attempts += 1
        entry.found = found
        entry.lastSeen = streamFrames
        rereadCache[key] = entry
        return found
    }

    struct RereadResult {
        var found: Refined?
        var attempts: Int
        /// The stream frame on which the payload was last read.
        var lastSeen: Int
    }
    /// On streams: zxing's answers for payloads zbar read, so a code held in view is re-read once, not on every
    /// frame. An answer is forgotten once its payload has not been read for ``rereadMemoryFrames`` frames.
    private var rereadCache: [RereadKey: RereadResult] = [:]
    static let maximumRereadAttempts = 3

    private mutating func reread(type: MetadataObjectType, bytes: [UInt8], points: [(Double, Double)], pass: PassImage)
        -> Refined?
    {
        let xs = points.map(\.0)
        let ys = points.map(\.1)
        let x0 = xs.min()!
        let x1 = xs.max()!
        let y0 = ys.min()!
        let y1 = ys.max()!
        let w = x1 - x0
        let h = y1 - y0
        // Room for the quiet zone and for zbar's polygon missing part of the symbol: QR a quarter of its size,
        // 1-D codes (zbar gives the scan lines' extent) a sixth of their length on each side and some height.
        let mx = type == .qr ? 0.25 * w + 8 : w / 6 + 16
        let my = type == .qr ? 0.25 * h + 8 : max(8, w / 8)
        let region = PixelRect(
            x: Int((x0 - mx).rounded(.down)), y: Int((y0 - my).rounded(.down)),
            width: Int((w + 2 * mx).rounded(.up)) + 1, height: Int((h + 2 * my).rounded(.up)) + 1)
        rereads += 1
        guard let symbols = try? ZXingReader.read(pass.plane, region: region, types: [type], quick: false) else {
            return nil
        }
        // zbar's binary mode still transcodes some ECI runs to UTF-8 (ECI 3–18, 20; not 21–24): then its
        // bytes are the text zxing decodes, not the payload.
        let zbarText = type == .qr ? String(validating: bytes, as: UTF8.self) : nil
        for symbol in symbols where symbol.type == type {
            let same =
                type == .code128
                ? symbol.bytes.map { $0 & 0x7F } == bytes
                : symbol.bytes == bytes
                    || (zbarText != nil
                        && TextDecoding.decode(symbol.bytes, type: type, segments: symbol.segments).text == zbarText)
            if same { return (symbol.bytes, symbol.segments, symbol.isGS1) }
        }
        return nil
    }
}
