import ChatCore
import ChatNode
import ChatStore
import Foundation
import ChatApp
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

    /// A Cyrillic look-alike of a linked peer's name: both carry their tag,
    /// and /whois says whom it looks like (console and --json alike).
    @Test func aLookAlikeIsTaggedAndWhoisSaysWhomItResembles() async throws {
        let network = InMemoryNetwork()
        let alice = try await CommandExecutorTests.peer("alice", 1, network)
        let bob = try await CommandExecutorTests.peer("bob", 2, network)
        let impostor = try await CommandExecutorTests.peer("b\u{043E}b", 3, network)  // Cyrillic o
        try #require(await waitUntil("linked") { await alice.node.peers().count == 2 })
        #expect(alice.node.displayName(for: bob.number, nickname: "bob") == "bob#\(bob.number.shortTag)")
        #expect(alice.node.displayName(for: impostor.number, nickname: "b\u{043E}b") == "b\u{043E}b#\(impostor.number.shortTag)")
        let executor = CommandExecutor(node: alice.node)
        guard case .whois(let found) = try await executor.run(.whois("#\(impostor.number.shortTag)")) else { Issue.record("not a whois"); return }
        #expect(found.looksLike == "bob")
        let lines = ConsoleRenderer(useColor: false).whois(found).joined(separator: "\n")
        #expect(lines.contains("looks like bob"))
        // "bob" alone names two peers now: asked, never guessed.
        await #expect(throws: NodeError.self) { try await executor.run(.whois("bob")) }
    }
}
