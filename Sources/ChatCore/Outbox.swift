/// Where an outgoing DM stands, as the sender sees it.
public enum DeliveryState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Stored locally; not yet written to the peer's link.
    case queued
    /// Written to the link at least once; no acknowledgement yet.
    case sent
    /// The peer stored it and said so.
    case delivered
    /// The peer declined the conversation; it will not be retried.
    case failed
    /// Stored, not sent: the verified key the peer's nickname belongs to is
    /// not the one it shows now. Waits for the user to confirm the new key
    /// (then queued) or to discard it.
    case held
    /// A held DM the user chose not to send: kept in the conversation, final.
    case discarded
}

extension DeliveryState {
    /// Rank in held < queued < sent < delivered; failed and discarded are final.
    public var rank: Int {
        switch self {
        case .held: -1
        case .queued: 0
        case .sent: 1
        case .delivered: 2
        case .failed: 3
        case .discarded: 4
        }
    }

    /// Whether a DM in this state may move to `next`: forward only; a held
    /// DM is released (queued, sent) or discarded, an outgoing one is never
    /// held or discarded, and delivered, failed and discarded never move.
    public func canMove(to next: DeliveryState) -> Bool {
        switch self {
        case .held: next == .queued || next == .sent || next == .discarded
        case .queued, .sent: next.rank > rank && next != .discarded
        case .delivered, .failed, .discarded: false
        }
    }
}

/// Outgoing DMs waiting for their acknowledgement, with the retry schedule:
/// a frame is re-sent after 1 s, 2 s, 4 s … up to 30 s while unacknowledged
/// (`ChatLimits.outboxFirstRetry`, `outboxMaxRetry`),
/// and at once when its peer links up again. Pure: the caller passes the
/// monotonic time and writes the frames `due(at:)` returns.
public struct Outbox: Sendable {
    public struct Entry: Hashable, Sendable {
        public var payload: P2PPayload
        public var state: DeliveryState
        public var attempts: Int
        /// Uptime at which to (re)send next.
        public var nextAttempt: Duration
    }

    public private(set) var entries: [MessageID: Entry] = [:]
    /// The ids in `entries` by target peer: a pump looks only at the peers
    /// linked now, so DMs waiting for peers that are away cost it nothing
    /// (it ran every 100 ms over every entry: 15 ms at 100k waiting).
    private var byPeer: [NodeNumber: Set<MessageID>] = [:]

    public init() {}

    public var count: Int { entries.count }

    /// The peers with DMs waiting.
    public var peers: Set<NodeNumber> { Set(byPeer.keys) }

    /// Adds a frame to deliver; it is due at once. Keeps the existing entry
    /// if the id is already queued.
    public mutating func enqueue(_ payload: P2PPayload, at now: Duration, state: DeliveryState = .queued) {
        guard entries[payload.messageId] == nil, let peer = payload.targetNumber else { return }
        entries[payload.messageId] = Entry(payload: payload, state: state, attempts: 0, nextAttempt: now)
        byPeer[peer, default: []].insert(payload.messageId)
    }

    /// Adds a frame the caller writes to its peer's link itself right now
    /// (first attempt made): it is retried on the usual schedule.
    public mutating func enqueueSent(_ payload: P2PPayload, at now: Duration) {
        guard entries[payload.messageId] == nil, let peer = payload.targetNumber else { return }
        entries[payload.messageId] = Entry(payload: payload, state: .sent, attempts: 1,
                                           nextAttempt: now + Self.backoff(afterAttempts: 1))
        byPeer[peer, default: []].insert(payload.messageId)
    }

    /// Frames whose time has come, oldest id first, only for peers in
    /// `reachable`. Each is marked sent and rescheduled with backoff.
    public mutating func due(at now: Duration, reachable: Set<NodeNumber>) -> [P2PPayload] {
        dueFrames(at: now, reachable: reachable).map(\.payload)
    }

    /// `due`, with whether each frame is going out for the first time.
    public mutating func dueFrames(at now: Duration, reachable: Set<NodeNumber>) -> [(payload: P2PPayload, first: Bool)] {
        var ready: [Entry] = []
        for peer in reachable {
            guard let ids = byPeer[peer] else { continue }
            for id in ids { if let entry = entries[id], entry.nextAttempt <= now { ready.append(entry) } }
        }
        ready.sort { $0.payload.messageId < $1.payload.messageId }
        for entry in ready {
            let id = entry.payload.messageId
            entries[id]?.attempts += 1
            entries[id]?.state = .sent
            entries[id]?.nextAttempt = now + Self.backoff(afterAttempts: entry.attempts + 1)
        }
        return ready.map { ($0.payload, $0.attempts == 0) }
    }

    /// The ids waiting for `peer`, oldest first.
    public func waiting(for peer: NodeNumber) -> [MessageID] {
        (byPeer[peer] ?? []).sorted()
    }

    /// The earliest time anything is due (for the caller's timer).
    public var nextDue: Duration? { entries.values.map(\.nextAttempt).min() }

    /// The peer acknowledged `id`: done with it. Returns the entry if it was here.
    @discardableResult
    public mutating func acknowledge(_ id: MessageID) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if let peer = entry.payload.targetNumber {
            byPeer[peer]?.remove(id)
            if byPeer[peer]?.isEmpty == true { byPeer[peer] = nil }
        }
        return entry
    }

    /// The peer linked up again: everything for it is due now.
    public mutating func peerReachable(_ peer: NodeNumber, at now: Duration) {
        for id in byPeer[peer] ?? [] { entries[id]?.nextAttempt = now }
    }

    /// Drops everything for `peer` (it declined); returns the dropped ids.
    public mutating func drop(peer: NodeNumber) -> [MessageID] {
        let ids = byPeer.removeValue(forKey: peer) ?? []
        for id in ids { entries.removeValue(forKey: id) }
        return ids.sorted()
    }

    /// `ChatLimits.outboxFirstRetry` doubled per attempt, capped at
    /// `ChatLimits.outboxMaxRetry` (1 s, 2 s, 4 s … 30 s).
    public static func backoff(afterAttempts attempts: Int) -> Duration {
        let exponent = min(max(attempts - 1, 0), 16)
        return min(ChatLimits.outboxFirstRetry * (1 << exponent), ChatLimits.outboxMaxRetry)
    }
}
