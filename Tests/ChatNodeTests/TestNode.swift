import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// A node on an in-memory network, with its events recorded: the one way
/// the node tests build a node.
struct TestNode {
    let node: ChatNode
    let transport: InMemoryTransport
    let log: EventLog<NodeEvent>
    let identity: NodeIdentity
    let store: ChatStore
    /// The node's view of `store`, which can be made to fail.
    let faults: FaultyStore

    /// A started node with `store`, or a store of its own: in memory, or
    /// the SQLite file at `path`.
    init(_ identity: NodeIdentity, on network: InMemoryNetwork, clock: any ChatClock = SystemClock(),
         path: String? = nil, store: ChatStore? = nil, options: NodeOptions = NodeOptions(),
         authenticator: (any MessageAuthenticator)? = nil, identityKey: String? = nil) async throws {
        self.identity = identity
        transport = network.transport(for: identity, identityKey: identityKey)
        self.store = try store ?? ChatStore(path: path, localNumber: identity.number)
        faults = FaultyStore(self.store)
        node = ChatNode(identity: identity, transport: transport, store: faults, clock: clock,
                        authenticator: authenticator, options: options)
        log = EventLog(node.events)
        try await node.start()
    }

    init(_ nickname: String, number: UInt64, on network: InMemoryNetwork, clock: any ChatClock = SystemClock(), path: String? = nil,
         options: NodeOptions = NodeOptions()) async throws {
        try await self.init(NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: nickname),
                            on: network, clock: clock, path: path, options: options)
    }

    /// Nodes numbered 1, 2, … with these nicknames on a fresh network,
    /// sharing `clock`, each linked to all the others. `options` are the
    /// first node's (the one under test).
    static func mesh(_ nicknames: [String], clock: any ChatClock = SystemClock(), options: NodeOptions = NodeOptions())
        async throws -> (network: InMemoryNetwork, nodes: [TestNode]) {
        let network = InMemoryNetwork()
        var nodes: [TestNode] = []
        for (index, nickname) in nicknames.enumerated() {
            nodes.append(try await TestNode(nickname, number: UInt64(index + 1), on: network, clock: clock,
                                            options: index == 0 ? options : NodeOptions()))
        }
        for node in nodes { try await node.waitForPeers(nodes.count - 1) }
        return (network, nodes)
    }

    /// Alice (1) and Bob (2), linked: where most node tests start. With
    /// `conversation`, alice has also asked bob for a DM conversation and
    /// he accepted.
    static func linkedPair(clock: any ChatClock = SystemClock(), conversation: Bool = false)
        async throws -> (network: InMemoryNetwork, alice: TestNode, bob: TestNode) {
        let (network, nodes) = try await mesh(["alice", "bob"], clock: clock)
        if conversation { try await nodes[0].openConversation(with: nodes[1]) }
        return (network, nodes[0], nodes[1])
    }

    func messages() -> [Message] {
        log.events.compactMap { if case .message(let m) = $0 { m } else { nil } }
    }

    func waitForMessage(_ text: String) async throws -> Message {
        try await log.first("message \(text)") { if case .message(let m) = $0, m.content == text { m } else { nil } }
    }

    func waitForPeers(_ count: Int) async throws {
        try #require(await waitUntil("\(count) peers") { await node.peers().count == count })
    }

    /// Opens a DM conversation self -> `peer` (request saying `text`,
    /// accept) and waits for it.
    func openConversation(with peer: TestNode, saying text: String? = nil) async throws {
        try await node.sendDirect(text ?? "hello \(peer.identity.nickname)", to: peer.identity.number)
        try await peer.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        try await peer.node.accept("\(identity.number)")
        try await log.first("accepted") { if case .dmState(_, _, .accepted) = $0 { true } else { nil } }
    }

    /// Contents of the DMs this node stored from `sender`, in display order.
    func storedDMs(from sender: TestNode) async throws -> [String] {
        try await store.page(.direct(sender.identity.number), after: nil, limit: 1000)
            .filter { $0.senderNumber == sender.identity.number }.map(\.content)
    }

    /// Ids of every public message this node stored.
    func storedPublic() async throws -> Set<MessageID> {
        var ids = Set<MessageID>()
        var cursor: HistoryCursor?
        while true {
            let page = try await store.page(.publicRoom, after: cursor, limit: 1000)
            ids.formUnion(page.map(\.id))
            guard page.count == 1000, let last = page.last else { return ids }
            cursor = HistoryCursor(last)
        }
    }
}

enum NodeFixture {
    /// A fresh directory for SQLite files, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lanchat-node-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Advances the manual clock in big steps so retries come due, until
    /// `condition` holds.
    static func retryUntil(_ what: String, clock: ManualClock, _ condition: () async throws -> Bool) async throws {
        try #require(await waitUntil(what, within: .seconds(20)) {
            if try await condition() { return true }
            // The node's outbox tick waits on this clock: the advance fires it.
            clock.advance(by: .seconds(31))
            return false
        })
    }
}
