import ChatCore

/// Every statement the store runs, in one place, so the set the statement
/// cache holds is fixed and each query's index use can be checked
/// (`EXPLAIN QUERY PLAN`, see the tests).
///
/// Cursor conditions use row values, `(sent_at, id) < (?, ?)`, which SQLite
/// turns into one range of the (room, sent_at, id) index: keyset paging,
/// never OFFSET, and stable when many messages share a millisecond.
enum SQL {
    static let messageColumns = "id, room, sent_at, sender, nickname, stage, content, automatic, signature, author_key, signed_at"
    /// How many columns `messageColumns` names: a column selected after
    /// them is read at this index.
    static let messageColumnCount: Int32 = 11

    static let insertMessage = """
        INSERT INTO messages (id, room, sent_at, sender, nickname, stage, content, automatic, seq, signature, author_key, signed_at, pooled)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT (id) DO NOTHING
        """
    static let lastSeq = "SELECT coalesce(max(seq), 0) FROM messages"
    /// Public messages in arrival order after a sequence number (catch-up).
    static let publicAfterSeq = """
        SELECT \(messageColumns), seq FROM messages WHERE seq > ?1 AND room = 'public' ORDER BY seq LIMIT ?2
        """
    /// Delivery moves forward only (ranks as `DeliveryState.rank`).
    /// A held DM is released (queued, sent) or discarded, nothing else.
    static let moveDelivery = """
        UPDATE messages SET delivery = ?1 WHERE id = ?2 AND (delivery IS NULL OR
            (delivery IN ('queued', 'sent') AND (CASE delivery WHEN 'queued' THEN 0 ELSE 1 END) < ?3 AND ?1 <> 'discarded') OR
            (delivery = 'held' AND ?1 IN ('queued', 'sent', 'discarded')))
        """
    /// In-memory stores: drops a room's oldest messages beyond the newest ?2
    /// (DMs still waiting for an acknowledgement or held stay).
    static let trimRoom = """
        DELETE FROM messages WHERE room = ?1 AND (delivery IS NULL OR delivery NOT IN ('queued', 'sent', 'held'))
            AND (sent_at, id) < (SELECT sent_at, id FROM messages WHERE room = ?1
                                 ORDER BY sent_at DESC, id DESC LIMIT 1 OFFSET ?2)
        """
    static let containsMessage = "SELECT 1 FROM messages WHERE id = ?1"
    static let messageByID = "SELECT \(messageColumns) FROM messages WHERE id = ?1"

    // Pages. Newest-first queries are reversed in Swift to display order.
    static let newest = """
        SELECT \(messageColumns) FROM messages WHERE room = ?1
        ORDER BY sent_at DESC, id DESC LIMIT ?2
        """
    static let oldest = """
        SELECT \(messageColumns) FROM messages WHERE room = ?1
        ORDER BY sent_at, id LIMIT ?2
        """
    static let before = """
        SELECT \(messageColumns) FROM messages WHERE room = ?1 AND (sent_at, id) < (?2, ?3)
        ORDER BY sent_at DESC, id DESC LIMIT ?4
        """
    static let atOrBefore = """
        SELECT \(messageColumns) FROM messages WHERE room = ?1 AND (sent_at, id) <= (?2, ?3)
        ORDER BY sent_at DESC, id DESC LIMIT ?4
        """
    static let after = """
        SELECT \(messageColumns) FROM messages WHERE room = ?1 AND (sent_at, id) > (?2, ?3)
        ORDER BY sent_at, id LIMIT ?4
        """

