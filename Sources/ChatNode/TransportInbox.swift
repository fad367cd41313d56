import ChatCore

/// Transport events waiting for the node, oldest first: a FIFO with
/// amortised O(1) removal from the front.
struct TransportInbox: Sendable {
    private var events: [TransportEvent] = []
    private var head = 0

    var isEmpty: Bool { head == events.count }
    var count: Int { events.count - head }

    mutating func append(_ event: TransportEvent) { events.append(event) }

    /// The next event to handle alone (a peer joining, updating or
    /// leaving), or nil when the next one is a frame (take those with
    /// `takeFrames`).
    mutating func takeSingle() -> TransportEvent? {
        guard !isEmpty else { return nil }
        if case .received = events[head] { return nil }
        defer { advance(1) }
        return events[head]
    }

    /// The run of received frames at the front, at most `limit`, in arrival order.
    mutating func takeFrames(limit: Int) -> [(payload: P2PPayload, peer: NodeNumber)] {
        var frames: [(payload: P2PPayload, peer: NodeNumber)] = []
        while frames.count < limit, !isEmpty, case .received(let payload, let peer) = events[head] {
            frames.append((payload, peer))
            advance(1)
        }
        return frames
    }

    private mutating func advance(_ count: Int) {
        head += count
        if head == events.count {
            events.removeAll(keepingCapacity: events.capacity <= 4096)
            head = 0
        } else if head >= 1024, head * 2 >= events.count {
            events.removeFirst(head)
            head = 0
        }
    }
}
