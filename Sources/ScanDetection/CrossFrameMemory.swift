import ScanCore

/// The reader's memory across stream frames, one of ``BarcodeDetector``'s parts: the 1-D reads of the last
/// ``rememberedFrames`` stream frames, and the conflict rule across them
/// (``check(_:frame:engine:capacity:held:zxing:)``). Its state is only its own; the reader owns one, keeps it
/// for the length of an input and empties it when the frames start coming from another one
/// (``BarcodeDetector/startStream()``).
struct CrossFrameMemory {
    /// A 1-D read reported on a recent stream frame: type, payload, where (normalized frame coordinates: the box
    /// of its last read), the stream frame it was last read on, on how many frames it was read, and its boxes on
    /// the last ``rememberedFrames`` stream frames.
    struct RecentRead {
        var type: MetadataObjectType
        var payload: [UInt8]
        var bounds: NormalizedRect
        var lastFrame: Int
        var frames: Int
        /// Its boxes on the last ``rememberedFrames`` frames, with the stream frame of each, oldest first (one per
        /// read, so a frame that read it twice has two).
        var boxes: [(frame: Int, box: NormalizedRect)]
        /// On how many of the last ``rememberedFrames`` frames it was read.
        var recentFrameCount: Int {
            var count = 0
            var last = Int.min
            for b in boxes where b.frame != last {
                count += 1
                last = b.frame
            }
            return count
        }
        /// Its last box and, when it was read on an earlier frame within ``rememberedFrames``, its last box there.
        var lastTwoBoxes: [NormalizedRect] {
            [bounds] + (boxes.last { $0.frame < lastFrame }.map { [$0.box] } ?? [])
        }
        /// Its last full-width box: the last box at least ``fullBoxFraction`` as long as the one before, or not
        /// touching it (the code moved). zbar's box is the band of the points where its lines finished a read,
        /// so lines read one way give a band over one end only, and lines read both ways the whole symbol.
        var fullBox: NormalizedRect
        /// Where it lies (normalized frame coordinates): the union of its boxes on the last ``rememberedFrames``
        /// frames and its last full-width box, which its later boxes touch (``add(_:frame:)``): a symbol read
        /// only over one end for many frames after its last full-width read has not left the rest of its place.
        var place: NormalizedRect {
            boxes.reduce(fullBox) { $0.union($1.box) }
        }
        /// Records a box read on the current frame.
        mutating func add(_ box: NormalizedRect, frame: Int) {
            bounds = box
            boxes.append((frame, box))
            let long = { (r: NormalizedRect) in max(r.width, r.height) }
            if long(box) >= CrossFrameMemory.fullBoxFraction * long(fullBox) || !BarcodeDetector.touch(fullBox, box) {
                fullBox = box
            }
        }
    }
    /// The 1-D reads of the last ``rememberedFrames`` frames, oldest first (at most the capacity each call is given).
    private(set) var reads: [RecentRead] = []

    /// Stream frames a read is remembered for by ``check(_:frame:engine:capacity:held:zxing:)`` (half a second
    /// at 30 fps).
    static let rememberedFrames = 15
    /// The majority part of the conflict rule across frames holds a read back only while the other reading
    /// was read on one of this many frames before it: a code put in another's place waits at most this long.
    static let rivalRecency = 3
    /// A recent read's place or box is widened by this fraction of its longer side on every side when the
    /// conflict rules across frames ask whether a read lies on it (zbar's lines end a module or two apart from
    /// frame to frame).
    static let extentMargin = 0.05
    /// A box at least this fraction as long as a read's last full-width box is full-width too
    /// (``RecentRead/fullBox``).
    static let fullBoxFraction = 0.8
    /// A read lies on a recent read's place, for zxing's verdict across frames, when it touches the place
    /// widened by this fraction of its longer side (the code moves between frames: 4 px a frame for 6 frames
    /// of a pan left a blurred EAN-13's left-end misread 20 px outside its place).
    static let rivalMargin = 0.25