    // Cursors only: answered from the index alone.
    static let newestCursor = "SELECT sent_at, id FROM messages WHERE room = ?1 ORDER BY sent_at DESC, id DESC LIMIT 1"
    static let oldestCursor = "SELECT sent_at, id FROM messages WHERE room = ?1 ORDER BY sent_at, id LIMIT 1"
    static let cursorBefore = """
        SELECT sent_at, id FROM messages WHERE room = ?1 AND (sent_at, id) < (?2, ?3)
        ORDER BY sent_at DESC, id DESC LIMIT 1
        """
    static let cursorAfter = """
        SELECT sent_at, id FROM messages WHERE room = ?1 AND (sent_at, id) > (?2, ?3)
        ORDER BY sent_at, id LIMIT 1
        """
    static let countInTimeRange = "SELECT count(*) FROM messages WHERE room = ?1 AND sent_at >= ?2 AND sent_at < ?3"
    static let unreadAfter = """
        SELECT count(*) FROM messages WHERE room = ?1 AND (sent_at, id) > (?2, ?3) AND sender != ?4
        """
    /// Messages from others after one cursor up to and including another:
    /// what a reader moved past when the marker moved.
    static let unreadThrough = """
        SELECT count(*) FROM messages WHERE room = ?1 AND (sent_at, id) > (?2, ?3) AND (sent_at, id) <= (?5, ?6) AND sender != ?4
        """
    /// Whether any message from others lies between two cursors: EXISTS
    /// stops at the first. A count visited every message after a marker
    /// held by an unseen gap, once per live message: quadratic over a run.
    static let anyUnreadBetween = """
        SELECT EXISTS (SELECT 1 FROM messages WHERE room = ?1 AND (sent_at, id) > (?2, ?3) AND (sent_at, id) < (?5, ?6) AND sender != ?4)
        """

    // Rooms.
    static let roomColumns = """
        room, last_sent_at, last_id, last_nickname, last_preview, read_sent_at, read_id, \
        unread, message_count, peer_nickname, dm_state
        """
    static let room = "SELECT \(roomColumns) FROM rooms WHERE room = ?1"
    static let allRooms = """
        SELECT \(roomColumns) FROM rooms ORDER BY last_sent_at DESC NULLS LAST, last_id DESC, room
        """
    static let directRooms = "SELECT \(roomColumns) FROM rooms WHERE room LIKE 'dm:%'"
    static let upsertRoom = """
        INSERT INTO rooms (\(roomColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
        ON CONFLICT (room) DO UPDATE SET
            last_sent_at = excluded.last_sent_at, last_id = excluded.last_id,
            last_nickname = excluded.last_nickname, last_preview = excluded.last_preview,
            read_sent_at = excluded.read_sent_at, read_id = excluded.read_id,
            unread = excluded.unread, message_count = excluded.message_count,
            peer_nickname = excluded.peer_nickname, dm_state = excluded.dm_state
        """

    // Per-author totals (the per-peer storage quota, `StorageUsage`).
    /// `StorageUsage.bytes(of:)` in SQL; text is cast to BLOB so length() counts bytes.
    static let accountedBytes = """
        (\(StorageUsage.rowOverhead) + length(CAST(content AS BLOB)) + length(CAST(nickname AS BLOB)) \
        + coalesce(length(CAST(stage AS BLOB)), 0) + coalesce(length(CAST(signature AS BLOB)), 0) \
        + coalesce(length(CAST(author_key AS BLOB)), 0))
        """
    static let recountAuthorUsage = """
        INSERT INTO author_usage (sender, messages, bytes)
            SELECT sender, count(*), sum(\(accountedBytes)) FROM messages GROUP BY sender
        """
    static let authorUsage = "SELECT messages, bytes, first_seen, pooled FROM author_usage WHERE sender = ?1"
    /// Adds to an author's totals; `first_seen` is set by its first row only.
    static let addAuthorUsage = """
        INSERT INTO author_usage (sender, messages, bytes, first_seen, pooled) VALUES (?1, ?2, ?3, ?4, ?5)
        ON CONFLICT (sender) DO UPDATE SET messages = messages + excluded.messages, bytes = bytes + excluded.bytes,
            first_seen = coalesce(first_seen, excluded.first_seen), pooled = pooled + excluded.pooled
        """
    /// Takes rows out of an author's totals (aged out, or taken out of the pool).
    static let subtractAuthorUsage = """
        UPDATE author_usage SET messages = messages - ?2, bytes = bytes - ?3, pooled = max(0, pooled - ?4) WHERE sender = ?1
        """
    /// An author with no stored message left has no row (and is first seen again).
    static let dropEmptyAuthorUsage = "DELETE FROM author_usage WHERE sender = ?1 AND messages <= 0"
    /// In-memory trims: every total recounted from the rows, first seen kept.
    static let recountAuthorUsageKeepingFirstSeen = """
        DELETE FROM author_usage WHERE sender NOT IN (SELECT sender FROM messages);
        UPDATE author_usage SET messages = counted.n, bytes = counted.b, pooled = counted.p
            FROM (SELECT sender AS author, count(*) AS n, sum(\(accountedBytes)) AS b, count(pooled) AS p
                  FROM messages GROUP BY sender) AS counted
            WHERE counted.author = author_usage.sender;
        UPDATE storage_pool SET messages = (SELECT count(*) FROM messages WHERE pooled = 1),
            bytes = (SELECT coalesce(sum(\(accountedBytes)), 0) FROM messages WHERE pooled = 1);
        """

