/// Migration 9: `/search` through SQLite's FTS5 with the trigram tokenizer,
/// which indexes every run of three characters, so a substring in any
/// script is found (Korean has no spaces between many words) and Latin
/// letters match in either case.
///
/// An external-content index: the text stays in `messages` only, and the
/// index rowid is the message's arrival number `seq` (unique, and
/// `messages_seq` maps it back). Triggers keep it, so every write that
/// adds, changes or removes a message (an insert, an in-memory trim, the
/// sqlite3 shell) changes the index in the same transaction: a rolled-back
/// commit leaves no index row. `INSERT ... ON CONFLICT DO NOTHING` fires no
/// insert trigger for a duplicate. The rebuild indexes an older file's rows
/// once, in the migration's own transaction.
///
/// `columnsize=0`: no per-message size table (only ranking by relevance
/// needs it, and results are newest first), one page less per commit.
/// The index costs about six 4 KiB WAL pages more per single-message
/// commit (a new level-0 segment and its structure record each time;
/// measured 3.3 -> 8.8 frames at a one-message commit), amortized over the
/// node's batched commits.
extension Schema {
    static let searchIndex = """
        CREATE VIRTUAL TABLE messages_search USING fts5(
            content, content = 'messages', content_rowid = 'seq', tokenize = 'trigram', columnsize = 0);
        CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
            INSERT INTO messages_search (rowid, content) VALUES (new.seq, new.content);
        END;
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
