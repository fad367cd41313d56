/// The key ledger: every identity key the node has seen, how far the user
/// trusts it, and which key each nickname belongs to, so a new key behind a
/// known nickname is flagged after a restart too (SSH's known_hosts,
/// Signal's safety-number changes). Bounded by the node (`KeyLedger`).
extension Schema {
    static let keyLedger = """
        CREATE TABLE peer_keys (
            key TEXT NOT NULL PRIMARY KEY CHECK (length(key) = 44),  -- Ed25519 public key, base64
            nickname TEXT NOT NULL,          -- the nickname it used last
            first_seen INTEGER NOT NULL,     -- ms since 1970, this node's clock
            last_seen INTEGER NOT NULL,
            trust TEXT NOT NULL DEFAULT 'new' CHECK (trust IN ('new', 'known', 'verified')),
            verified_at INTEGER
        ) WITHOUT ROWID;
        -- Eviction takes the least recently seen 'new' key.
        CREATE INDEX peer_keys_evict ON peer_keys (trust, last_seen);

        CREATE TABLE key_pins (
            name TEXT NOT NULL PRIMARY KEY,  -- nickname folded by LookAlike.key
            key TEXT NOT NULL,               -- peer_keys.key
            pinned_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX key_pins_key ON key_pins (key);
        """
}
