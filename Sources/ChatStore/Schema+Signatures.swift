/// Migration 4: where a public message's author signature and public key
/// are kept (base64 text, as they arrived), so catch-up replies can relay
/// them and the receiver can check the author itself. Nullable: DMs, and
/// messages stored before signing existed, have none.
extension Schema {
    static let signatureColumns = """
        ALTER TABLE messages ADD COLUMN signature TEXT;
        ALTER TABLE messages ADD COLUMN author_key TEXT;
        """
}

/// Migration 6: the timestamp a public message's author signed, kept when
/// the receiver clamped `sent_at` for a clock far ahead; NULL otherwise.
/// Without it a clamped message no longer verifies, so it cannot be relayed.
extension Schema {
    static let signedTimestampColumn = """
        ALTER TABLE messages ADD COLUMN signed_at INTEGER;
        """
}
