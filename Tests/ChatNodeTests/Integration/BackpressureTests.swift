import ChatCore
import ChatNode
import ChatStore
import Synchronization
import Testing
import TestSupport

/// A transport the test feeds by hand, recording what the node asks of it.
final class ScriptedTransport: PeerTransport {
    let events = EventChannel<TransportEvent>(capacity: .max)
    /// What the test feeds the node (the events themselves).
    var feed: EventChannel<TransportEvent> { events }
    private let pauses = Mutex<[Bool]>([])

    init() {}

    var pauseCalls: [Bool] { pauses.withLock { $0 } }

    func start() async throws {}
    func stop() async { feed.finish() }
    func send(_ payload: P2PPayload, to peer: NodeNumber) async -> Bool { true }
    func broadcast(_ payload: P2PPayload) async -> Int { 1 }
    func updateIdentity(_ identity: NodeIdentity) async {}
    func connectedPeers() async -> [PeerInfo] { [] }
    func pauseReading(_ paused: Bool) async { pauses.withLock { $0.append(paused) } }
}

@Suite(.realTime) struct BackpressureTests {
    @Test func aLaggingNodeStopsTheTransportReadingAndResumesIt() async throws {
        let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
        let flooder = NodeNumber(rawValue: 2)!
        let transport = ScriptedTransport()
        let store = FaultyStore(try ChatStore(path: nil, localNumber: me.number))
        await store.setCommitDelay(.seconds(1))  // a slow disk: the node lags
        let node = ChatNode(identity: me, transport: transport, store: store)
        let log = EventLog(node.events)
        try await node.start()
        transport.feed.yield(.peerJoined(PeerInfo(number: flooder, nickname: "flood", instanceId: "x", address: "127.0.0.1")))
        // More than the steps in flight can hold (one committing, one planned,
        // one prefetched: 3 x maxCommitBatch) plus the high-water mark, so
        // the inbox reaches it however the feeding and the drainer interleave
        // (12,000 did not on a loaded machine: the steps took them first).
        let total = 3 * NodeLimits.maxCommitBatch + NodeLimits.inboxHighWater + 20_000
        for index in 0..<total {
            transport.feed.yield(.received(P2PPayload(
                type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000, random: (2, UInt64(index))),
                senderNumber: flooder, senderNickname: "flood", content: "m\(index)", timestamp: 1_732_147_200_000), from: flooder))
        }
        try #require(await waitUntil("reading paused", within: .seconds(10)) { transport.pauseCalls.first == true })
        await store.setCommitDelay(.zero)
        try #require(await waitUntil("reading resumed", within: .seconds(20)) { transport.pauseCalls.last == false })
        try await log.until("all stored and shown", within: .seconds(20)) { events in
            events.filter { if case .message = $0 { true } else { false } }.count == total
        }
        // Counted once per pause the node decided on (calls in flight may merge).
        let paused = await node.statistics().backpressure
        #expect(paused >= 1 && paused >= transport.pauseCalls.filter { $0 }.count)
        #expect(transport.pauseCalls == [true, false] || transport.pauseCalls.count.isMultiple(of: 2))
        await node.stop()
    }
}
