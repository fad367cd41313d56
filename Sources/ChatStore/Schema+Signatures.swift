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
