/// What a step needs to know from the store before it is planned, read in
/// one call (one hop to the store's thread, one read transaction): which
/// of its message ids are stored, and what its authors' stored messages
/// take (the per-peer quota) and their standing (the trust classes).
public struct StoreLookup: Sendable, Equatable {
    /// The asked ids that are stored (any room).
    public var stored: Set<MessageID>
    /// The asked authors' usage; an author with nothing stored is absent.
    public var usage: [NodeNumber: StorageUsage]
    /// The asked authors' standing; absent like `usage`.
    public var standing: [NodeNumber: AuthorStanding]

    public init(stored: Set<MessageID> = [], usage: [NodeNumber: StorageUsage] = [:], standing: [NodeNumber: AuthorStanding] = [:]) {
        self.stored = stored
        self.usage = usage
        self.standing = standing
    }
}

/// What the store knows of an author beyond its totals.
public struct AuthorStanding: Hashable, Sendable {
    /// When its first stored message arrived (this node's clock, ms): an
    /// author whose messages were stored a day ago counts as known. Nil
    /// for a file older than the column whose author had no rows then.
    public var firstSeen: Int64?
    /// Its messages in the pool unknown authors share.
    public var pooledMessages: Int

    public init(firstSeen: Int64?, pooledMessages: Int = 0) {
        self.firstSeen = firstSeen
        self.pooledMessages = pooledMessages
    }
}
