import ChatCore

/// The key ledger's reads and its one write (Schema+Keys.swift). The node
/// reads every row at start (the ledger is bounded) and writes each change
/// in one transaction before it changes its memory.
extension ChatStore {
    public func keyLedger() throws(StoreError) -> KeyLedgerRows {
        let database = try db()
        return try database.reading { () throws(StoreError) -> KeyLedgerRows in
            var rows = KeyLedgerRows()
            try database.withStatement(
                "SELECT key, nickname, first_seen, last_seen, trust, verified_at FROM peer_keys ORDER BY first_seen, key"
            ) { statement throws(StoreError) in
                while try statement.step() {
                    rows.keys.append(KeyRecord(
                        key: statement.string(0) ?? "", nickname: statement.string(1) ?? "",
                        firstSeen: statement.int64(2), lastSeen: statement.int64(3),
                        trust: TrustState(rawValue: statement.string(4) ?? "") ?? .new,
                        verifiedAt: statement.isNull(5) ? nil : statement.int64(5)))
                }
            }
            try database.withStatement("SELECT name, key, pinned_at FROM key_pins ORDER BY name") { statement throws(StoreError) in
                while try statement.step() {
                    rows.pins.append(KeyPin(name: statement.string(0) ?? "", key: statement.string(1) ?? "", pinnedAt: statement.int64(2)))
                }
            }
            return rows
        }
    }

    /// Writes `changes` in one transaction: all of it or none.
    public func commitKeys(_ changes: KeyChanges) throws(StoreError) {
        if changes.isEmpty { return }
        let database = try db()
        try database.transaction { () throws(StoreError) in
            for key in changes.removedKeys {
                for sql in ["DELETE FROM key_pins WHERE key = ?1", "DELETE FROM peer_keys WHERE key = ?1"] {
                    try database.withStatement(sql) { statement throws(StoreError) in
                        try statement.bind(key, at: 1)
                        try statement.run()
                    }
                }
            }
            for name in changes.removedPins {
                try database.withStatement("DELETE FROM key_pins WHERE name = ?1") { statement throws(StoreError) in
                    try statement.bind(name, at: 1)
                    try statement.run()
                }
            }
            for record in changes.keys {
                try database.withStatement("""
                    INSERT OR REPLACE INTO peer_keys (key, nickname, first_seen, last_seen, trust, verified_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """) { statement throws(StoreError) in
                    try statement.bind(record.key, at: 1)
                    try statement.bind(record.nickname, at: 2)
                    try statement.bind(record.firstSeen, at: 3)
                    try statement.bind(record.lastSeen, at: 4)
                    try statement.bind(record.trust.rawValue, at: 5)
                    try statement.bind(record.verifiedAt, at: 6)
                    try statement.run()
                }
            }
            for pin in changes.pins {
                try database.withStatement("INSERT OR REPLACE INTO key_pins (name, key, pinned_at) VALUES (?1, ?2, ?3)") { statement throws(StoreError) in
                    try statement.bind(pin.name, at: 1)
                    try statement.bind(pin.key, at: 2)
                    try statement.bind(pin.pinnedAt, at: 3)
                    try statement.run()
                }
            }
        }
    }
}
