/// A bounded first-in first-out queue that makes room for a new item by dropping the oldest one, and counts
/// what it dropped: the one queue behind every bounded hand-off in scand (the frame queue, stdout's writer,
/// each socket and WebSocket client). A value type: its owner keeps it inside a ``Locked`` and decides how
/// to wait and whom to tell.
///
/// `capacity` is a count of items. ``overflow`` is the number dropped since the owner last took it with
/// ``takeOverflow()`` (what an `overflow` line reports); ``totalDropped`` counts since the queue was made.
public struct DropOldestQueue<Element> {
    /// Slots before `head` were taken and are nil, so a taken item (a frame: a megabyte or more) is
    /// released at once, not when the array is next compacted.
    private var items: [Element?] = []
    private var head = 0
    public let capacity: Int
    public private(set) var overflow = 0
    public private(set) var totalDropped = 0

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    public var count: Int { items.count - head }
    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count >= capacity }

    /// Adds `item` at the back, dropping the oldest item first when the queue is full. Returns how many
    /// items were dropped (0 or 1).
    @discardableResult
    public mutating func append(_ item: Element) -> Int {
        var dropped = 0
        if isFull {
            items[head] = nil
            head += 1
            dropped = 1
            overflow += 1
            totalDropped += 1
        }
        items.append(item)
        compact()
        return dropped
    }

    /// Removes and returns the oldest item, nil when empty.
    public mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = nil
        head += 1
        compact()
        return item
    }

    /// Removes and returns every item, oldest first.
    public mutating func removeAll() -> [Element] {
        let out = items[head...].map { $0! }
        items.removeAll(keepingCapacity: true)
        head = 0
        return out
    }

    /// The number dropped since the last call, which starts the count again.
    public mutating func takeOverflow() -> Int {
        defer { overflow = 0 }
        return overflow
    }

    private mutating func compact() {
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}

extension DropOldestQueue: Sendable where Element: Sendable {}
