import ChatCore
import Foundation

/// Writing messages: one transaction per call or per commit, each row
/// counted to its author, its room and, if pooled, the pool.
extension ChatStore {
    /// Stores `message` and updates its room's row (newest message, count,
    /// unread if someone else wrote it after the read marker), in one
    /// transaction. Returns false if a message with its id is already stored:
    /// replays and echoes are ignored, the first copy wins.
    @discardableResult
    public func insert(_ message: Message) throws(StoreError) -> Bool {
        try insert(contentsOf: [message]) == 1
    }

    /// Stores many messages in one transaction (catch-up, import); returns
    /// how many were new. All or nothing: on error none are stored.
    @discardableResult
    public func insert(contentsOf messages: [Message]) throws(StoreError) -> Int {
        let added = try insertNew(messages).count
        foldSearchIndex(added: added)
        return added
    }

    /// Stores `messages` in one transaction (one commit, so one fsync with
    /// `.full` durability, however many there are) and returns the ids that
    /// were new; ids already stored, or repeated within `messages`, are
    /// ignored after their first copy. All or nothing: on error none are
    /// stored. The node group-commits received messages through this.
    @discardableResult
    public func insertNew(_ messages: [Message]) throws(StoreError) -> Set<MessageID> {
        var changes = StoreChanges()
        changes.messages = messages
        let database = try db()
        if messages.isEmpty { return [] }
        return try database.transaction { () throws(StoreError) -> StoreCommitResult in
            try insertRows(changes, reclaim: 0)
        }.added
    }

    /// Inserts `changes.messages` (pooled as it says), then ages the pool
    /// down to its budget and by `reclaim` more counted bytes; inside the
    /// caller's transaction.
    func insertRows(_ changes: StoreChanges, reclaim: Int, making room: RoomToMake? = nil) throws(StoreError) -> StoreCommitResult {
        let database = try db()
        let messages = changes.messages
        var result = StoreCommitResult()
        if messages.isEmpty { return result }
        let firstSeq = try lastSeq() + 1
        if let room { try makeRoom(room, for: changes, newest: firstSeq - 1, into: &result) }
        var seq = firstSeq - 1
        var rooms: [RoomID: RoomSummary] = [:]
        var added = Set<MessageID>(minimumCapacity: messages.count)
        var usage: [NodeNumber: AuthorDelta] = [:]
        var pool = AuthorDelta()
        let pooled = changes.pooled
        // One statement for the batch, reset per row (no cache lookup per row).
        // Per row: whether it is new, and whether it joins the pool.
        let inserted = try database.withStatement(SQL.insertMessage) { statement throws(StoreError) -> [(new: Bool, pooled: Bool)] in
            var inserted: [(new: Bool, pooled: Bool)] = []
            inserted.reserveCapacity(messages.count)
            for message in messages {
                defer { statement.reset() }
                let inPool = !pooled.isEmpty && pooled.contains(message.id)
                try Self.bind(message, to: statement)
                try statement.bind(seq + 1, at: 9)
                try statement.bind(inPool ? Int64(1) : nil, at: 13)
                try statement.run()
                let isNew = database.changes == 1
                if isNew { seq += 1 }
                inserted.append((isNew, inPool))
            }
            return inserted
        }
        for (message, row) in zip(messages, inserted) {
            guard row.new else {
                logger.trace("duplicate \(message.id) in \(message.room) ignored")
                continue
            }
            added.insert(message.id)
            let bytes = StorageUsage.bytes(of: message)
            let inPool = row.pooled
            usage[message.senderNumber, default: AuthorDelta()].add(bytes, pooled: inPool)
            if inPool { pool.add(bytes, pooled: true) }
            var summary: RoomSummary
            if let loaded = rooms[message.room] {
                summary = loaded
            } else {
                summary = try self.summary(of: message.room) ?? RoomSummary(room: message.room)
            }
            summary.absorb(message, localNumber: localNumber)
            rooms[message.room] = summary
        }
        for summary in rooms.values { try save(summary) }
        // Room made before the insert said these rooms' unread counts
        // without this commit's rows.
        for (room, summary) in rooms where result.unread[room] != nil { result.unread[room] = summary.unreadCount }
        try addUsage(usage, firstSeen: changes.now ?? Timestamp.millis(from: clock.now()))
        result.added = added
        if path == nil { try trim(rooms.keys, adding: messages, added: added) }
        guard !added.isEmpty else { return result }
        if pool.messages > 0 { try addToPool(pool) }
        // The newest rows, this commit's own, never age out: a new message
        // is always stored and shown, and the arrival numbers never go back.
        // A peer's commit short of room reclaims as fair shares allow
        // (ChatStore+FairShare.swift): its rows are counted in already.
        let fair = changes.ageingOrder.flatMap { $0.rank < .own ? $0 : nil }
        try ageOutPool(budget: changes.poolBudget, reclaim: fair == nil ? reclaim : 0, before: firstSeq, into: &result)
        if let fair { try makeFairRoom(target: reclaim, for: fair, incoming: 0, before: firstSeq, into: &result) }
        return result
    }
}