    /// Whether two linear types can be two readings of one symbol, for the conflict rules: one family
    /// (``MetadataObjectType/family``), or both EAN/UPC (a UPC-E or EAN-8 read can be part of an EAN-13's bars,
    /// docs/reader.md "UPC-E inside EAN-13").
    static func sameKind(_ a: MetadataObjectType, _ b: MetadataObjectType) -> Bool {
        a.family == b.family || (BarcodeDetector.retailModules[a] != nil && BarcodeDetector.retailModules[b] != nil)
    }

    /// Forgets every read (a new input starts).
    mutating func forget() { reads.removeAll() }

    /// The conflict rule (``BarcodeConfiguration/resolveConflictingReads``) across stream frames. A code in view
    /// is read on frame after frame, and a blurred one is now and then read as other digits on a few scan lines
    /// (a real UPC-E shelf label through an ffmpeg noise clip: 1 frame in 30 to 60; an EAN-13's left half as a
    /// UPC-E on 7 frames in 24), where no rule within the frame can see it. A 1-D payload read where, within the
    /// last ``rememberedFrames`` frames, another payload of the same kind (``sameKind(_:_:)``) was read on at least
    /// two frames is held back:
    /// - until it is read on a second frame, when it lies on that symbol (``BarcodeDetector/sameSymbol(_:_:)``
    ///   with the other's last box);
    /// - and for as long as the other was read on more of the last ``rememberedFrames`` frames than it and on
    ///   one of the last ``rivalRecency``, when their boxes overlap or touch (``BarcodeDetector/touch(_:_:)``,
    ///   with the other's last two boxes widened by ``extentMargin``: zbar's box is the band its lines crossed,
    ///   at one end or the other, and a band over the bars' lower ends missed one over the same symbol by 1 px);
    /// - a UPC-E, for as long as an EAN-13 read on its place (``RecentRead/place`` widened by
    ///   ``extentMargin``) is remembered: it is that EAN-13's left half (``RetailQuietZone``), read on frames
    ///   where only lines over the symbol's outer end read it.
    /// So a misread that recurs beside the right read is not reported while the right one is read more often.
    /// A new code shown where another one was is reported ``rivalRecency`` frames after the old one's last
    /// read, a UPC-E where an EAN-13 was ``rememberedFrames`` frames after it (bench/reader/stream_swap.py).
    ///
    /// `frame` is the stream frame's number (it grows by one a frame); `capacity` bounds how many reads are
    /// remembered (the oldest goes); `held` is told the reason of each read held back.
    ///
    /// With `zxing` (zxing-cpp's reads of the given types on the whole frame, in normalized frame coordinates;
    /// asked with ``BarcodeEngine/both`` only), a read that is not held back but lies near the place of a recent
    /// read with another payload of its kind (``RecentRead/place`` widened by ``rivalMargin``: the code moves) is
    /// checked against zxing's reads on its symbol (``BarcodeDetector/sameSymbol(_:_:)``) on this frame:
    /// - zxing reads it: reported;
    /// - zxing reads only other payloads there: not reported;
    /// - zxing reads nothing there: reported unless a rival on its own place (widened by ``extentMargin`` only)
    ///   was read on as many of the last ``rememberedFrames`` frames as it or more.
    /// zbar reads a blurred EAN-13's left half as other digits on about as many frames as the right ones (a
    /// panning clip at 1.2 px blur: 4 frames against 5), where neither majority nor recency can tell them apart.
    /// zxing is asked only on frames with such a rival.
    mutating func check(
        _ objects: [MetadataObject], frame now: Int, engine: BarcodeEngine, capacity: Int, held: (String) -> Void,
        zxing: (Set<MetadataObjectType>) throws -> [MetadataObject]
    ) rethrows -> [MetadataObject] {
        let entries = record(objects, frame: now, capacity: capacity)
        var out: [MetadataObject] = []
        for (o, entry) in zip(objects, entries) {
            guard let entry, entry >= 0 else {
                out.append(o)
                continue
            }
            let mine = reads[entry]
            if isHeldBack(mine, at: o.bounds, frame: now) {
                held("conflict with recent frames")
                continue
            }
            if engine == .both, ZXingReader.types.contains(o.type) {
                let rivals = reads.filter { r in
                    r.payload != mine.payload && Self.sameKind(r.type, mine.type)
                        && BarcodeDetector.touch(r.place.widened(by: Self.rivalMargin), o.bounds)
                }
                if !rivals.isEmpty {
                    let types = Set([o.type] + rivals.map(\.type)).filter { ZXingReader.types.contains($0) }
                    let verdict = try zxing(types).filter { BarcodeDetector.sameSymbol($0.bounds, o.bounds) }
                    if !verdict.isEmpty && !verdict.contains(where: { $0.type == o.type && $0.payload == mine.payload })
                    {
                        held("zxing disagrees across frames")
                        continue
                    }
                    // zxing reads nothing there: reported only when read on more recent frames than every rival
                    // on its own symbol (a code beside another of its kind is no rival for this).
                    if verdict.isEmpty
                        && rivals.contains(where: {
                            $0.recentFrameCount >= mine.recentFrameCount
                                && BarcodeDetector.touch($0.place.widened(by: Self.extentMargin), o.bounds)
                        })
                    {
                        held("tie across frames")
                        continue
                    }
                }
            }
            out.append(o)
        }
        return out
    }

