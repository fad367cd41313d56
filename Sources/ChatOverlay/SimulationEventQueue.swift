/// The simulator's agenda: events by time, ties in the order scheduled,
/// so a run replays exactly. A binary heap.
struct SimulationEventQueue {
    enum Event {
        /// `from` heard a beacon of `peer`.
        case heard(Int, peer: Int)
        /// `from` dialled `to`: the link opens now, or the dial fails.
        case connect(Int, to: Int)
        case linkUp(Int, peer: Int)
        case linkDown(Int, peer: Int)
        case frame(OverlayFrame, from: Int, to: Int)
        case tick(Int)
        case beacons
    }

    struct Entry {
        var time: Int64
        var order: UInt64
        var event: Event
        func before(_ other: Entry) -> Bool { time != other.time ? time < other.time : order < other.order }
    }

    private var heap: [Entry] = []
    private var scheduled: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var nextTime: Int64? { heap.first?.time }

    mutating func schedule(_ event: Event, at time: Int64) {
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

    mutating func pop() -> Entry? {
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
