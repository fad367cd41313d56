import ChatCore

/// The store's tables and how to get an older file up to date.
///
/// `PRAGMA user_version` holds how many entries of `migrations` a file has
/// had applied. Each migration runs in its own transaction together with the
/// version bump, so a crash mid-upgrade leaves the previous version intact.
/// Append new migrations; never edit a shipped one.
enum Schema {
    static let migrations: [String] = [
        // 1: messages, rooms, meta.
        """
        CREATE TABLE messages (
            -- MessageID: 16 bytes, big-endian UUIDv7, so ids sort by time and
            -- new rows land at the end of the table's b-tree.
            id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),
            room TEXT NOT NULL,              -- "public" or "dm:<node number>"
            sent_at INTEGER NOT NULL,        -- ms since 1970, the sender's clock
            sender INTEGER NOT NULL,         -- node number
            nickname TEXT NOT NULL,
            stage TEXT,
            content TEXT NOT NULL,
            automatic INTEGER NOT NULL DEFAULT 0,
            delivery TEXT                    -- outbox state; NULL = not tracked
        ) WITHOUT ROWID;
        -- Every page, day section and catch-up query is a range of this index.
        CREATE INDEX messages_room_time ON messages (room, sent_at, id);

        -- One row per room, kept up to date by every insert and markRead, so
        -- the chat list never touches the messages table.
        CREATE TABLE rooms (
            room TEXT NOT NULL PRIMARY KEY,
            last_sent_at INTEGER,
            last_id BLOB,
            last_nickname TEXT,
            last_preview TEXT,
            read_sent_at INTEGER,            -- read marker cursor; NULL = nothing read
            read_id BLOB,
            unread INTEGER NOT NULL DEFAULT 0,
            message_count INTEGER NOT NULL DEFAULT 0,
            peer_nickname TEXT,              -- DM rooms: the peer as last seen
            dm_state TEXT                    -- DM rooms: DMState raw value
        ) WITHOUT ROWID;

        CREATE TABLE meta (
            key TEXT NOT NULL PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        """,
        // 2: the outbox reads undelivered DMs at start without a scan.
        """
        CREATE INDEX messages_pending ON messages (delivery) WHERE delivery IN ('queued', 'sent');
        """,
        // 3: arrival sequence, the clock-free catch-up cursor peers ask by.
        // Rows of older files are numbered in display order.
        """
        ALTER TABLE messages ADD COLUMN seq INTEGER;
        UPDATE messages SET seq = numbered.n
            FROM (SELECT id AS nid, row_number() OVER (ORDER BY sent_at, id) AS n FROM messages) AS numbered
            WHERE numbered.nid = messages.id;
        CREATE INDEX messages_seq ON messages (seq);
        """,
        // 4: public messages keep their author's signature (Schema+Signatures.swift).
        signatureColumns,
        // 5: per-author totals for the per-peer storage quota (Schema+AuthorUsage.swift).
        authorUsage,
        // 6: the signed timestamp of a clamped message (Schema+Signatures.swift).
        signedTimestampColumn,
        // 7: unread counted from the room index alone (Schema+Indexes.swift).
        unreadCoveringIndex,
        // 8: catch-up pages read in arrival order (Schema+Indexes.swift).
        roomSequenceIndex,
        // 9: the /search index, FTS5 trigram (Schema+Search.swift).
        searchIndex,
        // 10: identity keys seen, their trust, and nickname pins (Schema+Keys.swift).
        keyLedger,
        // 11: file transfers to resume (Schema+Files.swift).
        fileTransfers,
        // 12: DMs held for a key change, found at start (Schema+Held.swift).
        heldIndex,
        // 13: storage shared by trust: the unknown authors' pool (Schema+StoragePools.swift).
        storagePools,
    ]

    static var currentVersion: Int32 { Int32(migrations.count) }

    /// Brings `database` to `currentVersion`; returns the version it found.
    @discardableResult
    static func migrate(_ database: SQLiteDatabase) throws(StoreError) -> Int32 {
        let found = try database.withStatement("PRAGMA user_version") { statement throws(StoreError) in
            try statement.step() ? Int32(truncatingIfNeeded: statement.int64(0)) : 0
        }
        guard found <= currentVersion else { throw .newerSchema(found: found, supported: currentVersion) }
        for version in found..<currentVersion {
            try database.transaction { () throws(StoreError) in
                try database.execute(migrations[Int(version)])
                try database.execute("PRAGMA user_version = \(version + 1)")
            }
        }
        return found
    }
}
