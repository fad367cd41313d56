import ChatCore

/// What a step needs to know from the store before it is planned, read in
/// one call (one hop to the store's thread, one read transaction): which
/// of its message ids are stored, and what its authors' stored messages
/// take (the per-peer quota).
public struct StoreLookup: Sendable, Equatable {
    /// The asked ids that are stored (any room).
    public var stored: Set<MessageID>
    /// The asked authors' usage; an author with nothing stored is absent.
    public var usage: [NodeNumber: StorageUsage]

    public init(stored: Set<MessageID> = [], usage: [NodeNumber: StorageUsage] = [:]) {
        self.stored = stored
        self.usage = usage
    }
}