    // The unknown authors' pool (ChatStore+StoragePool.swift).
    static let poolTotals = "SELECT messages, bytes FROM storage_pool"
    static let addToPool = "UPDATE storage_pool SET messages = messages + ?1, bytes = bytes + ?2"
    /// The pool's rows stored before arrival ?1, oldest first, with their counted bytes.
    static let pooledOldest = """
        SELECT seq, \(accountedBytes) FROM messages INDEXED BY messages_pooled WHERE pooled = 1 AND seq < ?1 ORDER BY seq
        """
    /// Rows outside the pool stored before arrival ?1, oldest first (ChatStore+AgeingOrder.swift).
    static let unpooledOldest = """
        SELECT seq, room, sender, \(accountedBytes) FROM messages INDEXED BY messages_seq
        WHERE seq < ?1 AND pooled IS NULL ORDER BY seq
        """
    /// Counted bytes stored for authors other than ?1, the pool's included
    /// (ChatStore+FairShare.swift).
    static let othersBytes = "SELECT coalesce(sum(bytes), 0) FROM author_usage WHERE sender != ?1"
    /// Counted bytes of peers' rows outside the pool in the rooms the JSON
    /// array ?1 lists (the user's conversations), other than ?2's.
    static let conversationsBytes = """
        SELECT coalesce(sum(\(accountedBytes)), 0) FROM messages
        WHERE room IN (SELECT value FROM json_each(?1)) AND sender != ?2 AND pooled IS NULL
        """
    /// Deletes the rows whose arrival numbers the JSON array ?1 lists,
    /// returning what the caller needs to keep rooms, totals, the search
    /// index and memory true (ChatStore+AgedRows.swift).
    static let deleteBySeqs = """
        DELETE FROM messages WHERE seq IN (SELECT value FROM json_each(?1))
        RETURNING room, sent_at, id, sender, \(accountedBytes), seq, content, pooled
        """
    /// Takes deleted rows out of the search index in one statement: ?1 is
    /// a JSON array of [seq, content] pairs, as the index holds them.
    static let unindexSeqs = """
        INSERT INTO messages_search (messages_search, rowid, content)
        SELECT 'delete', CAST(json_extract(value, '$[0]') AS INTEGER), json_extract(value, '$[1]') FROM json_each(?1)
        """
    /// Takes an author's rows out of the pool (it is known now).
    static let unpoolAuthor = """
        UPDATE messages INDEXED BY messages_pooled SET pooled = NULL WHERE pooled = 1 AND sender = ?1
        RETURNING \(accountedBytes)
        """
    static let pageCount = "PRAGMA page_count"
    static let freelistCount = "PRAGMA freelist_count"

    // Settings.
    static let metaValue = "SELECT value FROM meta WHERE key = ?1"
    static let metaUpsert = "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
    static let metaDelete = "DELETE FROM meta WHERE key = ?1"
}