    /// Records this frame's 1-D reads (before any is judged, so two readings on one frame count alike) after
    /// forgetting what is older than ``rememberedFrames``: for each object, the index of its entry in
    /// ``reads``, or nil when it is not a linear code with a payload. At most `capacity` reads are kept.
    private mutating func record(_ objects: [MetadataObject], frame now: Int, capacity: Int) -> [Int?] {
        reads.removeAll { now - $0.lastFrame > Self.rememberedFrames }
        for i in reads.indices { reads[i].boxes.removeAll { now - $0.frame >= Self.rememberedFrames } }
        var entries: [Int?] = []
        for o in objects {
            guard o.type.isLinear, let payload = o.payload else {
                entries.append(nil)
                continue
            }
            if let i = reads.firstIndex(where: {
                $0.type == o.type && $0.payload == payload && BarcodeDetector.sameSymbol($0.bounds, o.bounds)
            }) {
                if reads[i].lastFrame != now {
                    reads[i].frames += 1
                    reads[i].lastFrame = now
                }
                reads[i].add(o.bounds, frame: now)
                entries.append(i)
            } else {
                if reads.count >= capacity {
                    reads.removeFirst()
                    entries = entries.map { $0.map { $0 - 1 } }
                }
                reads.append(
                    RecentRead(
                        type: o.type, payload: payload, bounds: o.bounds, lastFrame: now, frames: 1,
                        boxes: [(now, o.bounds)], fullBox: o.bounds))
                entries.append(reads.count - 1)
            }
        }
        return entries
    }

    /// Whether `mine`, read at `bounds` on stream frame `now`, is held back by another payload of its kind
    /// (the three rules of ``check(_:frame:engine:capacity:held:zxing:)`` before zxing is asked).
    private func isHeldBack(_ mine: RecentRead, at bounds: NormalizedRect, frame now: Int) -> Bool {
        reads.contains { r in
            guard r.payload != mine.payload, Self.sameKind(r.type, mine.type) else { return false }
            if r.frames >= 2 && mine.frames < 2 && BarcodeDetector.sameSymbol(r.bounds, bounds) { return true }
            // A UPC-E on an EAN-13's place is its left half (the UPC-E check's case on a frame where only
            // the outer end's lines read): held back while the EAN-13 is remembered.
            if mine.type == .upce && r.type == .ean13
                && BarcodeDetector.touch(r.place.widened(by: Self.extentMargin), bounds)
            {
                return true
            }
            let count = r.recentFrameCount
            return count >= 2 && count > mine.recentFrameCount && now - r.lastFrame <= Self.rivalRecency
                && r.lastTwoBoxes.contains { BarcodeDetector.touch($0.widened(by: Self.extentMargin), bounds) }
        }
    }
}
