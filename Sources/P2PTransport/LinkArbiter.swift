import ChatCore

/// Who dialled a link, seen from this node.
enum LinkDirection: Sendable, Hashable {
    /// The peer dialled us.
    case inbound
    /// We dialled the peer.
    case outbound
}

/// The fixed rules that keep exactly one link per pair of nodes, applied the
/// same way on both ends so they agree without talking:
///
/// 1. On discovery only the node with the lower number dials; the higher
///    one dials only if no link appeared within `fallbackDialDelay` (one-way
///    broadcast reachability). Static peers are dialled by both.
/// 2. If two links exist anyway (both dialled at once), the link dialled by
///    the LOWER node number survives.
/// 3. Two links dialled by the same side: the newer survives, since a node
///    only redials a peer when it believes the old link is dead.
enum LinkArbiter {
    enum Verdict: Sendable, Hashable {
        case keepExisting
        case replaceExisting
    }

    static func shouldDialOnDiscovery(local: NodeNumber, remote: NodeNumber) -> Bool {
        local < remote
    }

    /// Which of two links between `local` and `remote` survives.
    static func resolve(local: NodeNumber, remote: NodeNumber,
                        existing: LinkDirection, candidate: LinkDirection) -> Verdict {
        guard existing != candidate else { return .replaceExisting }
        let survivorIsOurs = local < remote
        return (candidate == .outbound) == survivorIsOurs ? .replaceExisting : .keepExisting
    }
}
