import ChatCore

/// Ids a neighbour announced (IHAVE) and this node has not received, each
/// with who announced it and when to graft it (`Broadcast`). Bounded in
/// all (`capacity`) and per announcer (`perAnnouncer` entries made by one
/// peer's IHAVEs): one neighbour announcing ids it never sends cannot fill
/// the table and leave honest announcements unheard.
struct MissingIDs: Sendable {
    struct Entry: Sendable {
        /// Peers that announced the id, oldest first.
        var announcers: [NodeNumber]
        var deadline: Duration
        /// When the first announcement came.
        var announcedAt: Duration
        /// The peer last grafted, if the timer ran out once already.
        var grafted: NodeNumber?
        /// The announcer whose IHAVE made the entry.
        let creator: NodeNumber
    }

    let capacity: Int
    let perAnnouncer: Int
    private var entries: [MessageID: Entry] = [:]
    private var made: [NodeNumber: Int] = [:]

    init(capacity: Int) {
        self.capacity = capacity
        perAnnouncer = capacity / 4
    }

    var count: Int { entries.count }
    var ids: [MessageID] { entries.keys.sorted() }
    var nextDeadline: Duration? { entries.values.lazy.map(\.deadline).min() }

    /// An entry, updated in place (a new one only through `announce`).
    subscript(id: MessageID) -> Entry? {
        get { entries[id] }
        set {
            guard let newValue else { remove(id); return }
            guard entries[id] != nil else { return }
            entries[id] = newValue
        }
    }

    /// `peer` announced `id`: a new entry within the caps, or one more
    /// announcer (at most `announcersMax`) on the entry there is.
    mutating func announce(_ id: MessageID, by peer: NodeNumber, deadline: Duration, now: Duration, announcersMax: Int) {
        if var entry = entries[id] {
            guard entry.announcers.count < announcersMax, !entry.announcers.contains(peer) else { return }
            entry.announcers.append(peer)
            entries[id] = entry
        } else if entries.count < capacity, made[peer, default: 0] < perAnnouncer {
            entries[id] = Entry(announcers: [peer], deadline: deadline, announcedAt: now, creator: peer)
            made[peer, default: 0] += 1
        }
    }

    /// Removes `id`, and its creator's share.
    @discardableResult
    mutating func remove(_ id: MessageID) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if let share = made[entry.creator] {
            if share <= 1 { made.removeValue(forKey: entry.creator) } else { made[entry.creator] = share - 1 }
        }
        return entry
    }
}
