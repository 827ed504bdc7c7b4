/// A process-wide source of identifiers (1, 2, 3, …), shared by trackers that must never hand out the same
/// one: the face trackers of several cameras in one `scand run` draw their `faceID`s from one sequence, and
/// the code trackers their `trackID`s from another, so no identifier is shared between cameras or reused
/// within a run.
public final class IdentifierSequence: Sendable {
    // Sendable: its only state is behind `Locked`'s lock.
    private let last = Locked(0)

    public init() {}

    /// The next identifier (the first is 1).
    public func next() -> Int {
        last.withLock {
            $0 += 1
            return $0
        }
    }
}

/// The identifier sequences of the trackers of one run (see ``IdentifierSequence``).
public struct TrackIdentifiers: Sendable {
    /// `faceID`s.
    public var faces = IdentifierSequence()
    /// Code `trackID`s.
    public var codes = IdentifierSequence()
    public init() {}
}
