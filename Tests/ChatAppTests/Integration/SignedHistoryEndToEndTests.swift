import Foundation
import Testing
import TestSupport

/// Real processes: a public message reaches a node that joins after its
/// author left, through a third node's catch-up, still as the author's:
/// the signature made by one process verifies in another.
@Suite(.realTime) struct SignedHistoryEndToEndTests {
    @Test func aMessageRelayedByCatchUpStaysTheAuthors() async throws {
        let port = EndToEndTests.discoveryPort()
        let alice = try EndToEndTests.node("alice", port: port), bob = try EndToEndTests.node("bob", port: port)
        defer { [alice, bob].forEach { $0.kill9() } }
        let aliceNumber = try await EndToEndTests.number(of: alice)
        try await EndToEndTests.waitForPeers(alice, ["bob"])
        alice.send(json: ["cmd": "send", "text": "signed by alice"])
        try await bob.event("alice's message") { $0["event"] as? String == "message" && $0["text"] as? String == "signed by alice" }
        alice.send(json: ["cmd": "quit"])
        #expect(try await alice.waitForExit() == 0)

        let carol = try EndToEndTests.node("carol", port: port)
        defer { carol.kill9() }
        let relayed = try await carol.event("relayed message", within: .seconds(15)) {
            $0["event"] as? String == "message" && $0["text"] as? String == "signed by alice"
        }
        #expect(relayed["from"] as? Int == aliceNumber)
        carol.send(json: ["cmd": "stats", "id": "s"])
        let stats = try await carol.event("stats") { $0["re"] as? String == "s" }
        #expect((stats["signatureRefusals"] as? [String: Int])?.isEmpty == true)
        #expect(stats["catchUpUnsolicited"] as? Int == 0)
    }
}
