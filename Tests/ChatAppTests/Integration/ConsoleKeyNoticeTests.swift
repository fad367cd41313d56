import ChatCore
import ChatCrypto
import ChatNode
import ChatStore
import Foundation
@testable import ChatApp
import Testing
import TestSupport

/// An impostor taking a known nickname is said once in the line console:
/// the key-change notice (with both `#tag`s), not also the older "a
/// different alice" on its join line; a second join in the same run gets a
/// short mark, as the node does not repeat the notice.
@Suite(.realTime) struct ConsoleKeyNoticeTests {
    /// A node whose number and link key come from a fresh Ed25519 key, as the app's.
    static func keyed(_ nickname: String, _ network: InMemoryNetwork) async throws -> CommandExecutorTests.Peer {
        let key = try IdentityKey.generate()
        let identity = NodeIdentity(number: key.nodeNumber, nickname: nickname)
        let transport = network.transport(for: identity, identityKey: Data(key.publicKey.rawValue).base64EncodedString())
        let node = ChatNode(identity: identity, transport: transport, store: try ChatStore(path: nil, localNumber: identity.number))
        let log = EventLog(node.events)
        try await node.start()
        return CommandExecutorTests.Peer(node: node, log: log, number: identity.number)
    }

    static func joined(_ number: NodeNumber, _ log: EventLog<NodeEvent>) async throws {
        try await log.first("\(number) joined") { event in
            if case .peerJoined(let info) = event, info.number == number { true } else { nil }
        }
    }

    @Test func anImpostorIsOneNoticeWithBothTags() async throws {
        let network = InMemoryNetwork()
        let bob = try await Self.keyed("bob", network)
        let alice = try await Self.keyed("alice", network)
        try await Self.joined(alice.number, bob.log)
        await alice.node.stop()
        try #require(await waitUntil("alice gone") { await bob.node.peers().isEmpty })
        let impostor = try await Self.keyed("alice", network)
        try await bob.log.first("keyChanged") { if case .keyChanged = $0 { true } else { nil } }

        let console = ReadingRuleTests.console(bob)
        for event in bob.log.events { await console.session.handle(event) }
        let lines = console.lines
        #expect(!lines.contains { $0.contains("a different") }, "\(lines)")
        let warnings = lines.filter { $0.contains("⚠") }
        #expect(warnings.count == 1, "\(lines)")
        let notice = try #require(warnings.first)
        #expect(notice.contains("#\(alice.number.shortTag)") && notice.contains("#\(impostor.number.shortTag)"), "both tags: \(notice)")
        #expect(notice.contains("alice's key is not the one you have seen since"))

        // Back in the same run: no second notice from the node, a mark on the join line.
        await impostor.node.stop()
        try #require(await waitUntil("impostor gone") { await bob.node.peers().isEmpty })
        let count = bob.log.events.count
        _ = try await Self.keyed("alice", network)  // another fresh key: its own notice
        try await bob.log.first("second keyChanged") { event in
            if case .keyChanged(let change) = event, change.peer.number != impostor.number { true } else { nil }
        }
        for event in bob.log.events.dropFirst(count) { await console.session.handle(event) }
        #expect(console.lines.filter { $0.contains("⚠") }.count == 2, "one per impostor key")
        await console.session.handle(.peerJoined(PeerInfo(number: impostor.number, nickname: "alice", instanceId: "", address: "127.0.0.1:9")))
        #expect(console.lines.last?.contains("⚠ key changed (/whois alice)") == true, "\(console.lines.last ?? "")")
        #expect(console.lines.filter { $0.contains("⚠") }.count == 3)
    }
}
