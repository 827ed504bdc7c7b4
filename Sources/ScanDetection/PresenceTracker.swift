public import ScanCore

/// Turns per-frame detections into presence transitions (`appeared` / `lost`), the kiosk behaviour:
/// a code value held in front of the camera gives exactly one `appeared` however many frames it is seen
/// in; `lost` follows once it has been absent for ``PresenceConfiguration/lostAfter``; showing it again
/// after ``PresenceConfiguration/cooldown`` gives a new `appeared`.
///
/// Codes are keyed by type and exact bytes (or text when zbar gives no bytes), so two codes with the same
/// value are one presence; with ``PresenceConfiguration/by`` `.instance`, by their `trackID` (``CodeTracker``),
/// so each symbol is one, with no cooldown (a new track is a new symbol). The duplicate filter
/// (``PresenceConfiguration/duplicateFilter``) then holds back an `appeared` of a value already reported
/// (once per run, or within a window), and the `lost` of that presence with it. Faces are keyed by `faceID` as assigned by a face tracker; a face tracker that
/// computes its own transitions can bypass this and hand ``PresenceEvent`` values to the pipeline instead.
/// All times are stream seconds (see ``PresenceConfiguration``). Use from one thread at a time.
public final class PresenceTracker {
    public var configuration: PresenceConfiguration
    /// Types whose presence another stage decides (a ``PresenceSource`` such as a face tracker); their
    /// objects are ignored here.
    public var externallyTracked: Set<MetadataObjectType> = []

    struct Key: Hashable {
        var type: MetadataObjectType
        var bytes: [UInt8]?
        var value: String?
        var faceID: Int?
        var trackID: Int?
    }

    struct Entry {
        var sightings = 0
        var present = false
        var lastSeen: Double
        /// Set after `lost`: no new `appeared` before this time.
        var suppressedUntil: Double?
        var last: MetadataObject
        var lastFrame: Int
        /// When the value was first tracked, to order simultaneous transitions deterministically.
        var order = 0
        /// Its `appeared` was held back by the duplicate filter: its `lost` is too.
        var silent = false
    }
    /// When each code value's last `appeared` was published (stream seconds), for the duplicate filter.
    private var lastReported: [Key: Double] = [:]
    private var nextOrder = 0

    private var entries: [Key: Entry] = [:]
    /// Frame times are sums of 1/fps; compare durations with this tolerance (seconds).
    static let epsilon = 1e-6

    public init(configuration: PresenceConfiguration = PresenceConfiguration()) {
        self.configuration = configuration
    }

    /// Number of code values and faces currently tracked (present, pending or cooling down).
    public var trackedCount: Int { entries.count }

    /// Values currently reported present.
    public var presentCount: Int { entries.values.filter { $0.present && !$0.silent }.count }

    func key(for object: MetadataObject) -> Key? {
        if object.type == .face {
            guard let id = object.faceID else { return nil }
            return Key(type: .face, faceID: id)
        }
        if configuration.by == .instance, let id = object.trackID { return Key(type: object.type, trackID: id) }
        return Self.valueKey(for: object)
    }

    /// A code's value: its type and exact bytes (or its text when there are no bytes).
    static func valueKey(for object: MetadataObject) -> Key? {
        if object.payload == nil && object.stringValue == nil { return nil }
        return Key(type: object.type, bytes: object.payload, value: object.payload == nil ? object.stringValue : nil)
    }

    /// Whether the duplicate filter publishes an `appeared` of `object` at `time`, and records it when it does.
    private func passesDuplicateFilter(_ object: MetadataObject, time: Double) -> Bool {
        guard object.type != .face, let value = Self.valueKey(for: object) else { return true }
        let last = lastReported[value]
        switch configuration.duplicateFilter {
        case .off: break
        case .once: if last != nil { return false }
        case .within(let seconds): if let last, time - last < seconds - Self.epsilon { return false }
        }
        lastReported[value] = time
        return true
    }

    /// Feeds the objects found on one frame at stream time `time`; returns the transitions, `lost` first
    /// (in key order), then `appeared` in the frame's object order.
    public func update(objects: [MetadataObject], source: String, frame: Int, time: Double) -> [PresenceEvent] {
        guard configuration.enabled else {
            entries.removeAll()
            return []
        }
        var seen = Set<Key>()
        var appeared: [PresenceEvent] = []
        for object in objects where !externallyTracked.contains(object.type) {
            guard let key = key(for: object), seen.insert(key).inserted else { continue }
            var entry: Entry
            if let existing = entries[key] {
                entry = existing
            } else {
                entry = Entry(lastSeen: time, last: object, lastFrame: frame, order: nextOrder)
                nextOrder += 1
            }
            entry.lastSeen = time
            entry.last = object
            entry.lastFrame = frame
            if let until = entry.suppressedUntil {
                if time < until - Self.epsilon {
                    entries[key] = entry
                    continue
                }
                entry.suppressedUntil = nil
                entry.sightings = 0
            }
            if !entry.present {
                entry.sightings += 1
                if entry.sightings >= configuration.appearAfterFrames {
                    entry.present = true
                    entry.silent = !passesDuplicateFilter(object, time: time)
                    if !entry.silent {
                        appeared.append(event(.appeared, object, source: source, frame: frame, time: time))
                    }
                }
            }
            entries[key] = entry
        }
        return expire(now: time, source: source, frame: frame, excluding: seen) + appeared
    }

    /// Reports `lost` for everything still present (end of stream, shutdown) and forgets all state.
    public func flush(source: String, frame: Int, time: Double) -> [PresenceEvent] {
        let out = entries.filter({ $0.value.present && !$0.value.silent }).sorted {
            ($0.value.lastSeen, $0.value.order) < ($1.value.lastSeen, $1.value.order)
        }.map {
            event(.lost, $0.value.last, source: source, frame: frame, time: time)
        }
        entries.removeAll()
        return out
    }

    private func expire(now: Double, source: String, frame: Int, excluding seen: Set<Key>) -> [PresenceEvent] {
        var lost: [(Double, Int, PresenceEvent)] = []
        for (key, var entry) in entries where !seen.contains(key) {
            let grace = key.type == .face ? configuration.faceLostAfter : configuration.lostAfter
            let absent = now - entry.lastSeen + Self.epsilon
            if entry.present {
                guard absent >= grace else { continue }
                if !entry.silent {
                    lost.append(
                        (entry.lastSeen, entry.order, event(.lost, entry.last, source: source, frame: frame, time: now))
                    )
                }
                if key.type == .face || key.trackID != nil || configuration.cooldown <= 0 {
                    entries[key] = nil
                } else {
                    entry.present = false
                    entry.silent = false
                    entry.sightings = 0
                    entry.suppressedUntil = now + configuration.cooldown
                    entries[key] = entry
                }
            } else if let until = entry.suppressedUntil {
                if now + Self.epsilon >= until && absent >= grace { entries[key] = nil }
            } else if absent >= grace {
                entries[key] = nil  // seen too few times to count, then gone
            }
        }
        return lost.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map(\.2)
    }

    private func event(
        _ transition: PresenceEvent.Transition, _ o: MetadataObject, source: String, frame: Int,
        time: Double
    ) -> PresenceEvent {
        PresenceEvent(
            transition: transition, type: o.type, value: o.stringValue, payload: o.payload,
            faceID: o.faceID, source: source, frame: frame, time: time, bounds: o.bounds,
            textEncoding: o.textEncoding, isGS1: o.isGS1,
            trackID: configuration.by == .instance && o.type != .face ? o.trackID : nil, sequence: o.sequence)
    }
}
