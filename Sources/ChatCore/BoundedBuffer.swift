/// A fixed-capacity ring buffer: appending to a full buffer drops the oldest
/// element. Append and removeFirst are O(1); storage is allocated once.
public struct BoundedBuffer<Element> {
    public let capacity: Int
    private var storage: [Element?]
    private var head = 0
    public private(set) var count = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "BoundedBuffer needs a positive capacity")
        self.capacity = capacity
        storage = Array(repeating: nil, count: capacity)
    }

    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == capacity }

    /// Appends `element`; returns the element dropped to make room, if any.
    @discardableResult
    public mutating func append(_ element: Element) -> Element? {
        if count < capacity {
            storage[physical(count)] = element
            count += 1
            return nil
        }
        let dropped = storage[head]
        storage[head] = element
        head = (head + 1) % capacity
        return dropped
    }

    /// Inserts `element` at logical position `index` (0 = oldest). A full
    /// buffer drops its oldest element first; inserting at 0 into a full
    /// buffer drops the new element itself, which is older than all kept.
    /// O(count). Returns the dropped element, if any.
    @discardableResult
    public mutating func insert(_ element: Element, at index: Int) -> Element? {
        precondition(index >= 0 && index <= count, "index out of range")
        if index == count { return append(element) }
        var dropped: Element?
        var index = index
        if isFull {
            if index == 0 { return element }
            dropped = removeFirst()
            index -= 1
        }
        // Shift the tail right by one, from the back.
        var position = count
        while position > index {
            storage[physical(position)] = storage[physical(position - 1)]
            position -= 1
        }
        storage[physical(index)] = element
        count += 1
        return dropped
    }

    @discardableResult
    public mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % capacity
        count -= 1
        return element
    }

    public mutating func removeAll() {
        storage = Array(repeating: nil, count: capacity)
        head = 0
        count = 0
    }

    public var first: Element? { count > 0 ? self[0] : nil }
    public var last: Element? { count > 0 ? self[count - 1] : nil }

    private func physical(_ logical: Int) -> Int { (head + logical) % capacity }
}

extension BoundedBuffer: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "index out of range")
        return storage[physical(position)]!
    }
}

extension BoundedBuffer: Sendable where Element: Sendable {}
