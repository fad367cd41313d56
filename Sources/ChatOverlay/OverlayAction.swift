import ChatCore

/// What the overlay asks its shell to do. In order: a `deliver` comes
/// before the sends that relay the same message, so a shell can commit it
/// to the store first and relay only what it kept.
public enum OverlayAction: Sendable, Hashable {
    /// Open a link to the peer; report `linkUp` (at once if one is up) or `linkDown`.
    case dial(NodeNumber)
    /// Close the link to the peer (the overlay no longer needs it).
    case close(NodeNumber)
    case send(OverlayFrame, to: NodeNumber)
    /// A new, verified public message: store and show it.
    case deliver(GossipMessage, from: NodeNumber)
}

/// What a peer did that changes its score (GossipSub v1.1's idea).
enum PeerNote: Sendable, Hashable {
    /// It delivered a message first.
    case firstDelivery
    /// It sent a message whose signature does not hold.
    case invalidMessage
    /// It announced an id, we grafted, and it never sent the message.
    case brokenPromise
    /// It sent more than its budget allows.
    case overBudget

    var weight: Double {
        switch self {
        case .firstDelivery: 1
        case .invalidMessage: -50
        case .brokenPromise: -4
        case .overBudget: -2
        }
    }
}
