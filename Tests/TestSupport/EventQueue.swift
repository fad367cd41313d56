/// A priority queue of events by (due time, sequence): events due at the
/// same time come out in the order they were pushed, so a simulation's
/// order never depends on the heap's shape.
struct EventQueue<Event> {
    struct Entry {
        let due: Duration
        let sequence: UInt64
        let event: Event
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var count: Int { heap.count }
    var first: Entry? { heap.first }

    mutating func push(_ event: Event, due: Duration) {
        heap.append(Entry(due: due, sequence: nextSequence, event: event))
        nextSequence += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Event? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let entry = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.before(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return entry.event
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.due != b.due ? a.due < b.due : a.sequence < b.sequence
    }
}
