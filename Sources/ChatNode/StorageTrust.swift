import ChatCore

/// Whose messages a node keeps, and how much room they get: storage is
/// shared by trust, not by identity, so a thousand fresh keys get what one
/// gets (ChatNode+TrustPools.swift).
public enum StorageTrust: String, Hashable, Sendable, CaseIterable {
    /// The user's own messages and the DMs of conversations the user
    /// accepted or started: always room, never refused for a quota and
    /// never aged out by others' traffic; on full files they make room by
    /// ageing out others' oldest, then the user's own oldest public ones
    /// (`AgeingOrder`).
    case own
    /// A peer whose key the user verified (the key ledger says so, or
    /// `NodeOptions.verifiedPeers`): room of its own, a share of the history.
    case verified
    /// A peer the user talked with (a DM conversation accepted or started),
    /// or whose messages were stored at least `NodeLimits.knownAfter` ago:
    /// room of its own, like a verified one.
    case known
    /// Anyone else, one fresh key or a thousand: one pool shared by all,
    /// which keeps the newest and ages out the oldest when full.
    case unknown
}

/// Peers to treat as verified besides those the node's key ledger marks
/// (tests; a front end's own list). Called while a step is planned, on
/// the node's actor: it must answer at once, from memory.
public typealias VerifiedPeers = @Sendable (NodeNumber) -> Bool
