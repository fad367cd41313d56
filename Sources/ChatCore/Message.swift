import Foundation

/// A chat message as the models and the store hold it.
///
/// Whether it is "mine" is not stored: `isFromCurrentUser(_:)` decides it from
/// the sender and the local identity the caller injects.
public struct Message: Hashable, Sendable, Identifiable, Codable {
    public var id: MessageID
    public var room: RoomID
    public var senderNumber: NodeNumber
    public var senderNickname: String
    public var senderStage: String?
    /// Trimmed, validated text.
    public var content: String
    /// Milliseconds since 1970 (the sender's clock).
    public var timestamp: Int64
    /// Sent by a bot.
    public var automatic: Bool
    /// Public messages: the author's signature and public key as they
    /// arrived (base64), kept so catch-up can relay them; nil if unsigned.
    public var signature: String?
    public var authorKey: String?
    /// The timestamp its author signed, kept only when `timestamp` was
    /// clamped for a clock far ahead (relays send this one).
    public var signedTimestamp: Int64?

    public init(
        id: MessageID, room: RoomID, senderNumber: NodeNumber, senderNickname: String,
        senderStage: String? = nil, content: String, timestamp: Int64, automatic: Bool = false
    ) {
        self.id = id
        self.room = room
        self.senderNumber = senderNumber
        self.senderNickname = senderNickname
        self.senderStage = senderStage
        self.content = content
        self.timestamp = timestamp
        self.automatic = automatic
    }

    /// Builds a message from a chat frame, applying the text rules (a peer
    /// can lie, so received text is validated like typed text).
    ///
    /// - Parameter localNumber: the local node, to tell which side of a DM
    ///   conversation this is.
    public init(from payload: P2PPayload, localNumber: NodeNumber) throws(TextValidationError) {
        self.init(
            id: payload.messageId,
            room: payload.room(localNumber: localNumber),
            senderNumber: payload.senderNumber,
            senderNickname: payload.senderNickname,
            senderStage: payload.senderStage,
            content: try MessageText.validated(payload.content),
            timestamp: payload.timestamp,
            automatic: payload.automatic ?? false)
        signature = payload.signature
        authorKey = payload.authorKey
        signedTimestamp = payload.signedTimestamp
    }

    public var sentAt: Date { Timestamp.date(fromMillis: timestamp) }

    /// Whether the local user wrote this message.
    public func isFromCurrentUser(_ identity: NodeIdentity) -> Bool {
        senderNumber == identity.number
    }

    /// The order messages display in: by time, then id (stable when many
    /// share a timestamp).
    public static func displayOrder(_ lhs: Message, _ rhs: Message) -> Bool {
        lhs.timestamp != rhs.timestamp ? lhs.timestamp < rhs.timestamp : lhs.id < rhs.id
    }
}
