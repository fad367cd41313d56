/// Migration 9: `/search` through SQLite's FTS5 with the trigram tokenizer,
/// which indexes every run of three characters, so a substring in any
/// script is found (Korean has no spaces between many words).
///
/// An external-content index: the text stays in `messages` only, and the
/// index rowid is the message's arrival number `seq` (unique, and
/// `messages_seq` maps it back). The rebuild indexes an older file's rows
/// once, in the migration's own transaction.
///
/// Written behind the messages, not with each: `search_indexed.upto` is
/// the arrival number up to which the index holds every message, and the
/// rest (at most `ChatStore.searchFoldThreshold` or so) are folded in by
/// a transaction of their own once enough wait (`foldSearchIndex`), while
/// a search scans them directly. Indexing every message in its own commit
/// wrote about 5 more WAL pages per commit (FTS5 flushes a segment per
/// transaction): a DM on disk's p99 went from under 2 ms to 2.4-3.1 ms and
/// receive on disk from ~100k/s to 35-80k/s. Not an insert trigger either:
/// a statement with triggers runs in a savepoint, and FTS5 flushes its
/// pending terms at every savepoint. The delete and update triggers touch
/// the index only for rows it holds (an external-content FTS5 index must
/// never be told to delete a row it never had). Rows written by other
/// programs (the sqlite3 shell) below the mark are not indexed until the
/// next rebuild.
///
/// `columnsize=0`: no per-message size table (only ranking by relevance
/// needs it, and results are newest first), one page less per commit.
/// `detail=none`: no positions, so no phrase queries; the index finds the
/// rows holding every trigram of the text and the query checks the text
/// itself (`SQL.searchIndexed`). Measured with 300k messages: inserts
/// 95k/s -> 142k/s, 73 MB -> 47 MB, a query's p50 1.4 -> 1.9 ms.
extension Schema {
    static let searchIndex = """
        CREATE VIRTUAL TABLE messages_search USING fts5(
            content, content = 'messages', content_rowid = 'seq', tokenize = 'trigram', columnsize = 0, detail = none);
        CREATE TABLE search_indexed (upto INTEGER NOT NULL);
        INSERT INTO messages_search (messages_search) VALUES ('rebuild');
        INSERT INTO search_indexed (upto) SELECT coalesce(max(seq), 0) FROM messages;
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages
            WHEN old.seq <= (SELECT upto FROM search_indexed) BEGIN
            INSERT INTO messages_search (messages_search, rowid, content) VALUES ('delete', old.seq, old.content);
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF content, seq ON messages
            WHEN old.seq <= (SELECT upto FROM search_indexed) BEGIN
            INSERT INTO messages_search (messages_search, rowid, content) VALUES ('delete', old.seq, old.content);
            INSERT INTO messages_search (rowid, content) VALUES (new.seq, new.content);
        END;
        """
}
