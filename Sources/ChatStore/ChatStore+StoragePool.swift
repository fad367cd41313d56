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
/// newest message), their authors' totals and the pool's; the search
/// index drops them through its delete trigger (rows above its mark were
/// never in it). Read markers are cursors, not rows, and stay valid.
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
        let pool = try poolUsage()
        guard pool.messages > 0 else { return 0 }
        let target = max(reclaim, budget.map { pool.bytes - $0 } ?? 0)
        guard target > 0 else { return 0 }
        let database = try db()
        // Up to which arrival number the oldest rows free `target`.
        let through = try database.withStatement(SQL.pooledOldest) { statement throws(StoreError) -> Int64? in
            try statement.bind(before, at: 1)
            var freed = 0
            var last: Int64?
            while freed < target, try statement.step() {
                last = statement.int64(0)
                freed += Int(statement.int64(1))
            }
            return last
        }
        guard let through else { return 0 }
        var deleted: [RoomID: [(cursor: HistoryCursor, sender: NodeNumber)]] = [:]
        var removed: [NodeNumber: AuthorDelta] = [:]
        var total = AuthorDelta()
        try database.withStatement(SQL.ageOutPooled) { statement throws(StoreError) in
            try statement.bind(through, at: 1)
            while try statement.step() {
                guard let name = statement.string(0), let room = RoomID(name), let id = statement.messageID(2),
                      let sender = NodeNumber(rawValue: UInt64(bitPattern: statement.int64(3))) else {
                    throw .malformedRow(table: "messages", reason: "an aged out row is not a message")
                }
                let bytes = Int(statement.int64(4))
                deleted[room, default: []].append((HistoryCursor(timestamp: statement.int64(1), id: id), sender))
                removed[sender, default: AuthorDelta()].add(bytes, pooled: true)
                total.add(bytes, pooled: true)
            }
        }
        try subtractUsage(removed)
        try addToPool(AuthorDelta(messages: -total.messages, bytes: -total.bytes))
        for (room, rows) in deleted {
            try leave(room, rows: rows, into: &result)
        }
        logger.debug("aged out \(total.messages) messages (\(total.bytes) bytes) of the shared pool")
        return total.bytes
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
