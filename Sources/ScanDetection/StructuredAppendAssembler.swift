public import ScanCore

/// Joins the parts of a structured-append sequence (QR; Data Matrix, Aztec and PDF417 macro where zxing-cpp
/// reads them) into the whole message, reported once as one object with the sequence's size
/// (``StructuredAppend`` with no index). Parts of one sequence share their type, size and identifier (QR: the
/// parity of the whole message).
///
/// - A still image: the parts it shows are joined when all of them are there.
/// - A stream: parts seen within ``window`` seconds of stream time are joined, on every frame that shows one of
///   them, once all have been seen (a ticket's three codes filmed one after another).
///
/// Parts that never complete stay as they are, marked as parts (`sequenceIndex`, `sequenceSize`). zbar reads a
/// whole QR sequence in one image and joins it itself (``ZBarReader``: the parts are its symbol's components);
/// its parts are then not reported again. Use from one thread at a time.
public final class StructuredAppendAssembler {
    /// Seconds of stream time a part is kept for the rest of its sequence.
    public var window: Double

    private struct Key: Hashable {
        var type: MetadataObjectType
        var size: Int
        var id: String
    }

    /// Parts seen on the stream: the object and when it was last seen, by place.
    private var parts: [Key: [Int: (object: MetadataObject, time: Double)]] = [:]
    private var source: String?

    public init(window: Double = 2.0) {
        self.window = window
    }

    /// A still image's objects with every complete sequence joined.
    public static func joined(_ objects: [MetadataObject]) -> [MetadataObject] {
        var found: [Key: [Int: MetadataObject]] = [:]
        for o in objects { if let (key, index) = part(o) { found[key, default: [:]][index] = o } }
        return replacing(objects, with: found.compactMapValues { whole($0) })
    }

    /// One stream frame's objects (of `source`, at stream time `time`, seconds) with the parts of every sequence
    /// complete within the window replaced by the whole.
    public func update(_ objects: [MetadataObject], source: String, time: Double) -> [MetadataObject] {
        if source != self.source {
            parts.removeAll()
            self.source = source
        }
        for (key, list) in parts {
            let kept = list.filter { time - $0.value.time <= window + 1e-6 && time >= $0.value.time }
            parts[key] = kept.isEmpty ? nil : kept
        }
        var here = Set<Key>()
        for o in objects {
            guard let (key, index) = Self.part(o) else { continue }
            parts[key, default: [:]][index] = (o, time)
            here.insert(key)
        }
        var wholes: [Key: MetadataObject] = [:]
        for key in here {
            if let w = Self.whole(parts[key]!.mapValues(\.object)) { wholes[key] = w }
        }
        return Self.replacing(objects, with: wholes)
    }

    /// `o`'s sequence and place, when it is a part.
    private static func part(_ o: MetadataObject) -> (Key, Int)? {
        guard let s = o.sequence, let index = s.index, s.size > 1, o.payload != nil else { return nil }
        return (Key(type: o.type, size: s.size, id: s.id), index)
    }

    /// The whole message of `parts` (by place), when every place is there: the payloads joined in order, the
    /// texts too (nil when a part has none), the box around the parts.
    private static func whole(_ parts: [Int: MetadataObject]) -> MetadataObject? {
        guard let first = parts[0], let s = first.sequence else { return nil }
        let ordered = (0..<s.size).compactMap { parts[$0] }
        guard ordered.count == s.size else { return nil }
        let payload = ordered.flatMap { $0.payload ?? [] }
        let texts = ordered.compactMap(\.stringValue)
        var charsets: [String] = []
        for o in ordered { if let c = o.textEncoding?.charset, !charsets.contains(c) { charsets.append(c) } }
        let x0 = ordered.map(\.bounds.x).min()!
        let y0 = ordered.map(\.bounds.y).min()!
        let x1 = ordered.map { $0.bounds.x + $0.bounds.width }.max()!
        let y1 = ordered.map { $0.bounds.y + $0.bounds.height }.max()!
        let corners = [
            NormalizedPoint(x: x0, y: y0), NormalizedPoint(x: x1, y: y0), NormalizedPoint(x: x1, y: y1),
            NormalizedPoint(x: x0, y: y1),
        ]
        return MetadataObject(
            type: first.type, bounds: NormalizedRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0), corners: corners,
            stringValue: texts.count == ordered.count ? texts.joined() : nil, payload: payload,
            textEncoding: first.textEncoding.map {
                TextEncoding(charset: charsets.joined(separator: ","), source: $0.source)
            },
            isGS1: first.isGS1, sequence: StructuredAppend(index: nil, size: s.size, id: s.id))
    }

    /// `objects` with the parts of each sequence in `wholes` replaced by its whole, where the first of them was
    /// (or left out, when the frame already holds that whole: zbar's own join).
    private static func replacing(
        _ objects: [MetadataObject], with wholes: [Key: MetadataObject]
    ) -> [MetadataObject] {
        guard !wholes.isEmpty else { return objects }
        var out: [MetadataObject] = []
        var placed = Set<Key>()
        for o in objects {
            guard let (key, _) = part(o), let w = wholes[key] else {
                out.append(o)
                continue
            }
            if placed.insert(key).inserted,
                !objects.contains(where: { $0.type == w.type && $0.payload == w.payload && $0.sequence?.index == nil })
            {
                out.append(w)
            }
        }
        return out
    }
}
