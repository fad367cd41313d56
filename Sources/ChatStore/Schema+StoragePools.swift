/// Migration 13: storage shared by trust (ChatStore+StoragePool.swift).
///
/// `messages.pooled` marks the rows of the one pool that unknown authors
/// share (1; NULL otherwise); its partial index lists them oldest first,
/// so ageing out the oldest reads only the pool, never the rest of the
/// history (with the sender, so taking one author out reads the index
/// alone). `author_usage.first_seen` is when an author's first stored
/// message arrived (this node's clock, ms), behind "known after a day";
/// `author_usage.pooled` counts an author's rows in the pool, so the node
/// knows whom to take out of it once the author is known. Rows of an
/// older file are not pooled, and their authors count as first seen at
/// their oldest message (they were stored under the per-peer quota).
/// `storage_pool` holds the pool's totals, kept by every insert and
/// deletion, so a commit checks the pool's budget without a scan.
extension Schema {
    static let storagePools = """
        ALTER TABLE messages ADD COLUMN pooled INTEGER;
        CREATE INDEX messages_pooled ON messages (seq, sender) WHERE pooled = 1;
        ALTER TABLE author_usage ADD COLUMN first_seen INTEGER;
        ALTER TABLE author_usage ADD COLUMN pooled INTEGER NOT NULL DEFAULT 0;
        UPDATE author_usage SET first_seen = oldest.at
            FROM (SELECT sender AS author, min(sent_at) AS at FROM messages GROUP BY sender) AS oldest
            WHERE oldest.author = author_usage.sender;
        CREATE TABLE storage_pool (messages INTEGER NOT NULL, bytes INTEGER NOT NULL);
        INSERT INTO storage_pool (messages, bytes) VALUES (0, 0);
        """
}
