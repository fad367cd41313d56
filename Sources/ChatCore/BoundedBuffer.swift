/// A queue of at most `capacity` elements: appending to a full buffer
/// drops the oldest element. Append and removeFirst are amortised O(1)
/// (a `FIFOQueue` underneath).
public struct BoundedBuffer<Element> {
    public let capacity: Int
    private var queue = FIFOQueue<Element>()

    public init(capacity: Int) {
        precondition(capacity > 0, "BoundedBuffer needs a positive capacity")
        self.capacity = capacity
    }

    public var count: Int { queue.count }
    public var isEmpty: Bool { queue.isEmpty }
    public var isFull: Bool { queue.count == capacity }

    /// Appends `element`; returns the element dropped to make room, if any.
    @discardableResult
    public mutating func append(_ element: Element) -> Element? {
        let dropped = isFull ? queue.popFirst() : nil
        queue.append(element)
        return dropped
    }

    /// Inserts `element` at logical position `index` (0 = oldest). A full
    /// buffer drops its oldest element first; inserting at 0 into a full
    /// buffer drops the new element itself, which is older than all kept.
    /// O(count). Returns the dropped element, if any.
    @discardableResult
    public mutating func insert(_ element: Element, at index: Int) -> Element? {
        precondition(index >= 0 && index <= count, "index out of range")
        guard isFull else {
            queue.insert(element, at: index)
            return nil
        }
        if index == 0 { return element }
        let dropped = queue.popFirst()
        queue.insert(element, at: index - 1)
        return dropped
    }

    @discardableResult
    public mutating func removeFirst() -> Element? { queue.popFirst() }

    public mutating func removeAll() { queue.removeAll() }

    public var first: Element? { queue.first }

    /// Identifies the buffer the elements live in; it changes only when the
    /// buffer is reallocated or copied (diagnostics).
    public var storageIdentity: Int { queue.storageIdentity }
    public var last: Element? { queue.last }
}

extension BoundedBuffer: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { queue.count }

    public subscript(position: Int) -> Element { queue[position] }
}

extension BoundedBuffer: Sendable where Element: Sendable {}
