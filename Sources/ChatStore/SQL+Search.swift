/// The `/search` statements (see `Schema.searchIndex`, `ChatStore+Search`).
extension SQL {
    /// The newest ?3 messages whose text contains phrase ?1, stored before
    /// arrival ?2: FTS5 walks its doclists newest rowid first and stops at
    /// the limit; `messages_seq` maps each rowid back to its row.
    static let searchIndexed = """
        SELECT \(messageColumns), seq FROM messages WHERE seq IN (
            SELECT rowid FROM messages_search WHERE messages_search MATCH ?1 AND rowid < ?2
            ORDER BY rowid DESC LIMIT ?3)
        ORDER BY seq DESC
        """
    /// Text too short for the trigram index: the arrivals in [?2, ?1),
    /// newest first, whose text contains ?3 (ASCII case folded both sides),
    /// at most ?4. The window bounds the work a page does.
    static let searchScan = """
        SELECT \(messageColumns), seq FROM messages
        WHERE seq < ?1 AND seq >= ?2 AND instr(lower(content), ?3) > 0
        ORDER BY seq DESC LIMIT ?4
        """
    static let firstSeq = "SELECT min(seq) FROM messages"
    /// Indexes one new message: ?1 its `seq`, ?2 its text.
    static let indexForSearch = "INSERT INTO messages_search (rowid, content) VALUES (?1, ?2)"
}
