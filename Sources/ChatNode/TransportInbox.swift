import ChatCore

/// Transport events waiting for the node, oldest first (a `FIFOQueue`).
struct TransportInbox: Sendable {
    private var events = FIFOQueue<TransportEvent>()

    var isEmpty: Bool { events.isEmpty }
    var count: Int { events.count }

    /// A batch of frames goes in as one `.received` each, so a run of
    /// frames can be cut anywhere (`takeReceived`).
    mutating func append(_ event: TransportEvent) {
        guard case .receivedFrames(let frames, let peer) = event else {
            events.append(event)
            return
        }
        for frame in frames { events.append(.received(frame, from: peer)) }
    }

    /// Whether the next event is a received frame (not a peer change).
    var startsWithFrame: Bool {
        if case .received? = events.first { true } else { false }
    }

    /// The next event to handle alone (a peer joining, updating or
    /// leaving), or nil when the next one is a frame (take those with
    /// `takeReceived`).
    mutating func takeSingle() -> PeerChange? {
        guard let event = events.first, let change = PeerChange(event) else { return nil }
        events.popFirst()
        return change
    }

    /// The run of received frames at the front, at most `limit`, in arrival order.
    mutating func takeReceived(limit: Int) -> [ReceivedFrame] {
        var frames: [ReceivedFrame] = []
        while frames.count < limit, case .received(let payload, let peer)? = events.first {
            frames.append((payload, peer))
            events.popFirst()
        }
        return frames
    }
}

/// A frame as it arrived (`TransportEvent.received`): the payload and the
/// peer whose link it came on.
typealias ReceivedFrame = (payload: P2PPayload, peer: NodeNumber)

/// A transport event about a peer rather than a frame: the node handles
/// each alone, in order, between runs of frames.
enum PeerChange: Sendable {
    case joined(PeerInfo)
    case updated(PeerInfo)
    case left(NodeNumber, PeerLeaveReason)

    /// Nil for a received frame.
    init?(_ event: TransportEvent) {
        switch event {
        case .peerJoined(let peer): self = .joined(peer)
        case .peerUpdated(let peer): self = .updated(peer)
        case .peerLeft(let number, let reason): self = .left(number, reason)
        case .received, .receivedFrames: return nil
        }
    }
}
