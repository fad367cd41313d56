import Foundation
import ChatCore

/// Room for the user's own messages when the files are full
/// (`AgeingOrder`): after the pool, the oldest rows of the other tiers, in
/// the commit's own transaction, before its rows are inserted. Rows leave
/// their rooms and authors' totals as the pool's do; read or unread alike
/// (a row kept because it is unread would let a few known peers hold the
/// cap against the user's own sends for ever).
extension ChatStore {
    /// One tier's candidates: arrival number and counted bytes, oldest first.
    private typealias Tier = [(seq: Int64, bytes: Int)]

    /// Ages out at least `target` counted bytes (if the tiers hold that
    /// much) of rows stored before arrival `before`, from the first
    /// `tiers` tiers (known peers', verified peers', the user's own
    /// public), never more than `atMost`. Returns what it freed.
    @discardableResult
    func ageOut(
        for order: AgeingOrder, tiers allowed: Int = 3, target: Int, atMost: Int = .max, before: Int64,
        into result: inout StoreCommitResult
    ) throws(StoreError) -> Int {
        guard target > 0 else { return 0 }
        let database = try db()
        let me = Int64(bitPattern: localNumber.rawValue)
        let verified = Set(order.verified.map { Int64(bitPattern: $0.rawValue) })
        let kept = Set(order.conversations.map(\.description))
        let publicRoom = RoomID.publicRoom.description
        // Known peers', verified peers', the user's own public.
        var tiers: [Tier] = [[], [], []]
        var knownBytes = 0
        try database.withStatement(SQL.unpooledOldest) { statement throws(StoreError) in
            try statement.bind(before, at: 1)
            while knownBytes < target, try statement.step() {
                let seq = statement.int64(0), sender = statement.int64(2), bytes = Int(statement.int64(3))
                let room = statement.string(1) ?? ""
                if sender == me {
                    if room == publicRoom { tiers[2].append((seq, bytes)) }
                } else if !kept.contains(room) {
                    if verified.contains(sender) {
                        tiers[1].append((seq, bytes))
                    } else {
                        tiers[0].append((seq, bytes))
                        knownBytes += bytes
                    }
                }
            }
        }
        var chosen: [Int64] = []
        var freed = 0
        var taken = [0, 0, 0]
        for (index, tier) in tiers.prefix(allowed).enumerated() {
            for row in tier {
                guard freed < target, row.bytes <= atMost - freed else { break }
                chosen.append(row.seq)
                freed += row.bytes
                taken[index] += 1
            }
        }
        guard !chosen.isEmpty else { return 0 }
        try delete(seqs: chosen, into: &result)
        let whose = order.rank == .own ? "the user's own messages" : "\(order.rank) peers' messages"
        logger.notice("to store \(whose), aged out \(taken[0]) messages of known peers, \(taken[1]) of verified peers and \(taken[2]) of the user's own public ones (\(freed) bytes)")
        return freed
    }

    /// Deletes the rows with these arrival numbers (none in the pool), and
    /// takes them out of their rooms, authors' totals and the search index.
    ///
    /// The index's deletions are written by one statement after the rows
    /// are gone, not by the delete trigger: FTS5 writes its pending terms
    /// at every savepoint, so the trigger wrote a segment per row, needing
    /// new pages before the deleted rows had freed any, and a file with no
    /// free page refused even the deletion. So the trigger is held off by
    /// moving the index's mark below every row for the deletion, and the
    /// mark is put back in the same transaction.
    private func delete(seqs: [Int64], into result: inout StoreCommitResult) throws(StoreError) {
        let database = try db()
        let mark = try database.withStatement(SQL.searchIndexedUpTo) { statement throws(StoreError) in
            try statement.step() ? statement.int64(0) : 0
        }
        try setMark(-1, in: database)
        var deleted: [RoomID: [(cursor: HistoryCursor, sender: NodeNumber)]] = [:]
        var removed: [NodeNumber: AuthorDelta] = [:]
        var unindexed: [[String]] = []
        try database.withStatement(SQL.deleteBySeqs) { statement throws(StoreError) in
            try statement.bind("[" + seqs.map(String.init).joined(separator: ",") + "]", at: 1)
            while try statement.step() {
                guard let name = statement.string(0), let room = RoomID(name), let id = statement.messageID(2),
                      let sender = NodeNumber(rawValue: UInt64(bitPattern: statement.int64(3))) else {
                    throw .malformedRow(table: "messages", reason: "an aged out row is not a message")
                }
                deleted[room, default: []].append((HistoryCursor(timestamp: statement.int64(1), id: id), sender))
                removed[sender, default: AuthorDelta()].add(Int(statement.int64(4)), pooled: false)
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
