import ChatCore
import ChatNode
import ChatStore
import Synchronization
import Testing
import TestSupport

/// A transport that records each call the node makes, batches included.
final class RecordingTransport: PeerTransport {
    let events = EventChannel<TransportEvent>(capacity: .max)
    /// What the test feeds the node (the events themselves).
    var feed: EventChannel<TransportEvent> { events }
    private let calls = Mutex<[[OutgoingFrame]]>([])

    init() {}

    /// One entry per call: a batch, or a single frame as a batch of one.
    var recorded: [[OutgoingFrame]] { calls.withLock { $0 } }

    func start() async throws {}
    func stop() async { feed.finish() }
    func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool {
        calls.withLock { $0.append([.to(peer, payload)]) }
        return true
    }
    func broadcast(_ payload: P2PPayload) async -> Int {
        calls.withLock { $0.append([.everyone(payload)]) }
        return 1
    }
    func send(batch frames: [OutgoingFrame]) async { calls.withLock { $0.append(frames) } }
    func updateIdentity(_ identity: NodeIdentity) async {}
    func connectedPeers() async -> [PeerInfo] { [] }
}

@Suite(.realTime) struct SendStepTests {
    /// Sends that arrive while a commit is in flight share the next step:
    /// their messages were signed before it (each in its caller's task,
    /// across cores), go out in the order of their ids, and reach the
    /// transport as one batch after the commit; a refused text among them
    /// fails alone.
    @Test func sendsSharingAStepAreSignedTogetherAndHandedOverAsOneBatch() async throws {
        let signer = try TestSigner("me")
        let transport = RecordingTransport()
        let store = FaultyStore(try ChatStore(path: nil, localNumber: signer.identity.number))
        let node = ChatNode(identity: signer.identity, transport: transport, store: store, authenticator: signer.authenticator)
        try await node.start()
        await store.setCommitDelay(.milliseconds(300))  // the first step holds the next ones back
        async let first = node.sendPublic("first")
        try #require(await waitUntil("first step committing") { await store.commits >= 1 })
        let count = 24
        let results = await withTaskGroup(of: Result<Message, NodeError>.self) { group in
            for index in 0..<count { group.addTask { await Self.send("m\(index)", on: node) } }
            group.addTask { await Self.send("   ", on: node) }
            var results: [Result<Message, NodeError>] = []
            for await result in group { results.append(result) }
            return results
        }
        _ = try await first
        let sent = results.compactMap { try? $0.get() }
        #expect(sent.count == count)
        #expect(results.count { if case .failure(.chat) = $0 { true } else { false } } == 1)

        // A send is answered right after its commit, before its frame is
        // handed over: wait for the hand-over, not the answer.
        try #require(await waitUntil("all frames handed over") { transport.recorded.flatMap { $0 }.count >= count + 1 })
        let frames = transport.recorded.flatMap { $0 }.compactMap { frame -> P2PPayload? in
            if case .everyone(let payload) = frame { payload } else { nil }
        }
        #expect(frames.count == count + 1)
        #expect(frames.map(\.messageId) == frames.map(\.messageId).sorted())
        for frame in frames { #expect(signer.authenticator.verify(frame) == .valid, "\(frame.content)") }
        // The stored copies keep the signature the peers got.
        for message in sent {
            let frame = try #require(frames.first { $0.messageId == message.id })
            #expect(message.signature == frame.signature && message.authorKey == frame.authorKey)
        }
        // Not one call per frame: the sends that waited were handed over together.
        #expect(transport.recorded.contains { $0.count >= 4 })
        #expect(transport.recorded.count < count)
        await node.stop()
    }

    static func send(_ text: String, on node: ChatNode) async -> Result<Message, NodeError> {
        do throws(NodeError) { return .success(try await node.sendPublic(text)) } catch { return .failure(error) }
    }
}

@Suite(.realTime) struct DirectSendStepTests {
    /// A DM to a linked peer is committed once, already "sent", and written
    /// right after that commit: the sender's commits on the way to the ack
    /// are the DM's and the acknowledgement's, nothing between. Events
    /// still go queued, sent, delivered.
    @Test func aDMToALinkedPeerIsCommittedAsSentInItsOwnTransaction() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair(conversation: true)
        let before = await alice.faults.commits
        let message = try await alice.node.sendDirect("one commit", to: bob.identity.number)
        try await alice.log.until("delivered", within: .seconds(10)) { events in
            events.contains { if case .delivery(message.id, _, .delivered) = $0 { true } else { false } }
        }
        let states = alice.log.events.compactMap { event -> DeliveryState? in
            if case .delivery(message.id, _, let state) = event { state } else { nil }
        }
        #expect(states == [.queued, .sent, .delivered])
        #expect(await alice.faults.commits - before == 2)
        #expect(await alice.node.deliveryState(of: message.id) == .delivered)
        #expect(await alice.node.pendingDeliveries == 0)
    }

    /// Not linked: committed "queued", and "sent" once the peer is back.
    @Test func aDMToAnAbsentPeerWaitsQueued() async throws {
        let (network, alice, bob) = try await TestNode.linkedPair(conversation: true)
        await network.cut(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("bob gone") { await alice.node.peers().isEmpty })
        let message = try await alice.node.sendDirect("later", to: bob.identity.number)
        #expect(await alice.node.deliveryState(of: message.id) == .queued)
        await network.heal(alice.identity.number, bob.identity.number)
        try await alice.log.until("delivered", within: .seconds(10)) { events in
            events.contains { if case .delivery(message.id, _, .delivered) = $0 { true } else { false } }
        }
        let states = alice.log.events.compactMap { event -> DeliveryState? in
            if case .delivery(message.id, _, let state) = event { state } else { nil }
        }
        #expect(states == [.queued, .sent, .delivered])
    }
}
