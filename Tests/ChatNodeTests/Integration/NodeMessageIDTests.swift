import ChatCore
import ChatNode
import Testing
import TestSupport

/// The node makes its own frames' ids (acks, catch-up) the one way the
/// chat models do, with `MessageIDGenerator`: strictly increasing even
/// within one millisecond, so ordering by (timestamp, messageId) holds.
@Suite(.realTime) struct NodeMessageIDTests {
    @Test func acksInOneMillisecondHaveIncreasingIds() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()  // never advanced: every id is made in the same millisecond
        let alice = try await TestNode("alice", number: 1, on: network, clock: clock)
        let raw = NodeIdentity(number: NodeNumber(rawValue: 2)!, nickname: "raw")
        let transport = network.transport(for: raw)
        let log = EventLog(transport.events)
        try await transport.start()
        try await alice.waitForPeers(1)

        var rawIDs = MessageIDGenerator()
        func frame(_ type: PayloadType, _ text: String) -> P2PPayload {
            P2PPayload(type: type, messageId: rawIDs.next(millis: clock.nowMillis()), senderNumber: raw.number,
                       senderNickname: raw.nickname, content: text, timestamp: clock.nowMillis(), targetNumber: alice.identity.number)
        }
        _ = await transport.send(frame(.dmRequest, "hello"), to: alice.identity.number)
        try await alice.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        try await alice.node.accept("raw")
        let count = 30
        for n in 1...count { _ = await transport.send(frame(.directMessage, "dm \(n)"), to: alice.identity.number) }

        func own(_ events: [TransportEvent]) -> [P2PPayload] {
            events.compactMap { if case .received(let p, _) = $0, p.type == .ack || p.type == .historyRequest { p } else { nil } }
        }
        try await log.until("\(count) acks") { events in own(events).filter { $0.type == .ack }.count >= count }
        // Acks and catch-up requests, in the order alice sent them.
        let sent = own(log.events)
        #expect(sent.contains { $0.type == .historyRequest })
        let ids = sent.map(\.messageId)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "in sending order, ids increase: \(sent.map(\.type))")
        #expect(ids.allSatisfy { $0.millis == clock.nowMillis() })
    }
}
