import ChatCore

/// Which linked peer the node catches up from, so each missing page is
/// fetched from one peer, not the same pages from every peer. Pure: the
/// node tells it what happened (a peer linked or left, a page was merged,
/// a request went unanswered) and performs the `CatchUpAsk` it returns.
///
/// A round starts when a peer links while none is running. One peer at a
/// time is the *source*; peers that link meanwhile wait in link order. The
/// first source runs a full chain (page after page until `more` is false):
/// that covers the gap. Each waiting peer is then only *probed*: small
/// pages from its own cursor. Messages only it holds (it was cut off from the
/// source, say) show up there as fresh, and then its chain runs in full;
/// `NodeLimits.catchUpIdlePagesBeforeYield` probe pages in a row with
/// nothing new end its turn, so it costs a few small pages instead of a
/// copy of the whole backlog. A source that leaves or does not
/// answer in time (`NodeOptions.catchUpTimeout`) hands over to the next
/// waiting peer, which takes over the full chain if the gap is not covered
/// yet; while it is not, the unanswered one waits again at the back, so a
/// slow single peer is asked again rather than dropped. A source whose
/// pages keep bringing nothing new (`NodeLimits.catchUpIdlePagesBeforeYield` in a row) yields
/// its turn to a waiting peer and waits at the back, its cursor kept, so
/// one peer answering `more` forever cannot keep the others from being
/// asked.
struct CatchUpRound: Sendable {
    enum Mode: Sendable, Equatable {
        /// Page after page until the peer says there is no more.
        case full
        /// One page of `NodeLimits.catchUpProbeSize`: go on only if it brings anything new.
        case probe
    }

    private(set) var source: CatchUpAsk?
    private(set) var waiting: [NodeNumber] = []
    /// A full chain completed in this round: the gap is covered.
    private(set) var covered = false
    /// The source's pages in a row that brought nothing new.
    private var idlePages = 0
    /// Peers whose chain runs in full even when the gap is covered: live
    /// messages of theirs were lost to a failed commit, and only their own
    /// pages are sure to hold them (`recover`). Left when such a chain ends.
    private(set) var fullChains: Set<NodeNumber> = []

    var isIdle: Bool { source == nil && waiting.isEmpty }

    /// `peer` linked: asked now if no one is, else it waits its turn.
    mutating func peerLinked(_ peer: NodeNumber) -> CatchUpAsk? {
        guard source?.peer != peer, !waiting.contains(peer) else { return nil }
        if source == nil {
            if waiting.isEmpty { covered = false }  // a new round
            source = CatchUpAsk(peer: peer, mode: mode(for: peer))
            return source
        }
        waiting.append(peer)
        return nil
    }

    /// Live messages from `peer` were lost to a failed commit: its chain
    /// runs in full, now if no one is asked, else in its turn.
    mutating func recover(_ peer: NodeNumber) -> CatchUpAsk? {
        fullChains.insert(peer)
        if source?.peer == peer {
            source?.mode = .full
            return nil
        }
        return peerLinked(peer)
    }

    /// `peer`'s link went down: out of the round; if it was the source, the
    /// next peer is asked.
    mutating func peerLeft(_ peer: NodeNumber) -> CatchUpAsk? {
        waiting.removeAll { $0 == peer }
        guard source?.peer == peer else { return nil }
        return advance()
    }

    /// The source did not answer in time: the next peer is asked. While
    /// the gap is not covered this one waits again at the back (it may only
    /// be slow, and may be the only one who can answer); a probe that goes
    /// unanswered is dropped, so a silent peer is not asked forever.
    mutating func timedOut(_ peer: NodeNumber) -> CatchUpAsk? {
        guard source?.peer == peer else { return nil }
        if !covered { waiting.append(peer) }
        return advance()
    }

    /// What follows a page from `peer` that brought `fresh` new messages.
    mutating func pageMerged(from peer: NodeNumber, fresh: Int, more: Bool) -> CatchUpNext {
        guard let current = source, current.peer == peer else { return .stop }
        idlePages = fresh > 0 ? 0 : idlePages + 1
        switch current.mode {
        case .full:
            if more, idlePages >= NodeLimits.catchUpIdlePagesBeforeYield, !waiting.isEmpty {
                waiting.append(peer)  // its turn comes again, from where it stopped
                return advance().map(CatchUpNext.ask) ?? .stop
            }
            if more { return .nextPage(.full) }
            covered = true
            fullChains.remove(peer)
        case .probe:
            if fresh > 0 {
                // It holds what the source did not: take all of it.
                source = CatchUpAsk(peer: peer, mode: .full)
                if more { return .nextPage(.full) }
            } else if more, idlePages < NodeLimits.catchUpIdlePagesBeforeYield {
                // Our cursor for it may be stale (it caught up itself since we
                // last asked), so its first pages can hold only what we have:
                // a few more small pages, not a copy of its backlog.
                return .nextPage(.probe)
            }
        }
        return advance().map(CatchUpNext.ask) ?? .stop
    }

    /// The next waiting peer becomes the source, or the round ends.
    private mutating func advance() -> CatchUpAsk? {
        idlePages = 0
        guard !waiting.isEmpty else {
            source = nil
            covered = false
            return nil
        }
        let next = waiting.removeFirst()
        source = CatchUpAsk(peer: next, mode: mode(for: next))
        return source
    }

    private func mode(for peer: NodeNumber) -> Mode {
        covered && !fullChains.contains(peer) ? .probe : .full
    }
}

/// Ask `peer` for the pages after our cursor for it, in `mode`.
struct CatchUpAsk: Sendable, Equatable {
    var peer: NodeNumber
    var mode: CatchUpRound.Mode
}

/// What the node does after merging a page.
enum CatchUpNext: Sendable, Equatable {
    /// Ask the same peer for its next page.
    case nextPage(CatchUpRound.Mode)
    /// Start on another peer.
    case ask(CatchUpAsk)
    /// The round is over (or the page was not the source's).
    case stop
}
