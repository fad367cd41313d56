/// A first-in first-out queue: `append` at the back, `popFirst` at the
/// front, both amortised O(1). The one queue the layers build on
/// (`BoundedBuffer`, the node's transport inbox, a link's output queue).
///
/// Elements live in an array from a head index on. A popped slot is
/// cleared at once (so the element is released), and the dead prefix is
/// cut off once it is at least half the array: each compaction moves no
/// more elements than were popped since the last one.
///
/// Inlinable: the node's inbox and the links' output queues live in other
/// modules, where a non-inlinable generic runs unspecialized (metadata
/// look-ups and witness calls on every append and pop).
public struct FIFOQueue<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    @inlinable public var count: Int { storage.count - head }
    @inlinable public var isEmpty: Bool { head == storage.count }

    @inlinable public mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the oldest element; nil when empty.
    @discardableResult
    @inlinable public mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        compact()
        return element
    }

    /// Removes and returns the elements from logical position `index` to
    /// the back, oldest first. O(count - index).
    @inlinable public mutating func popSuffix(from index: Int) -> [Element] {
        precondition(index >= 0 && index <= count, "index out of range")
        let taken = storage[(head + index)...].map { $0! }
        storage.removeSubrange((head + index)...)
        compact()
        return taken
    }

    /// Inserts `element` at logical position `index` (0 = the front). O(count).
    @inlinable public mutating func insert(_ element: Element, at index: Int) {
        precondition(index >= 0 && index <= count, "index out of range")
        if index == 0, head > 0 {
            // The slot before the head is free: reuse it.
            head -= 1
            storage[head] = element
        } else {
            storage.insert(element, at: head + index)
        }
    }

    @inlinable public mutating func removeAll() {
        storage.removeAll(keepingCapacity: storage.capacity <= Self.keptCapacity)
        head = 0
    }

    /// Slots the array holds, popped ones included (for tests of compaction).
    var storageSlots: Int { storage.count }

    /// The address of the array's buffer: it changes only when the buffer
    /// is reallocated or copied (diagnostics).
    var storageIdentity: Int {
        storage.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
    }

    /// Storage kept when the queue empties; a larger burst gives its
    /// memory back.
    @inlinable static var keptCapacity: Int { 4096 }

    @inlinable mutating func compact() {
        if head == storage.count {
            removeAll()
        } else if head >= 16, head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}

extension FIFOQueue: RandomAccessCollection {
    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    /// The element at logical position `position` (0 = the oldest).
    @inlinable public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "index out of range")
        return storage[head + position]!
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
