/// What one author's messages take in the store: the unit of the per-peer
/// storage quota (see `ChatLimits.storedBytesPerPeer`).
///
/// Bytes are counted the same way on both sides of the quota check, here
/// and in SQL (`SQL.accountedBytes`): the UTF-8 size of the text, names,
/// signature and author key, plus `rowOverhead` for the id, times,
/// sequence and index entries, so a flood of one-character messages is
/// counted at roughly what it costs on disk.
public struct StorageUsage: Hashable, Sendable {
    public var messages: Int
    public var bytes: Int

    public init(messages: Int = 0, bytes: Int = 0) {
        self.messages = messages
        self.bytes = bytes
    }

    /// Bytes counted for each row besides its text fields.
    public static let rowOverhead = 64

    /// The bytes `message` counts for.
    public static func bytes(of message: Message) -> Int {
        bytes(content: message.content, nickname: message.senderNickname, stage: message.senderStage,
              signature: message.signature, authorKey: message.authorKey)
    }

    /// The bytes a message with these fields counts for (a frame's fields
    /// before it becomes a `Message`).
    public static func bytes(content: String, nickname: String, stage: String?, signature: String?, authorKey: String?) -> Int {
        rowOverhead + content.utf8.count + nickname.utf8.count + (stage?.utf8.count ?? 0)
            + (signature?.utf8.count ?? 0) + (authorKey?.utf8.count ?? 0)
    }

    public mutating func add(_ bytes: Int) {
        messages += 1
        self.bytes += bytes
    }
}
