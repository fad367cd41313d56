import Foundation
import ChatCore

/// Deleting aged rows, whatever made room for what: the pool's oldest
/// (ChatStore+StoragePool.swift) and the tiers' (`AgeingOrder`, fair
/// shares) go through this one path.
extension ChatStore {
    /// Deletes the rows with these arrival numbers, and takes them out of
    /// their rooms, their authors' totals, the pool's and the search index.
    ///
    /// The index's deletions are written by one statement after the rows
    /// are gone, not by the delete trigger: FTS5 writes its pending terms
    /// at every savepoint, so the trigger wrote a segment per row, needing
    /// new pages before the deleted rows had freed any. A file with no
    /// free page then refused even the deletion, and a commit that ages
    /// out the pool first could never reach the rows that free pages. So
    /// the trigger is held off by moving the index's mark below every row
    /// for the deletion, and the mark is put back in the same transaction.
    func deleteAged(seqs: [Int64], into result: inout StoreCommitResult) throws(StoreError) {
        guard !seqs.isEmpty else { return }
        let database = try db()
        let mark = try database.withStatement(SQL.searchIndexedUpTo) { statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : 0
        }
        try setMark(-1, in: database)
        var deleted: [RoomID: [(cursor: HistoryCursor, sender: NodeNumber)]] = [:]
        var removed: [NodeNumber: AuthorDelta] = [:]
        var pool = AuthorDelta()
        var unindexed: [[String]] = []
        try database.withStatement(SQL.deleteBySeqs) { statement throws(StoreError) in
            try statement.bind("[" + seqs.map(String.init).joined(separator: ",") + "]", at: 1)
            while try statement.step() {
                guard let name = statement.string(0), let room = RoomID(name), let id = statement.messageID(2),
                      let sender = NodeNumber(rawValue: UInt64(bitPattern: statement.int64(3))) else {
                    throw .malformedRow(table: "messages", reason: "an aged out row is not a message")
                }
                let bytes = Int(statement.int64(4))
                let pooled = statement.int64(7) == 1
                deleted[room, default: []].append((HistoryCursor(timestamp: statement.int64(1), id: id), sender))
                removed[sender, default: AuthorDelta()].add(bytes, pooled: pooled)
                if pooled { pool.add(bytes, pooled: true) }
                let seq = statement.int64(5)
                if seq <= mark { unindexed.append([String(seq), statement.string(6) ?? ""]) }
            }
        }
        try setMark(mark, in: database)
        if !unindexed.isEmpty {
            guard let data = try? JSONEncoder().encode(unindexed), let json = String(data: data, encoding: .utf8) else {
                throw .malformedRow(table: "messages", reason: "aged out text could not be listed for the search index")
            }
            try database.withStatement(SQL.unindexSeqs) { statement throws(StoreError) in
                try statement.bind(json, at: 1)
                try statement.run()
            }
        }
        try subtractUsage(removed)
        if pool.messages > 0 { try addToPool(AuthorDelta(messages: -pool.messages, bytes: -pool.bytes)) }
        for (room, rows) in deleted {
            try leave(room, rows: rows, into: &result)
        }
    }

    private func setMark(_ mark: Int64, in database: SQLiteDatabase) throws(StoreError) {
        try database.withStatement(SQL.setSearchIndexedUpTo) { statement throws(StoreError) in
            try statement.bind(mark, at: 1)
            try statement.run()
        }
    }
}
