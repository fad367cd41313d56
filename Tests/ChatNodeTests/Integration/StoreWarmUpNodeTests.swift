import ChatCore
import ChatNode
@testable import ChatStore
import Testing
import TestSupport

/// A starting node rehearses a received message's store turn
/// (`ChatStore.warmUp`), so its first message from a peer costs what the
/// next do; the rehearsal leaves no message behind.
@Suite(.realTime) struct StoreWarmUpNodeTests {
    @Test func aStartingNodeWarmsItsStoreAndStoresNothing() async throws {
        let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
        let store = try ChatStore(path: nil, localNumber: me.number)
        let node = ChatNode(identity: me, transport: ScriptedTransport(), store: store)
        try await node.start()
        #expect(try await store.virtualMachineSteps(of: SQL.insertMessage) > 0)
        #expect(try await store.page(.publicRoom, before: nil, limit: 10).isEmpty)
        #expect(try await store.lastSeq() == 0)
        await node.stop()
    }
}
