import ChatCore
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// What planning counts (duplicates, refusals) reaches `/stats` only when
/// the step is applied: a step whose commit fails counts nothing, and the
/// retry that stores it counts once.
@Suite(.realTime) struct StepCountTests {
    static let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
    static let alice = NodeNumber(rawValue: 2)!

    static func frame(_ index: UInt64) -> P2PPayload {
        P2PPayload(type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000, random: (7, index)),
                   senderNumber: alice, senderNickname: "alice", content: "m\(index)", timestamp: 1_732_147_200_000)
    }

    @Test func aFailedStepCountsNothingAndItsRetryCountsOnce() async throws {
        let transport = ScriptedTransport()
        let store = FaultyStore(try ChatStore(path: nil, localNumber: Self.me.number))
        let node = ChatNode(identity: Self.me, transport: transport, store: store)
        let log = EventLog(node.events)
        try await node.start()
        transport.feed.yield(.peerJoined(PeerInfo(number: Self.alice, nickname: "alice", instanceId: "x", address: "127.0.0.1")))
        transport.feed.yield(.received(Self.frame(1), from: Self.alice))
        try await log.until("m1 stored") { $0.contains { if case .message(let m) = $0 { m.content == "m1" } else { false } } }

        // m1 again (a duplicate) with m2, in a step whose commit fails.
        await store.failCommit(1)
        transport.feed.yield(.receivedFrames([Self.frame(1), Self.frame(2)], from: Self.alice))
        try #require(await waitUntil("the commit failed") { await node.statistics().commitFailures == 1 })
        #expect(await node.statistics().duplicates == 0, "the failed step left no count")
        #expect(await node.statistics().stored == 1, "only m1, from the first step")

        // The sender retries both: m2 is stored, m1 counted a duplicate once.
        transport.feed.yield(.receivedFrames([Self.frame(1), Self.frame(2)], from: Self.alice))
        try await log.until("m2 stored") { $0.contains { if case .message(let m) = $0 { m.content == "m2" } else { false } } }
        #expect(await node.statistics().duplicates == 1)
        #expect(await node.statistics().stored == 2, "m2 once, the duplicate not")
        await node.stop()
    }

    /// `add` sums every field: one left out would drop a count silently.
    @Test func addingCountersSumsEveryField() throws {
        // Every field set to 1 (dictionaries to one key), through Codable,
        // so a field added later is covered without editing this test.
        let zero = try JSONSerialization.jsonObject(with: JSONEncoder().encode(NodeCounters())) as! [String: Any]
        let ones = zero.mapValues { value -> Any in value is [String: Any] ? ["k": 1] : 1 }
        let one = try JSONDecoder().decode(NodeCounters.self, from: JSONSerialization.data(withJSONObject: ones))
        var sum = NodeCounters()
        sum.add(one)
        sum.add(one)
        let summed = try JSONSerialization.jsonObject(with: JSONEncoder().encode(sum)) as! [String: Any]
        #expect(summed.count == zero.count)
        for (field, value) in summed {
            if let counts = value as? [String: Int] {
                #expect(counts == ["k": 2], "\(field)")
            } else {
                #expect(value as? Int == 2, "\(field)")
            }
        }
    }
}

/// Frames of types the node does not know are counted under one key: a
/// peer that invents a type name per frame cannot grow `/stats`.
@Suite(.realTime) struct UnknownTypeCounterTests {
    @Test func inventedTypeNamesShareOneCounter() async throws {
        let network = InMemoryNetwork()
        let mallory = try await Mallory(on: network)
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        try await alice.waitForPeers(1)
        let me = mallory.signer.identity
        for index in 0..<50 {
            var frame = mallory.publicMessage("invented \(index)", as: me)
            frame.type = .unknown("invented\(index)")
            #expect(await mallory.transport.send(frame, to: alice.identity.number))
        }
        #expect(await waitUntil("counted") { await alice.node.statistics().receivedByType["unknown"] == 50 })
        let keys = await alice.node.statistics().receivedByType.keys
        #expect(keys.allSatisfy { !$0.hasPrefix("invented") }, "\(keys.sorted())")
        await alice.node.stop()
    }
}
