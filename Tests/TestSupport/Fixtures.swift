import ChatCore

/// Shared values for the chat model and frame tests (ChatCoreTests,
/// ChatWireTests): a few nodes, a fixed time, and frame builders that fill
/// in the fields a test does not care about. A target adds its own in an
/// extension.
public enum Fixtures {
    /// 2024-11-21T00:00:00Z in wire milliseconds.
    public static let t0: Int64 = 1_732_147_200_000

    public static let alice = NodeIdentity(number: node(1), nickname: "alice", stage: "ios")
    public static let bob = NodeIdentity(number: node(2), nickname: "bob")
    public static let carol = NodeIdentity(number: node(3), nickname: "carol", stage: "web")

    public static func node(_ raw: UInt64) -> NodeNumber {
        guard let number = NodeNumber(rawValue: raw) else { fatalError("bad fixture node number \(raw)") }
        return number
    }

    /// A version 7 id whose random bits are `sequence`, so ids made with
    /// growing sequences at one millisecond sort in that order.
    public static func id(_ sequence: UInt64, millis: Int64 = t0) -> MessageID {
        MessageID(millis: millis, random: (0, sequence))
    }

    public static func frame(
        _ type: PayloadType, from sender: NodeIdentity, to target: NodeIdentity? = nil,
        content: String = "", id: MessageID = Fixtures.id(1), at timestamp: Int64 = t0, refId: MessageID? = nil
    ) -> P2PPayload {
        P2PPayload(
            type: type, messageId: id, senderNumber: sender.number, senderNickname: sender.nickname,
            senderStage: sender.stage, content: content, timestamp: timestamp,
            targetNumber: target?.number, refId: refId)
    }
}
