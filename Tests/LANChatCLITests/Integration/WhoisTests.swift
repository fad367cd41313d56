import ChatCore
import ChatNode
import ChatStore
import Foundation
import LANChatCLI
import Testing
import TestSupport

/// `/whois NAME`: the number always, the key fingerprint while linked, and
/// a clear error for a name nobody has.
@Suite(.realTime) struct WhoisTests {
    @Test func aLinkedPeerShowsItsFingerprintAndAnUnknownNameIsRefused() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 1, network)
        let bob = try await CommandExecutorTests.peer("bob", 2, network)
        try #require(await waitUntil("linked") { await alice.node.peers().count == 1 })
        let executor = CommandExecutor(node: alice.node)

        guard case .whois(let found) = try await executor.run(.whois("bob")) else { Issue.record("not a whois"); return }
        #expect(found.number == bob.number && found.displayName == "bob")
        #expect(found.linked?.number == bob.number)
        await #expect(throws: NodeError.peer(.notFound("carol"))) { try await executor.run(.whois("carol")) }
        await #expect(throws: NodeError.self) { try await executor.run(.whois("public")) }

        var linked = try #require(found.linked)
        linked.fingerprint = "3f2a 9c01 0000 0000 0000 0000 0000 0001"
        let lines = ConsoleRenderer(useColor: false).whois(Whois(number: bob.number, displayName: "bob", linked: linked))
        #expect(lines.joined(separator: "\n").contains("key 3f2a 9c01 0000 0000 0000 0000 0000 0001"))
        let offline = ConsoleRenderer(useColor: false).whois(Whois(number: bob.number, displayName: "bob", linked: nil))
        #expect(offline.joined().contains("not linked now"))
        #expect(try ConsoleCommandParser.parse("/whois bob") == .whois("bob"))
    }
}
