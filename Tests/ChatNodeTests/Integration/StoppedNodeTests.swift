import ChatCore
import ChatNode
import ChatStore
import Testing
import TestSupport

/// A node that is not running refuses commands with a clear error and
/// stores nothing: before `start()` and after `stop()` nothing would send
/// what it stored.
@Suite(.realTime) struct StoppedNodeTests {
    static let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
    static let bob = NodeNumber(rawValue: 2)!

    @Test func commandsBeforeStartAndAfterStopAreRefused() async throws {
        let store = try ChatStore(path: nil, localNumber: Self.me.number)
        let node = ChatNode(identity: Self.me, transport: ScriptedTransport(), store: store)
        await #expect(throws: NodeError.notRunning) { try await node.sendPublic("too early") }

        try await node.start()
        try await node.sendPublic("while running")
        await node.stop()
        await #expect(throws: NodeError.notRunning) { try await node.sendPublic("too late") }
        await #expect(throws: NodeError.notRunning) { try await node.sendDirect("too late", to: Self.bob) }
        #expect(try await store.page(.publicRoom, before: nil, limit: 10).map(\.content) == ["while running"])
    }
}
