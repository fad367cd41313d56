import CSQLite
import ChatCore

/// The pool unknown authors share (the node decides who is unknown:
/// ChatNode+TrustPools.swift), and ageing out.
///
/// A commit inserts its rows first, then deletes the pool's oldest rows
/// until the pool is within its budget and, when the files are short of
/// room (`reclaimBeforeCommit`), by that much more. Never this commit's
/// own rows: a new message is always stored, and the arrival numbers
/// (catch-up cursors, the search mark) never go back. In the same
/// transaction, the deleted rows leave their rooms (count, unread, the
/// newest message), their authors' totals and the pool's, and the search
/// index (`deleteAged`). Read markers are cursors, not rows, and stay valid.
extension ChatStore {
    /// The pool's totals.
    public func poolUsage() throws(StoreError) -> StorageUsage {
        try db().withStatement(SQL.poolTotals) { statement throws(StoreError) in
            guard try statement.step() else { return StorageUsage() }
            return StorageUsage(messages: Int(statement.int64(0)), bytes: Int(statement.int64(1)))
        }
    }

    func addToPool(_ delta: AuthorDelta) throws(StoreError) {
        try db().withStatement(SQL.addToPool) { statement throws(StoreError) in
            try statement.bind(Int64(delta.messages), at: 1)
            try statement.bind(Int64(delta.bytes), at: 2)
            try statement.run()
        }
    }

    /// Takes `authors`' rows out of the pool: they are known now.
    func unpool(_ authors: Set<NodeNumber>) throws(StoreError) {
        let database = try db()
        var pool = AuthorDelta()
        var removed: [NodeNumber: AuthorDelta] = [:]
        for author in authors.sorted(by: { $0.rawValue < $1.rawValue }) {
            try database.withStatement(SQL.unpoolAuthor) { statement throws(StoreError) in
                try statement.bind(Int64(bitPattern: author.rawValue), at: 1)
                while try statement.step() {
                    pool.add(Int(statement.int64(0)), pooled: true)
                    removed[author, default: AuthorDelta()].pooled += 1
                }
            }
        }
        guard pool.messages > 0 else { return }
        try subtractUsage(removed)
        try addToPool(AuthorDelta(messages: -pool.messages, bytes: -pool.bytes))
        logger.debug("\(pool.messages) messages of \(removed.count) authors now known left the shared pool")
    }

    /// Deletes the pool's oldest rows stored before arrival `before` until
    /// it is within `budget` and `reclaim` counted bytes are freed. Returns
    /// the counted bytes it freed.
    @discardableResult
    func ageOutPool(budget: Int?, reclaim: Int, before: Int64, into result: inout StoreCommitResult) throws(StoreError) -> Int {
        let chosen = try poolCandidates(budget: budget, reclaim: reclaim, before: before)
        guard !chosen.seqs.isEmpty else { return 0 }
        try deleteAged(seqs: chosen.seqs, into: &result)
        logger.debug("aged out \(chosen.seqs.count) messages (\(chosen.bytes) bytes) of the shared pool")
        return chosen.bytes
    }

    /// The pool's oldest rows stored before arrival `before` that bring it
    /// within `budget` and free `reclaim` counted bytes, and those bytes.
    func poolCandidates(budget: Int?, reclaim: Int, before: Int64) throws(StoreError) -> (seqs: [Int64], bytes: Int) {
        let pool = try poolUsage()
        guard pool.messages > 0 else { return ([], 0) }
        let target = max(reclaim, budget.map { pool.bytes - $0 } ?? 0)
        guard target > 0 else { return ([], 0) }
        return try db().withStatement(SQL.pooledOldest) { statement throws(StoreError) in
            try statement.bind(before, at: 1)
            var seqs: [Int64] = []
            var freed = 0
            while freed < target, try statement.step() {
                seqs.append(statement.int64(0))
                freed += Int(statement.int64(1))
            }
            return (seqs, freed)
        }
    }

    /// The rooms table after `rows` of `room` were deleted.
    func leave(_ room: RoomID, rows: [(cursor: HistoryCursor, sender: NodeNumber)], into result: inout StoreCommitResult) throws(StoreError) {
        result.agedOut[room, default: []].append(contentsOf: rows.map(\.cursor.id))
        guard var summary = try summary(of: room) else { return }
        summary.messageCount = max(0, summary.messageCount - rows.count)
        let unread = rows.count { row in row.sender != localNumber && summary.readMarker.map { row.cursor > $0 } ?? true }
        summary.unreadCount = max(0, summary.unreadCount - unread)
        if let last = summary.lastMessage, rows.contains(where: { $0.cursor == last }) {
            let newest = try page(room, before: nil, limit: 1).last
            summary.lastMessage = newest.map(HistoryCursor.init)
            summary.lastSenderNickname = newest?.senderNickname
            summary.lastPreview = newest?.content
        }
        try save(summary)
        result.unread[room] = summary.unreadCount
    }
}

extension StoreError {
    /// The disk, or the history cap, is full.
    var isFull: Bool {
        if case .io(_, let code, _) = self { return code & 0xFF == SQLITE_FULL }
        return false
    }
}
