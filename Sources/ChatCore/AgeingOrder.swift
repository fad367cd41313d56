/// What else a commit may age out when the files are full, by whose
/// messages it holds (`rank`, the highest of them). The user's own (their
/// sends, and the DMs of conversations they accepted or started): the
/// pool, then known peers' oldest messages, then verified peers' oldest,
/// then the user's own oldest public messages (ChatStore+AgeingOrder.swift).
/// A peer's: the pool's part beyond its fair share, then its own class's
/// oldest and those below it (ChatStore+FairShare.swift). Never a message
/// of the user's conversations, so never a DM still waiting for its
/// acknowledgement, and never the commit's own rows.
public struct AgeingOrder: Hashable, Sendable {
    /// Whose messages a commit holds, lowest first.
    public enum Rank: Int, Comparable, Sendable {
        /// Only the pool's (unknown authors').
        case unknown
        /// Known peers' (no verified peer's, none of the user's own).
        case known
        /// A verified peer's (none of the user's own).
        case verified
        /// The user's own, or their conversations'.
        case own

        public static func < (lhs: Rank, rhs: Rank) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The DM rooms of the conversations the user accepted or started.
    public var conversations: Set<RoomID>
    /// Peers whose keys the user verified: theirs go after the other peers'.
    public var verified: Set<NodeNumber>
    /// Whose messages the commit holds.
    public var rank: Rank

    public init(conversations: Set<RoomID> = [], verified: Set<NodeNumber> = [], rank: Rank = .own) {
        self.conversations = conversations
        self.verified = verified
        self.rank = rank
    }
}
