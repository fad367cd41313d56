/// Migration: file transfers the node must remember across a restart
/// (ChatStore+Files.swift): an accepted transfer resumes from its partial
/// file, an offer keeps being served. How far a receiver got is the
/// partial file's length, not a column: the file is the truth.
extension Schema {
    static let fileTransfers = """
        CREATE TABLE file_transfers (
            id BLOB NOT NULL PRIMARY KEY CHECK (length(id) = 16),  -- the offer's messageId
            direction TEXT NOT NULL,          -- 'sending' or 'receiving'
            peer INTEGER NOT NULL,            -- node number
            peer_nickname TEXT NOT NULL,
            peer_key TEXT NOT NULL,           -- Ed25519, base64, as the chat link proved it
            name TEXT NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            path TEXT NOT NULL,               -- sending: the file; receiving: partial, then saved
            modified INTEGER NOT NULL,        -- sending: mtime (ns) when offered
            port INTEGER NOT NULL,            -- receiving: the sender's transfer port
            state TEXT NOT NULL,
            bytes INTEGER NOT NULL,
            reason TEXT
        ) WITHOUT ROWID;
        """
}
