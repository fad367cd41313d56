import ChatCore
import Foundation
@testable import P2PTransport
import Testing

@Suite struct MeshTests {
    @Test func threeServicesFormAMeshAndExchangeFrames() async throws {
        let configuration = TestNetwork.configuration(discoveryPort: TestNetwork.discoveryPort())
        let alice = try await TestNode.started(101, "alice", configuration: configuration)
        let bob = try await TestNode.started(202, "bob", configuration: configuration)
        let carol = try await TestNode.started(303, "carol", configuration: configuration)
        let nodes = [alice, bob, carol]

        #expect(await waitUntil { await fullMesh(nodes) })
        #expect(await alice.service.broadcast(alice.publicMessage("hi all")) == 2)
        #expect(await waitUntil { bob.receivedTexts == ["hi all"] && carol.receivedTexts == ["hi all"] })

        #expect(await bob.service.send(bob.directMessage("psst", to: carol.number), to: carol.number))
        #expect(await waitUntil { carol.receivedTexts.contains("psst") })
        #expect(!alice.receivedTexts.contains("psst"))
        for node in nodes { #expect(await node.service.linkCountForTesting() == 2) }
        for node in nodes { await node.service.stop() }
    }
}
