/// A statement cache key: the SQL text, hashed by its length and last
/// bytes only. Hashing every byte cost more than some of the statements
/// it found (the room's upsert is 700 bytes, and a lone message's turn
/// looks up a dozen statements); equality still compares the whole text,
/// which for the same constant is one comparison of its storage.
struct StatementKey: Hashable {
    let sql: String

    init(_ sql: String) {
        self.sql = sql
    }

    func hash(into hasher: inout Hasher) {
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        // The tails differ where the heads (SELECT ..., INSERT INTO ...) do not.
        for byte in utf8.suffix(24) { hasher.combine(byte) }
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.sql == rhs.sql }
}
