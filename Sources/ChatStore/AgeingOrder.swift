import ChatCore

/// What else a commit holding the user's own messages (their sends, and
/// the DMs of conversations they accepted or started) may age out when the
/// files are full and the unknown authors' pool cannot make room: known
/// peers' oldest messages, then verified peers' oldest, then the user's
/// own oldest public messages (ChatStore+AgeingOrder.swift). Never a
/// message of the user's conversations, so never a DM still waiting for
/// its acknowledgement, and never the commit's own rows.
public struct AgeingOrder: Hashable, Sendable {
    /// The DM rooms of the conversations the user accepted or started.
    public var conversations: Set<RoomID>
    /// Peers whose keys the user verified: theirs go after the other peers'.
    public var verified: Set<NodeNumber>

    public init(conversations: Set<RoomID> = [], verified: Set<NodeNumber> = []) {
        self.conversations = conversations
        self.verified = verified
    }
}
