import CSQLite
import ChatCore
import Dispatch
import Foundation

/// Internal looks at the connection, for tests that check the store keeps
/// its promises (index use, pragmas) rather than trusting the SQL text.
extension ChatStore {
    /// `EXPLAIN QUERY PLAN` details for `sql` (parameters left unbound).
    func queryPlan(_ sql: String) throws(StoreError) -> [String] {
        try db().withStatement("EXPLAIN QUERY PLAN " + sql) { statement throws(StoreError) in
            var details: [String] = []
            while try statement.step() { details.append(statement.string(3) ?? "") }
            return details
        }
    }

    /// The value of a read-only pragma on this connection, e.g. "journal_mode".
    func pragma(_ name: String) throws(StoreError) -> String? {
        try db().withStatement("PRAGMA " + name) { statement throws(StoreError) in
            try statement.step() ? statement.string(0) : nil
        }
    }

    /// From now on, records SQLite's `synchronous` value inside every write
    /// transaction, just before its COMMIT (`synchronousAtCommits`).
    func recordSynchronousAtCommits() throws(StoreError) {
        try db().synchronousAtCommits = []
    }

    /// What `recordSynchronousAtCommits` recorded, oldest first (1 NORMAL, 2 FULL).
    func synchronousAtCommits() throws(StoreError) -> [Int64] {
        try db().synchronousAtCommits ?? []
    }

    /// Virtual-machine steps `sql`'s cached statement has run so far: the
    /// work a query did, counted rather than timed.
    func virtualMachineSteps(of sql: String) throws(StoreError) -> Int {
        try db().virtualMachineSteps(of: sql)
    }

    /// Whether this call runs on the store's own dispatch queue (a file
    /// store) rather than on the cooperative pool (an in-memory one).
    func runsOnItsOwnQueue() -> Bool {
        DispatchQueue.getSpecific(key: StoreQueue.marker) != nil
    }

    /// Whether SQLite keeps memory statistics in this process (they cost
    /// every allocation a global mutex; `SQLiteDatabase` turns them off).
    static var keepsMemoryStatistics: Bool { sqlite3_memory_used() != 0 }
}

/// Looks at the `/search` index, for tests that check it follows the table.
extension ChatStore {
    /// Messages the search index holds once every waiting one is folded
    /// in: the first varint of FTS5's "averages" record (row 1 of its data
    /// table), its total row count.
    func searchIndexCount() throws(StoreError) -> Int {
        foldSearchIndex(all: true)
        let bytes = try db().withStatement("SELECT block FROM messages_search_data WHERE id = 1") { statement throws(StoreError) in
            try statement.step() ? statement.bytes(0) : []
        }
        var value = 0
        for (index, byte) in bytes.prefix(9).enumerated() {
            if index == 8 { return value << 8 | Int(byte) }
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return value
    }

    /// FTS5's integrity check: the index is sound and, once every row is
    /// folded in, holds exactly what the messages table's text says (rank
    /// 1). Under a full cap the fold may find no room: then only the
    /// index's own structure is checked (rank 0), since rank 1 would call
    /// the unfolded rows "malformed". Throws if the check fails.
    func checkSearchIndex() throws(StoreError) {
        foldSearchIndex(all: true)  // the full check compares the index with every row
        let folded = try indexedUpTo() >= lastSeq()
        try db().execute("INSERT INTO messages_search (messages_search, rank) VALUES ('integrity-check', \(folded ? 1 : 0))")
    }
}

/// The files a store on disk takes, for tests that hold `--max-history`
/// to its margin.
extension ChatStore {
    /// Bytes of the database file, its WAL and its shared memory (0 for
    /// one that does not exist).
    func fileBytes() -> (database: Int, wal: Int, shm: Int) {
        guard let path else { return (0, 0, 0) }
        func size(_ file: String) -> Int {
            (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        }
        return (size(path), size(path + "-wal"), size(path + "-shm"))
    }
}
