/// Migration 9: `/search` through SQLite's FTS5 with the trigram tokenizer,
/// which indexes every run of three characters, so a substring in any
/// script is found (Korean has no spaces between many words).
///
/// An external-content index: the text stays in `messages` only, and the
/// index rowid is the message's arrival number `seq` (unique, and
/// `messages_seq` maps it back). The rebuild indexes an older file's rows
/// once, in the migration's own transaction.
///
/// Kept in the same transaction as every write, so a rolled-back commit
/// leaves no index row: `insertNew` indexes each new message itself (see
/// `SQL.indexForSearch`), and triggers take out what a DELETE (an in-memory
/// trim) or a change of text removes. Not an insert trigger: a statement
/// with triggers runs in a statement savepoint, and FTS5 flushes its
/// pending terms to a new segment at every savepoint, so each message
/// became a one-row segment to merge (bulk import fell from 163k/s to
/// 15k/s here; indexing from the insert loop keeps the terms pending until
/// the commit). Rows written by other programs (the sqlite3 shell) are not
/// indexed until the next rebuild.
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
        CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
            INSERT INTO messages_search (messages_search, rowid, content) VALUES ('delete', old.seq, old.content);
        END;
        CREATE TRIGGER messages_search_update AFTER UPDATE OF content, seq ON messages BEGIN
            INSERT INTO messages_search (messages_search, rowid, content) VALUES ('delete', old.seq, old.content);
            INSERT INTO messages_search (rowid, content) VALUES (new.seq, new.content);
        END;
        INSERT INTO messages_search (messages_search) VALUES ('rebuild');
        """
}
