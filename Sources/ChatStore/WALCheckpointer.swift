import CSQLite
import Dispatch
import Synchronization

/// Checkpoints a file store's WAL on a connection and thread of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL
/// past 1000 pages: that commit also copies the pages into the database
/// and fsyncs it, several milliseconds here, and every few hundred DMs one
/// of them waited for it (most of the DM round trip's p99). Registering a
/// WAL hook turns the automatic one off; after each commit the hook hands
/// a passive checkpoint to this thread, which copies what it can while the
/// store goes on committing (WAL allows one checkpointer beside the
/// writer). If checkpoints fall far behind, the commit checkpoints itself
/// as SQLite would, so the WAL stays bounded.
final class WALCheckpointer: Sendable {
    /// WAL pages after which a checkpoint is started (SQLite's default).
    static let pagesBeforeCheckpoint: Int32 = 1000
    /// WAL pages after which the commit itself checkpoints.
    static let pagesBeforeInlineCheckpoint: Int32 = 16_000

    private let path: String
    private let synchronous: String
    /// Under a history cap: WAL pages after which the commit checkpoints
    /// itself (`WALBound`); nil: no cap.
    private let eagerPages: Int32?
    private let queue = DispatchQueue(label: "lanchat.store.checkpoint", qos: .utility)
    /// Opened by the first checkpoint; used only on `queue` (the lock is
    /// never contended, it only makes the sharing checked).
    private let connection = Mutex<OpaquePointer?>(nil)
    /// A checkpoint is queued or running; closed: no more are started.
    private let state = Mutex((running: false, closed: false))
    /// Checkpoints run here and inline (tests, diagnostics).
    let counts = Mutex((background: 0, inline: 0))

    init(path: String, synchronous: String, eagerPages: Int32? = nil) {
        self.path = path
        self.synchronous = synchronous
        self.eagerPages = eagerPages
    }

    deinit {
        // No block is queued: each holds the checkpointer until it is done.
        connection.withLock { if let handle = $0 { sqlite3_close_v2(handle) } }
    }

    /// From the WAL hook, on the store's thread, after a commit left
    /// `pages` in the WAL of `database` (the store's own connection).
    func committed(pages: Int32, database: OpaquePointer) {
        if pages >= min(eagerPages ?? .max, Self.pagesBeforeInlineCheckpoint) {
            sqlite3_wal_checkpoint_v2(database, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            counts.withLock { $0.inline += 1 }
            return
        }
        guard pages >= Self.pagesBeforeCheckpoint else { return }
        let start = state.withLock { state -> Bool in
            guard !state.running, !state.closed else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            checkpoint()
            state.withLock { $0.running = false }
        }
    }

    /// Waits for a running checkpoint and closes this connection, so the
    /// store's own is the last and its close checkpoints and removes the WAL.
    func close() {
        state.withLock { $0.closed = true }
        queue.sync {
            connection.withLock { handle in
                if let open = handle { sqlite3_close_v2(open) }
                handle = nil
            }
        }
    }

    private func checkpoint() {
        let done = connection.withLock { handle -> Bool in
            if handle == nil {
                var db: OpaquePointer?
                let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
                guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK, let db else {
                    sqlite3_close_v2(db)
                    return false  // the next commit's hook tries again
                }
                // The checkpoint fsyncs the database before the WAL may be reused.
                sqlite3_exec(db, "PRAGMA synchronous = \(synchronous)", nil, nil, nil)
                handle = db
            }
            sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return true
        }
        if done { counts.withLock { $0.background += 1 } }
    }
}

extension SQLiteDatabase {
    /// Hands each commit's WAL size to `checkpointer` (nil: SQLite's own
    /// automatic checkpoint again).
    func checkpoint(with checkpointer: WALCheckpointer?) {
        guard let handle = rawHandle else { return }
        guard let checkpointer else {
            sqlite3_wal_autocheckpoint(handle, WALCheckpointer.pagesBeforeCheckpoint)
            return
        }
        sqlite3_wal_hook(handle, { context, database, _, pages in
            guard let context, let database else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages, database: database)
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }
}
