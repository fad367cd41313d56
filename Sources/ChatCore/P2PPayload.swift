/// One frame on a peer link: a single JSON object, the plaintext of one
/// record (ChatWire's `P2PFrameCodec` reads and writes it).
///
/// Field names are the seed's (`type`, `messageId`, `senderNumber`,
/// `senderNickname`, `senderStage`, `content`, `timestamp`, `targetNumber`);
/// the rest are optional extensions used by some types. Example:
///
///     {"version":2,"type":"publicMessage","messageId":"0190f3c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f",
///      "senderNumber":4711,"senderNickname":"alice","senderStage":"ios",
///      "content":"hi all","timestamp":1732147200000}
///
/// Limits enforced when decoding (see `P2PFrameCodec`): the frame is at
/// most `ChatLimits.maxFrameBytes` bytes of UTF-8; `senderNumber` and
/// `targetNumber` are in 1...2^53-1; `timestamp` is milliseconds since 1970
/// between 2000 and 9999. Chat text rules (240 characters) are the chat
/// models' job, since they apply on send too.
///
/// Public messages carry their author's `signature` and `authorKey`
/// (standard base64 of the 64-byte Ed25519 signature and the 32-byte public
/// key) over `PublicMessageSignature.canonicalBytes(of:)`; a history reply
/// relays them unchanged, so a receiver can check a message it did not get
/// from its author (see PROTOCOL.md, "Signed public messages").
public struct P2PPayload: Hashable, Sendable, Codable {
    /// Protocol version of the sender; this build speaks `P2PPayload.protocolVersion`.
    public var version: Int
    public var type: PayloadType
    /// Time-ordered id of this frame (UUIDv7).
    public var messageId: MessageID
    public var senderNumber: NodeNumber
    public var senderNickname: String
    /// The sender's stage (a free label such as a team or track); nil for none.
    public var senderStage: String?
    /// Chat text for message types; empty for control frames.
    public var content: String
    /// Milliseconds since 1970, UTC, when the sender created the frame.
    public var timestamp: Int64
    /// The peer a direct frame is for.
    public var targetNumber: NodeNumber?

    /// Another frame this one answers (ack, dmAccept, dmDecline, pong).
    public var refId: MessageID?
    /// Set by bots: an automatic message, which bots never answer.
    public var automatic: Bool?

    /// hello: the sender's per-start instance id.
    public var instanceId: String?
    /// hello: the TCP port the sender listens on.
    public var listenPort: Int?
    /// hello: optional features the sender speaks (e.g. "ack", "history").
    public var capabilities: [String]?

    /// historyRequest: return public messages after this (timestamp, id) cursor.
    public var sinceTimestamp: Int64?
    public var sinceId: MessageID?
    /// historyRequest: most messages wanted in one reply.
    public var limit: Int?
    /// historyReply: the messages, oldest first, as the frames they arrived in.
    public var messages: [P2PPayload]?
    /// historyReply: whether more messages follow the last one sent.
    public var more: Bool?
    /// historyRequest: where in the answering peer's own numbering to
    /// continue (absent: first contact). historyReply: the position of the
    /// last message included, for the next request. A nested object, so
    /// such frames take the decoder's general path.
    public var catchUp: CatchUpCursor?

    /// publicMessage: the author's Ed25519 signature over the canonical
    /// bytes (base64, 64 bytes decoded).
    public var signature: String?
    /// publicMessage: the author's Ed25519 public key (base64, 32 bytes
    /// decoded); the sender number must derive from it.
    public var authorKey: String?

    /// Not on the wire: `timestamp` as the author sent and signed it, set
    /// when the receiver clamps `timestamp` for a clock far ahead, so the
    /// stored message can still be relayed with the bytes its signature
    /// covers.
    public var signedTimestamp: Int64? = nil

    /// The wire fields (all but `signedTimestamp`).
    enum CodingKeys: String, CodingKey {
        case version, type, messageId, senderNumber, senderNickname, senderStage, content, timestamp, targetNumber
        case refId, automatic, instanceId, listenPort, capabilities, sinceTimestamp, sinceId, limit, messages, more
        case catchUp, signature, authorKey
    }

    public static let protocolVersion = 2

    public init(
        type: PayloadType,
        messageId: MessageID,
        senderNumber: NodeNumber,
        senderNickname: String,
        senderStage: String? = nil,
        content: String = "",
        timestamp: Int64,
        targetNumber: NodeNumber? = nil,
        refId: MessageID? = nil,
        automatic: Bool? = nil,
        version: Int = P2PPayload.protocolVersion
    ) {
        self.version = version
        self.type = type
        self.messageId = messageId
        self.senderNumber = senderNumber
        self.senderNickname = senderNickname
        self.senderStage = senderStage
        self.content = content
        self.timestamp = timestamp
        self.targetNumber = targetNumber
        self.refId = refId
        self.automatic = automatic
    }

    /// The room a chat frame belongs to, seen from `localNumber`: public
    /// messages go to the public room, direct ones to the conversation with
    /// the other side.
    public func room(localNumber: NodeNumber) -> RoomID {
        guard type.isDirect else { return .publicRoom }
        if senderNumber == localNumber, let target = targetNumber { return .direct(target) }
        return .direct(senderNumber)
    }
}
