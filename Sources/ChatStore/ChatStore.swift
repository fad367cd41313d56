import ChatCore
import Foundation

/// The node's history: every message of every room in one SQLite file, with
/// a rooms table for the chat list (newest message, read marker, unread)
/// and a small key/value table for node settings.
///
/// An actor rather than a class confined to the node: the SQLite connection
/// is mutable, non-thread-safe state, and an actor lets the compiler prove
/// that only one call touches it at a time while the store stays Sendable
/// for the node, the CLI and benchmarks alike. A call costs one actor hop,
/// small next to the query itself (a 30-message page is ~0.1 ms at 1M
/// stored messages).
///
/// Durability: see ChatStore.docc/Durability.md. In short, with the default
/// `.full` durability a message whose `insert` has returned survives a
/// process kill and a power loss.
public actor ChatStore {
    /// Characters of a message kept as the room's preview.
    public static let previewCharacters = 80
    /// Largest page a caller may ask for; larger limits are cut to this.
    public static let maxPageSize = 1000

    /// Whose messages never count as unread.
    public let localNumber: NodeNumber
    /// The file path, or nil for an in-memory store.
    public let path: String?
    private var database: SQLiteDatabase?
    /// A file's WAL checkpoints, off the commit path (nil in memory).
    nonisolated let checkpointer: WALCheckpointer?
    let logger: ChatLogger
    /// Random, made when the file is created: peers catching up from this
    /// store tell a new store (a wiped or in-memory one) from the old one.
    public nonisolated let epoch: String
    /// An in-memory store keeps at most this many messages per room (the
    /// oldest go first, never a DM still waiting for its ack), so its
    /// memory stays flat under any flood. A file keeps everything.
    public static let inMemoryWindow = 10_000
    /// Messages per room since the last trim (in-memory stores only).
    var untrimmed: [RoomID: Int] = [:]
    /// `search_indexed.upto` as last committed (nil: not read yet).
    var searchIndexedUpTo: Int64?
    /// Messages stored since the index was last looked at: a fold is only
    /// considered once this reaches the threshold, so a commit costs no
    /// extra query (a hint; the fold reads the truth from the file).
    var searchUnfoldedHint = Int.max
    /// The cap in pages (`maxBytes`), and the page size.
    let maxPages: Int?
    let pageSize: Int
    /// Bytes of free disk kept (`DiskReserve`), for a file store given one.
    public nonisolated let reserveBytes: Int?
    /// Messages one search fold takes in one transaction.
    let foldBatch: Int
    /// Off the cooperative pool for a file, on it in memory (see `StoreExecutor`).
    private let executor: StoreExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unowned }

    /// Opens (creating if needed) the history at `path` and brings its
    /// schema up to date. `nil` keeps it in memory, gone when closed.
    /// The parent directory must exist.
    public init(path: String?, localNumber: NodeNumber, logger: ChatLogger = .disabled) throws(StoreError) {
        try self.init(path: path, localNumber: localNumber, durability: .full, logger: logger)
    }

    /// `maxBytes` caps the files (`--max-history`): the database file
    /// stays within it, and its write-ahead log and shared memory within
    /// `WALBound.margin(cap:)` more (see `WALBound`); a write the cap refuses
    /// fails as on a full disk (`StoreError.io`, SQLITE_FULL), after the
    /// pool has aged out. `diskReserve`: free disk a file store keeps
    /// (`DiskReserve`). Nil: neither.
    public init(
        path: String?, localNumber: NodeNumber, durability: StoreDurability, maxBytes: Int? = nil,
        diskReserve: DiskReserve? = nil, logger: ChatLogger = .disabled
    ) throws(StoreError) {
        self.path = path
        executor = StoreExecutor(label: "lanchat.store", inMemory: path == nil)
        self.localNumber = localNumber
        self.logger = logger.labeled("store")
        let database = try SQLiteDatabase(path: path ?? ":memory:")
        try Self.configure(database, durability: durability, logger: self.logger)
        let pageSize = try Self.pageSize(of: database)
        self.pageSize = pageSize
        if let maxBytes {
            let pages = max(16, maxBytes / pageSize)
            try database.execute("PRAGMA max_page_count = \(pages)")
            try WALBound.configure(database, cap: maxBytes)
            maxPages = pages
        } else {
            maxPages = nil
        }
        foldBatch = maxBytes.map { WALBound.foldBatch(cap: $0) } ?? Self.searchFoldBatch
        if let path, let diskReserve, let space = FileSystemSpace.of(path) {
            reserveBytes = diskReserve.bytes(ofFileSystem: space.total)
        } else {
            reserveBytes = nil
        }
        let found = try Schema.migrate(database)
        epoch = try Self.loadEpoch(database)
        self.database = database
        if let path {
            // Under a cap the WAL's working size is the margin's to spend.
            if maxBytes == nil { try Self.preallocateWAL(database, path: path, logger: self.logger) }
            let checkpointer = WALCheckpointer(path: path, synchronous: durability.pragma,
                                               eagerPages: maxBytes.map { WALBound.checkpointPages(cap: $0, pageSize: pageSize) })
            database.checkpoint(with: checkpointer)
            self.checkpointer = checkpointer
        } else {
            checkpointer = nil
        }
        if found == 0 {
            self.logger.debug("new history created (schema \(Schema.currentVersion))")
        } else if found != Schema.currentVersion {
            self.logger.notice("history schema upgraded from version \(found) to \(Schema.currentVersion)")
        }
        self.logger.info("history open at \(path ?? "memory") (schema \(Schema.currentVersion), synchronous=\(durability.pragma))")
    }

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

    /// The pragmas behind the durability promise, checked rather than hoped for.
    private static func configure(_ database: SQLiteDatabase, durability: StoreDurability, logger: ChatLogger) throws(StoreError) {
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
        try database.execute("PRAGMA synchronous = \(durability.pragma)")
        // macOS: a plain fsync leaves data in the drive's cache; F_FULLFSYNC does not. No-op elsewhere.
        try database.execute("PRAGMA fullfsync = ON")
        try database.execute("PRAGMA checkpoint_fullfsync = ON")
        // Keep the -wal file from staying huge after a bulk import.
        try database.execute("PRAGMA journal_size_limit = 67108864")
    }

    deinit {
        // The store's own connection closes last (after this), so it removes the WAL.
        checkpointer?.close()
    }

    /// The open connection, or `.closed`.
    func db() throws(StoreError) -> SQLiteDatabase {
        guard let database, database.isOpen else { throw .closed }
        return database
    }

    /// Closes the file. Later calls throw `.closed`. Idempotent.
    public func close() {
        guard let database else { return }
        checkpointer?.close()
        database.checkpoint(with: nil)
        database.close()
        self.database = nil
        logger.debug("history closed")
    }

    // MARK: Messages

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
        try addUsage(usage, firstSeen: changes.now ?? Self.wallClockMillis())
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

    static func wallClockMillis() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    /// Which of `ids` are stored (any room): one call for a whole batch.
    public func storedIDs(among ids: [MessageID]) throws(StoreError) -> Set<MessageID> {
        try lookUp(ids: ids, authors: []).stored
    }

    /// Whether a message with this id is stored (any room).
    public func contains(_ id: MessageID) throws(StoreError) -> Bool {
        try db().withStatement(SQL.containsMessage) { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            return try statement.step()
        }
    }

    /// The stored message with this id, if any.
    public func message(_ id: MessageID) throws(StoreError) -> Message? {
        try db().withStatement(SQL.messageByID) { statement throws(StoreError) in
            try statement.bind(id, at: 1)
            guard try statement.step() else { return nil }
            return try Self.message(from: statement)
        }
    }

    // MARK: Settings

    /// A node setting (e.g. its node number), or nil if never set.
    public func value(forKey key: String) throws(StoreError) -> String? {
        try db().withStatement(SQL.metaValue) { statement throws(StoreError) in
            try statement.bind(key, at: 1)
            return try statement.step() ? statement.string(0) : nil
        }
    }

    /// Sets a node setting; nil removes it.
    public func setValue(_ value: String?, forKey key: String) throws(StoreError) {
        let database = try db()
        try database.withStatement(value == nil ? SQL.metaDelete : SQL.metaUpsert) { statement throws(StoreError) in
            try statement.bind(key, at: 1)
            if let value { try statement.bind(value, at: 2) }
            try statement.run()
        }
    }

    // MARK: Health

    /// Runs SQLite's full integrity check; logs each problem and returns
    /// false if there is any. Reads the whole file: not for every start.
    public func integrityCheck() throws(StoreError) -> Bool {
        let problems = try db().withStatement("PRAGMA integrity_check") { statement throws(StoreError) -> [String] in
            var rows: [String] = []
            while try statement.step() { rows.append(statement.string(0) ?? "") }
            return rows
        }
        if problems == ["ok"] { return true }
        for problem in problems { logger.error("integrity check: \(problem)") }
        return false
    }

    // MARK: Rows
    // The message row mapping lives here only: `bind` writes the columns of
    // `SQL.insertMessage`, `message(from:)` reads `SQL.messageColumns`.
    // Adding a column touches these two, SQL.swift and a migration.

    /// Binds `message` to `SQL.insertMessage`'s parameters ?1...?8 and
    /// ?10...?12 (?9, the arrival sequence, and ?13, pooled, are the caller's).
    static func bind(_ message: Message, to statement: Statement) throws(StoreError) {
        try statement.bind(message.id, at: 1)
        try statement.bind(message.room.description, at: 2)
        try statement.bind(message.timestamp, at: 3)
        try statement.bind(Int64(bitPattern: message.senderNumber.rawValue), at: 4)
        try statement.bind(message.senderNickname, at: 5)
        try statement.bind(message.senderStage, at: 6)
        try statement.bind(message.content, at: 7)
        try statement.bind(message.automatic ? 1 : 0, at: 8)
        try statement.bind(message.signature, at: 10)
        try statement.bind(message.authorKey, at: 11)
        try statement.bind(message.signedTimestamp, at: 12)
    }

    /// Decodes a row of `SQL.messageColumns`.
    static func message(from statement: Statement) throws(StoreError) -> Message {
        guard let id = statement.messageID(0) else {
            throw .malformedRow(table: "messages", reason: "id is not 16 bytes")
        }
        guard let roomName = statement.string(1), let room = RoomID(roomName) else {
            throw .malformedRow(table: "messages", reason: "room of \(id) is not public or dm:<n>")
        }
        guard let sender = NodeNumber(rawValue: UInt64(bitPattern: statement.int64(3))) else {
            throw .malformedRow(table: "messages", reason: "sender of \(id) is not a node number")
        }
        var message = Message(
            id: id, room: room, senderNumber: sender, senderNickname: statement.string(4) ?? "",
            senderStage: statement.string(5), content: statement.string(6) ?? "",
            timestamp: statement.int64(2), automatic: statement.int64(7) != 0)
        message.signature = statement.string(8)
        message.authorKey = statement.string(9)
        message.signedTimestamp = statement.isNull(10) ? nil : statement.int64(10)
        return message
    }
}
