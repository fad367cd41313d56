import CSQLite
import ChatCore

/// One SQLite connection with a cache of prepared statements.
///
/// Not Sendable and not locked: it belongs to exactly one `ChatStore` actor,
/// which already runs one call at a time, so the connection is opened with
/// SQLITE_OPEN_NOMUTEX and SQLite's own per-call mutex is skipped.
final class SQLiteDatabase {
    /// The file path, or ":memory:".
    let path: String
    private var handle: OpaquePointer?
    /// Prepared once per distinct SQL text and reused; the store uses a
    /// fixed set of statements, so the cache stays small.
    private var statements: [StatementKey: Statement] = [:]
    private var transactionDepth = 0
    /// The `synchronous` level the connection keeps (the store's
    /// durability), and the one in effect: they differ only while a write
    /// transaction runs at a level of its own (`transaction(synchronous:)`),
    /// or after restoring failed, and then the next write transaction
    /// restores it before it begins.
    private(set) var standingSynchronous: StoreDurability = .full
    private var synchronousInEffect: StoreDurability = .full
    /// Tests: when set, every write transaction appends SQLite's own
    /// `synchronous` value (1 NORMAL, 2 FULL), read just before its COMMIT.
    var synchronousAtCommits: [Int64]?

    /// Process-wide settings, made once before the first connection opens
    /// (SQLite takes them only before it initializes): no memory
    /// statistics, so allocations skip their global mutex. The store reads
    /// no statistics.
    private static let configured: Void = { _ = lanchat_sqlite3_config_memstatus(0) }()

    /// Opens (creating if needed) the database at `path`.
    init(path: String) throws(StoreError) {
        Self.configured
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            // SQLite hands back a handle even on failure, to read the message from.
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw .from(code: code, message: message, path: path, sql: "open")
        }
        handle = db
        try registerSearchFunctions()
    }

    deinit { close() }

    var isOpen: Bool { handle != nil }

    /// The connection itself, for registering hooks (`WALCheckpointer`).
    var rawHandle: OpaquePointer? { handle }

    /// Finalizes every statement and closes the connection (in WAL mode the
    /// last connection checkpoints and removes the -wal file). Idempotent.
    func close() {
        statements.removeAll()  // Statement.deinit finalizes
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs SQL with no parameters and no wanted rows (DDL, PRAGMA writes).
    func execute(_ sql: String) throws(StoreError) {
        let db = try connection()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(errorMessage)
            throw error(code: sqlite3_extended_errcode(db), message: message, sql: sql)
        }
    }

    /// Runs `body` with the cached statement for `sql`, reset and with its
    /// bindings cleared afterwards so the next caller starts clean.
    func withStatement<T>(_ sql: String, _ body: (Statement) throws(StoreError) -> T) throws(StoreError) -> T {
        let statement = try prepared(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// Runs `body` in one transaction, committed if it returns and rolled
    /// back if it throws. Nested calls join the outer transaction.
    /// BEGIN IMMEDIATE takes the write lock up front, so a busy database
    /// fails here rather than halfway through.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try transaction(synchronous: nil, body)
    }

    /// `transaction`, committed at `synchronous` (nil: the standing level)
    /// and back at the standing level afterwards, whether it committed or
    /// not. SQLite refuses to change the level inside a transaction, so it
    /// is set before BEGIN and restored after COMMIT or ROLLBACK; a nested
    /// call joins the outer transaction at the outer's level.
    func transaction<T>(synchronous level: StoreDurability?, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        let wanted = level ?? standingSynchronous
        if wanted != synchronousInEffect { try applySynchronous(wanted) }
        // A failed restore leaves the flag set: the next write transaction tries again first.
        defer { if synchronousInEffect != standingSynchronous { try? applySynchronous(standingSynchronous) } }
        return try outermost("BEGIN IMMEDIATE", writes: true, body)
    }

    /// Sets the level the connection keeps (the store's durability, at open).
    func keepSynchronous(_ level: StoreDurability) throws(StoreError) {
        try applySynchronous(level)
        standingSynchronous = level
    }

    private func applySynchronous(_ level: StoreDurability) throws(StoreError) {
        try execute("PRAGMA synchronous = \(level.pragma)")
        synchronousInEffect = level
    }

    /// Runs the reads in `body` as one read transaction: one shared lock
    /// (and one WAL snapshot) for all of them, instead of one implicit
    /// transaction, with its fcntl lock calls, per statement. Inside a
    /// transaction already, `body` just joins it.
    func reading<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        if transactionDepth > 0 { return try body() }
        return try outermost("BEGIN", writes: false, body)
    }

    /// `body` between `begin` and COMMIT, rolled back if it throws.
    private func outermost<T>(_ begin: String, writes: Bool, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try withStatement(begin) { statement throws(StoreError) in _ = try statement.step() }
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            if writes, synchronousAtCommits != nil { synchronousAtCommits!.append(try synchronousNow()) }
            try withStatement("COMMIT") { statement throws(StoreError) in _ = try statement.step() }
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// `body` in a write transaction that is always rolled back (a
    /// rehearsal: `ChatStore.warmUp`). Not inside another transaction.
    func rolledBack(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        guard transactionDepth == 0 else { return }
        try withStatement("BEGIN IMMEDIATE") { statement throws(StoreError) in _ = try statement.step() }
        transactionDepth = 1
        defer {
            transactionDepth = 0
            rollBack()
        }
        try body()
    }

    /// Rolls back the open transaction, if one is still open: after some
    /// errors SQLite has already rolled back itself.
    private func rollBack() {
        if let db = handle, sqlite3_get_autocommit(db) == 0 { sqlite3_exec(db, "ROLLBACK", nil, nil, nil) }
    }

    /// SQLite's `synchronous` value on this connection (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA).
    func synchronousNow() throws(StoreError) -> Int64 {
        try withStatement("PRAGMA synchronous") { statement throws(StoreError) in try statement.step() ? statement.int64(0) : -1 }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// `Statement.virtualMachineSteps` of `sql`'s cached statement (0 if
    /// it never ran).
    func virtualMachineSteps(of sql: String) -> Int { statements[StatementKey(sql)]?.virtualMachineSteps ?? 0 }

    private func prepared(_ sql: String) throws(StoreError) -> Statement {
        let key = StatementKey(sql)
        if let statement = statements[key] { return statement }
        let db = try connection()
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else {
            throw error(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)), sql: sql)
        }
        let statement = Statement(handle: raw, sql: sql, path: path)
        statements[key] = statement
        return statement
    }

    private func connection() throws(StoreError) -> OpaquePointer {
        guard let handle else { throw .closed }
        return handle
    }

    private func error(code: Int32, message: String, sql: String) -> StoreError {
        .from(code: code, message: message, path: path, sql: sql)
    }
}
