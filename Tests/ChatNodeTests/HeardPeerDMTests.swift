import ChatCore
import Testing
import TestSupport
@testable import ChatNode

/// Above the overlay's threshold most of the LAN is heard, not linked: a
/// DM by name goes to a peer known only by its beacons (the transport then
/// links on demand or seals it), and a link or conversation's name wins.
@Suite struct HeardPeerDMTests {
    @Test func aDMByNameReachesAPeerOnlyHeard() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network)
        let bob = NodeNumber(rawValue: 77)!
        await #expect(throws: NodeError.self) { try await alice.node.sendDirect("hi", to: "bob") }
        alice.transport.hear(PeerInfo(number: bob, nickname: "bob", instanceId: "b0b", address: "10.0.0.7:4000"))
        let sent = try await alice.node.sendDirect("hi", to: "bob")
        #expect(sent.room == .direct(bob))
        await #expect(throws: NodeError.self, "a name nobody has is still refused") {
            try await alice.node.sendDirect("hi", to: "carol")
        }
    }
}
