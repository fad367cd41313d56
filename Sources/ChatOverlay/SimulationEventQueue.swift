/// A simulator's agenda: events by time, ties in the order scheduled, so
/// a run replays exactly whatever the heap's shape. A binary heap. Used by
/// the overlay's simulator (`Int64` nanoseconds) and by the tests'
/// simulated network (`Duration`).
///
/// `@inlinable`, so the overlay's simulator (built with -O) specialises it.
public struct SimulationEventQueue<Time: Comparable, Event> {
    public struct Entry {
        public let time: Time
        public let order: UInt64
        public let event: Event

        @inlinable init(time: Time, order: UInt64, event: Event) {
            self.time = time
            self.order = order
            self.event = event
        }

        @inlinable func before(_ other: Entry) -> Bool { time != other.time ? time < other.time : order < other.order }
    }

    @usableFromInline var heap: [Entry] = []
    @usableFromInline var scheduled: UInt64 = 0

    public init() {}

    @inlinable public var isEmpty: Bool { heap.isEmpty }
    @inlinable public var count: Int { heap.count }
    /// When the earliest event is due.
    @inlinable public var nextTime: Time? { heap.first?.time }

    @inlinable public mutating func schedule(_ event: Event, at time: Time) {
        scheduled += 1
        heap.append(Entry(time: time, order: scheduled, event: event))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].before(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Takes the earliest event (the first scheduled of a tie).
    @inlinable public mutating func pop() -> Entry? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let first = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].before(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].before(heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}

extension SimulationEventQueue: Sendable where Time: Sendable, Event: Sendable {}
extension SimulationEventQueue.Entry: Sendable where Time: Sendable, Event: Sendable {}
