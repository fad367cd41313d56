import ChatCore

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
    /// Wall time for a commit that brings none (`StoreChanges.now`): an
    /// author's first-seen time. Injected, so a test's store reads its
    /// manual clock.
    let clock: any ChatClock
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
    /// Whether a commit of `delivered` marks alone skips its fsync
    /// (`synchronous=NORMAL` for that transaction): a file in WAL mode with
    /// `.full` durability. In WAL mode such a commit is atomic and survives
    /// a process kill; only a power loss may drop it (Durability.md).
    let relaxesDeliveredMarks: Bool
    /// Off the cooperative pool for a file, on it in memory (see `StoreExecutor`).
    private let executor: StoreExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unowned }

    /// Opens (creating if needed) the history at `path` and brings its
    /// schema up to date. `nil` keeps it in memory, gone when closed.
    /// The parent directory must exist.
    public init(path: String?, localNumber: NodeNumber, logger: ChatLogger = .disabled,
                clock: any ChatClock = SystemClock()) throws(StoreError) {
        try self.init(path: path, localNumber: localNumber, durability: .full, logger: logger, clock: clock)
    }

    /// `maxBytes` caps the files (`--max-history`): the database file
    /// stays within it, and its write-ahead log and shared memory within
    /// `WALBound.margin(cap:)` more (see `WALBound`); a write the cap refuses
    /// fails as on a full disk (`StoreError.io`, SQLITE_FULL), after the
    /// pool has aged out. `diskReserve`: free disk a file store keeps
    /// (`DiskReserve`). Nil: neither.
    public init(
        path: String?, localNumber: NodeNumber, durability: StoreDurability, maxBytes: Int? = nil,
        diskReserve: DiskReserve? = nil, logger: ChatLogger = .disabled, clock: any ChatClock = SystemClock()
    ) throws(StoreError) {
        self.path = path
        self.clock = clock
        executor = StoreExecutor(label: "lanchat.store", inMemory: path == nil)
        self.localNumber = localNumber
        self.logger = logger.labeled("store")
        let database = try SQLiteDatabase(path: path ?? ":memory:")
        let inWAL = try Self.configure(database, durability: durability, logger: self.logger)
        relaxesDeliveredMarks = inWAL && durability == .full
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
}
