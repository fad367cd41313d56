import ChatCore
import Testing
@testable import ChatNode

/// A step planned on top of one whose commit has not returned reads the
/// authors' standing as that commit leaves it, not as the lookup (made
/// before it) found it.
@Suite struct NodePlanStandingTests {
    static let stranger = NodeNumber(rawValue: 7)!
    static let regular = NodeNumber(rawValue: 8)!

    static func message(_ seq: Int64, by author: NodeNumber) -> Message {
        Message(id: MessageID(millis: 1_732_147_200_000 + seq, random: (UInt64(seq), 3)), room: .publicRoom,
                senderNumber: author, senderNickname: "n", content: "m", timestamp: 1_732_147_200_000 + seq)
    }

    @Test func whatThePriorStepPoolsAndUnpoolsIsCounted() {
        var prior = NodePlan()
        prior.changes.now = 1_732_147_300_000
        let first = Self.message(1, by: Self.stranger)
        prior.changes.messages = [first, Self.message(2, by: Self.regular)]
        prior.changes.pooled = [first.id]
        prior.changes.unpooled = [Self.regular]
        let looked = [Self.regular: AuthorStanding(firstSeen: 1_000, pooledMessages: 3)]

        let standing = prior.standing(after: looked)
        #expect(standing[Self.stranger] == AuthorStanding(firstSeen: 1_732_147_300_000, pooledMessages: 1),
                "first stored by the prior step, and pooled: a later accept must unpool it")
        #expect(standing[Self.regular] == AuthorStanding(firstSeen: 1_000, pooledMessages: 0),
                "unpooled by the prior step; its first sighting stays")
        #expect(NodePlan().standing(after: looked) == looked, "an empty step changes nothing")
    }
}
