import ChatCore
import ChatWire

/// The answering side of catch-up as a value: how often each peer may
/// have a history request answered, the one request per peer that waits
/// for budget, and what one page may hold. No clock, store or socket: the
/// node passes the time and the stored rows in.
struct CatchUpServing: Sendable {
    /// Answering budget per asking peer.
    private var budget: [NodeNumber: TokenBucket] = [:]
    /// The request per peer waiting for budget.
    private(set) var deferred: [NodeNumber: P2PPayload] = [:]

    /// What to do with a history request.
    enum Admission: Sendable, Equatable {
        /// Within budget: answer now.
        case answer
        /// Over budget: it waits; the node answers it after `wait` (the
        /// time one request's budget takes to come back).
        case deferred(wait: Duration)
        /// Over budget, and it replaced a waiting one (that one is refused;
        /// the wake already scheduled answers this one).
        case replaced
    }

    /// Takes `request` from `peer` at `now` (uptime). Over budget it is
    /// answered later rather than never, or the asker's page chain would
    /// stop here; one request per peer waits, a newer one replaces it.
    mutating func admit(_ request: P2PPayload, from peer: NodeNumber, at now: Duration) -> Admission {
        var bucket = budget[peer] ?? TokenBucket(capacity: NodeLimits.catchUpBurst, perSecond: NodeLimits.catchUpRefillPerSecond)
        let allowed = bucket.take(at: now)
        budget[peer] = bucket
        if allowed { return .answer }
        if deferred.updateValue(request, forKey: peer) != nil { return .replaced }
        return .deferred(wait: .seconds(1 / NodeLimits.catchUpRefillPerSecond))
    }

    /// The request `peer` has waiting, taken out (nil if none).
    mutating func takeDeferred(from peer: NodeNumber) -> P2PPayload? {
        deferred.removeValue(forKey: peer)
    }

    // MARK: One page

    /// Messages one reply holds: what the peer asked for, at least one and
    /// never more than a full page (a peer may ask for any number).
    static func pageLimit(asked: Int?) -> Int {
        max(1, min(asked ?? NodeLimits.catchUpPageSize, NodeLimits.catchUpPageSize))
    }

    /// Where in our numbering the page starts: after the asker's cursor if
    /// it is one of this store (`epoch`); nil on first contact, or for a
    /// cursor from an earlier store of ours (see `firstContactStart`).
    static func start(after asked: CatchUpCursor?, epoch: String) -> Int64? {
        guard let asked, asked.epoch == epoch, asked.seq >= 0 else { return nil }
        return asked.seq
    }

    /// A first contact is offered only our newest messages.
    static func firstContactStart(lastSeq: Int64) -> Int64 {
        max(0, lastSeq - NodeLimits.catchUpFirstContact)
    }

    /// One reply's entries from `rows` (asked with `limit + 1`, so one row
    /// past the page says there is more), within `NodeLimits.catchUpReplyBytes`.
    /// A message not `relayable` is passed over, but the cursor moves past
    /// it, so the asker is not stuck on it.
    static func page(
        _ rows: [(seq: Int64, message: Message)], limit: Int, start: Int64, relayable: Set<MessageID>
    ) -> (frames: [P2PPayload], last: Int64, more: Bool) {
        var frames: [P2PPayload] = []
        var bytes = 512  // the reply's own fields
        var last = start
        var more = rows.count > limit
        for (seq, message) in rows.prefix(limit) {
            guard relayable.contains(message.id) else {
                last = seq
                continue
            }
            let frame = ChatNode.relayPayload(for: message)
            let size = P2PFrameCodec.encode(frame).count
            if bytes + size > NodeLimits.catchUpReplyBytes {
                more = true
                break
            }
            bytes += size
            frames.append(frame)
            last = seq
        }
        return (frames, last, more)
    }
}
