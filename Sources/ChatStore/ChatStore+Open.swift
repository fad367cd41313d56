import ChatCore

/// How a file is set up as it opens: the pragmas behind the durability
/// promise, the page size, and the WAL's working size.
extension ChatStore {
    /// Gives the WAL its working size (`WALPreallocation`), when the store
    /// is in WAL mode; whatever happens, the store opens.
    /// `afterLock`: runs once the write lock is held (tests).
    static func preallocateWAL(_ database: SQLiteDatabase, path: String, logger: ChatLogger,
                               afterLock: () -> Void = {}) throws(StoreError) {
        let mode = try database.withStatement("PRAGMA journal_mode") { statement throws(StoreError) in
            try statement.step() ? statement.string(0) ?? "" : ""
        }
        guard mode.lowercased() == "wal" else { return }
        let pageSize = try Self.pageSize(of: database)
        // Under the write lock: no other connection (the sqlite3 shell, a
        // backup) can append frames, restart the WAL or truncate it between
        // the size read and the zeros. Nothing is written in the
        // transaction; it is rolled back. A lock held elsewhere past the
        // busy timeout skips the growth.
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            logger.debug("WAL not grown: \(error)")
            return
        }
        defer { try? database.execute("ROLLBACK") }
        afterLock()
        switch WALPreallocation.extend(walPath: path + "-wal", pageSize: pageSize) {
        case .large: break
        case .grown(let from): logger.debug("WAL grown from \(from) to \(WALPreallocation.size(pageSize: pageSize)) bytes")
        case .skipped(let why): logger.debug("WAL not grown: \(why)")
        }
    }

    /// The database's page size in bytes.
    static func pageSize(of database: SQLiteDatabase) throws(StoreError) -> Int {
        try database.withStatement("PRAGMA page_size") { statement throws(StoreError) in
            try statement.step() ? max(512, Int(statement.int64(0))) : 4096
        }
    }

    /// The pragmas behind the durability promise, checked rather than hoped
    /// for. Returns whether the connection is in WAL mode.
    @discardableResult
    static func configure(_ database: SQLiteDatabase, durability: StoreDurability, logger: ChatLogger) throws(StoreError) -> Bool {
        // Waits out a short lock held by another process (a backup, sqlite3 shell)
        // instead of failing at once.
        try database.execute("PRAGMA busy_timeout = 5000")
        let mode = try database.withStatement("PRAGMA journal_mode = WAL") { statement throws(StoreError) in
            try statement.step() ? statement.string(0) ?? "" : ""
        }
        if mode.lowercased() != "wal" && database.path != ":memory:" {
            // E.g. a file system without shared memory. With synchronous=FULL
            // the rollback journal keeps the same promise, only slower.
            logger.warning("WAL not available for \(database.path) (journal_mode=\(mode)); using it as is")
        }
        try database.keepSynchronous(durability)
        // macOS: a plain fsync leaves data in the drive's cache; F_FULLFSYNC does not. No-op elsewhere.
        try database.execute("PRAGMA fullfsync = ON")
        try database.execute("PRAGMA checkpoint_fullfsync = ON")
        // Keep the -wal file from staying huge after a bulk import.
        try database.execute("PRAGMA journal_size_limit = 67108864")
        return mode.lowercased() == "wal"
    }
}
