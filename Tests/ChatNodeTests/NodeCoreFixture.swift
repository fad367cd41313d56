import ChatCore
@testable import ChatNode

/// A node's core with no actor, store, socket or clock: alice (1) with bob
/// (2) linked, and the frames the pure core tests feed it.
enum NodeCoreFixture {
    static let alice = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "alice")
    static let bob = NodeNumber(rawValue: 2)!
    static let carol = NodeNumber(rawValue: 3)!
    /// The step's time, on no clock: planning takes it from its input.
    static let now: Int64 = 1_732_147_200_000

    static func id(_ n: UInt64) -> MessageID { MessageID(millis: now - 10_000 + Int64(n), random: (n, n)) }

    static func core() -> NodeCore {
        var core = NodeCore(identity: alice)
        core.directory.upsert(PeerInfo(number: bob, nickname: "bob", instanceId: "b", address: "10.0.0.2"))
        return core
    }

    static func publicMessage(_ n: UInt64, by author: NodeNumber = bob, text: String = "hi") -> P2PPayload {
        P2PPayload(type: .publicMessage, messageId: id(n), senderNumber: author, senderNickname: "\(author)",
                   content: text, timestamp: now - 5_000)
    }

    static func dm(_ n: UInt64, type: PayloadType = .dmRequest, from peer: NodeNumber = bob) -> P2PPayload {
        P2PPayload(type: type, messageId: id(n), senderNumber: peer, senderNickname: "bob",
                   content: "psst", timestamp: now - 5_000, targetNumber: alice.number)
    }

    /// A step's input as the carrier hands it over: `frames` from `peer`,
    /// looked up (`stored`: the ids the store holds).
    static func input(_ frames: [P2PPayload], from peer: NodeNumber = bob, stored: Set<MessageID> = [],
                      commands: [PendingCommand] = []) -> StepInput {
        let ids = frames.flatMap { [$0.messageId] + ($0.messages ?? []).map(\.messageId) }
        let authors = Set(frames.flatMap { [$0.senderNumber] + ($0.messages ?? []).map(\.senderNumber) })
            .subtracting([alice.number])
        return StepInput(frames: frames.map { ($0, peer) }, commands: commands, now: now, ids: ids, stored: stored,
                         authors: Array(authors), notices: [])
    }

    /// Everything a plan says, in a stable order: two plans of the same
    /// step print the same.
    static func fingerprint(_ plan: NodePlan) -> String {
        let changes = plan.changes
        return [
            "\(changes.messages.map(\.id))",
            "\(changes.deliveries.sorted { $0.key < $1.key })",
            "\(changes.conversations.sorted { $0.key < $1.key })",
            "\(changes.readMarkers.sorted { "\($0.key)" < "\($1.key)" })",
            "\(changes.settings.sorted { $0.key < $1.key })",
            "\(changes.pooled.sorted()) \(changes.unpooled.sorted())",
            "\(plan.effects)",
            "\(plan.notices)",
            "\(plan.catchUpPages)",
            "\(plan.counted)",
        ].joined(separator: "\n")
    }

    /// What a core holds that a step could change, in a stable order.
    static func fingerprint(_ core: NodeCore) -> String {
        let router = core.router
        return [
            "\(router.publicChat.messages.map(\.id)) unread \(router.publicChat.unreadCount)",
            "\(router.directChat.conversations.sorted { $0.key < $1.key }.map { ($0.key, $0.value.state, $0.value.log.messages.map(\.id), $0.value.log.unreadCount) })",
            "\(router.counters)",
            "\(core.catchUp.outstanding.sorted { $0.key < $1.key }) \(core.catchUp.cursors.sorted { $0.key < $1.key })",
            "\(core.catchUp.round)",
            "\(core.outbox.entries.keys.sorted())",
            "\(core.counters)",
        ].joined(separator: "\n")
    }
}
