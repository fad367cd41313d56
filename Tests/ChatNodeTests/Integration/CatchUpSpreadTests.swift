import ChatCore
import ChatCrypto
import Testing
import TestSupport
@testable import ChatNode

/// What a catch-up stores is handed to the transport to spread (the
/// overlay tells its neighbours), as its authors signed it, and only once
/// it is committed; what was already stored is not.
@Suite(.realTime) struct CatchUpSpreadTests {
    @Test func aCatchUpsNewMessagesAreSpreadAsSigned() async throws {
        let network = InMemoryNetwork()
        let signer = try TestSigner("bob")
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        let bob = try await TestNode(signer, on: network)
        try await alice.waitForPeers(1)
        // Alice's first catch-up of bob (asked on linking) is over before bob
        // writes: else its reply may bring "seen live" ahead of the live frame
        // (and spread it, rightly), as it did on a loaded machine.
        try #require(await waitUntil("first catch-up of bob done") {
            let catchUp = await alice.node.core.catchUp
            return catchUp.cursors[bob.identity.number] != nil && catchUp.outstanding[bob.identity.number] == nil
        })
        let before = try await bob.node.sendPublic("seen live")
        _ = try await alice.waitForMessage("seen live")
        await network.cut(alice.identity.number, bob.identity.number)
        try await alice.waitForPeers(0)
        var missed: [MessageID] = []
        for n in 1...5 { missed.append(try await bob.node.sendPublic("while away \(n)").id) }
        // A send is answered after its commit but before its frame is handed
        // to the transport (ChatNode+Effects): healing now could let the
        // last one go out live after the heal, and a live message is not
        // spread. Wait until bob has handed his last step's frames over.
        await bob.node.finishApplying()
        await network.heal(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("alice caught up") { try await alice.storedPublic().isSuperset(of: missed) })
        try #require(await waitUntil("spread") { Set(alice.transport.spread.map(\.messageId)).isSuperset(of: missed) })
        let spread = alice.transport.spread
        #expect(!spread.contains { $0.messageId == before.id }, "what alice had is not spread again")
        #expect(spread.count == missed.count, "each once")
        for frame in spread { #expect(signer.authenticator.verify(frame).isValid, "as bob signed it") }
    }
}
