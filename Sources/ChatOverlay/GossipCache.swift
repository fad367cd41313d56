import ChatCore

/// The messages a node keeps to answer GRAFTs and to tell new neighbours
/// about (`Broadcast`), at most `capacity`. When full, the oldest message
/// of the author holding the most goes, not the oldest of all: a flood
/// (one author or a few fresh identities) then turns over its own entries,
/// and another author's message stays long enough for a GRAFT to find it.
/// With the oldest of all going, six flooders at 2,000 a second turned
/// the 512 entries over in a fraction of a second; an honest joiner's
/// message was announced, grafted two seconds later (the graft wait had
/// learned the flood's lag), gone from every relay, and reached the
/// receiver only by catch-up (lan-test --overlay, sybil).
struct GossipCache: Sendable {
    private struct Entry: Sendable {
        var gossip: GossipMessage
        /// The order kept in (`idsOldestFirst`, ties between authors).
        let order: UInt64
    }

    let capacity: Int
    private var entries: [MessageID: Entry] = [:]
    /// Each author's cached ids, oldest first.
    private var byAuthor: [NodeNumber: [MessageID]] = [:]
    private var nextOrder: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    subscript(id: MessageID) -> GossipMessage? { entries[id]?.gossip }

    /// Keeps `gossip` (a message kept already is updated in place, as this
    /// node sends it on).
    mutating func keep(_ gossip: GossipMessage) {
        let id = gossip.id
        if entries[id] != nil {
            entries[id]!.gossip = gossip
            return
        }
        if entries.count >= capacity { evictFromLargest() }
        entries[id] = Entry(gossip: gossip, order: nextOrder)
        nextOrder += 1
        byAuthor[gossip.message.senderNumber, default: []].append(id)
    }

    /// The cached ids, oldest first.
    var idsOldestFirst: [MessageID] {
        entries.sorted { $0.value.order < $1.value.order }.map(\.key)
    }

    /// The author holding the most gives up its oldest; between equals, the
    /// one whose oldest is older (a scan of the authors: a few hundred at
    /// most, and deterministic for the simulator).
    private mutating func evictFromLargest() {
        var chosen: (author: NodeNumber, count: Int, oldest: UInt64)?
        for (author, ids) in byAuthor {
            guard let first = ids.first, let order = entries[first]?.order else { continue }
            if let best = chosen, ids.count < best.count || (ids.count == best.count && order > best.oldest) { continue }
            chosen = (author, ids.count, order)
        }
        guard let author = chosen?.author, var ids = byAuthor[author] else { return }
        entries.removeValue(forKey: ids.removeFirst())
        byAuthor[author] = ids.isEmpty ? nil : ids
    }
}
