import ChatCore
import ChatNode
import ChatStore
import Testing
import TestSupport

/// A step is planned while the one before it commits, as if that one were
/// stored. These tests catch the node at the moment that matters (the
/// first step's lookup held until the next frames are queued behind it)
/// and check that a failed commit underneath leaves no trace and that
/// events and answers keep their order.
@Suite(.realTime) struct PipelinedStepTests {
    static let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
    static let alice = NodeNumber(rawValue: 2)!
    static let carol = NodeNumber(rawValue: 3)!

    struct Fixture {
        let node: ChatNode
        let transport: ScriptedTransport
        let store: FaultyStore
        let log: EventLog<NodeEvent>

        init() async throws {
            transport = ScriptedTransport()
            store = FaultyStore(try ChatStore(path: nil, localNumber: PipelinedStepTests.me.number))
            node = ChatNode(identity: PipelinedStepTests.me, transport: transport, store: store)
            log = EventLog(node.events)
            try await node.start()
            for (number, name) in [(PipelinedStepTests.alice, "alice"), (PipelinedStepTests.carol, "carol")] {
                transport.feed.yield(.peerJoined(PeerInfo(number: number, nickname: name, instanceId: name, address: "127.0.0.1")))
                try await log.first("\(name) joined") { if case .peerJoined(let peer) = $0, peer.number == number { true } else { nil } }
            }
        }

        /// Feeds alice's public message `n`.
        func feed(_ n: Int) {
            transport.feed.yield(.received(PipelinedStepTests.frame(n), from: PipelinedStepTests.alice))
        }

        /// Waits until `count` transport events are queued behind the held step.
        func waitForBacklog(_ events: Int, commands: Int = 0) async throws {
            try #require(await waitUntil("\(events) events, \(commands) commands queued") {
                let backlog = await node.backlog
                return backlog.transportEvents == events && backlog.commands == commands
            })
        }

        /// The contents of the messages shown, in order.
        func shown() -> [String] {
            log.events.compactMap { if case .message(let m) = $0 { m.content } else { nil } }
        }
    }

    static func id(_ n: Int) -> MessageID { MessageID(millis: 1_732_147_200_000, random: (7, UInt64(n))) }

    static func frame(_ n: Int) -> P2PPayload {
        P2PPayload(type: .publicMessage, messageId: id(n), senderNumber: alice, senderNickname: "alice",
                   content: "m\(n)", timestamp: 1_732_147_200_000 + Int64(n))
    }

    @Test func aFailedCommitUnderAStepPlannedOnTopOfItLeavesOnlyTheLaterStep() async throws {
        let fixture = try await Fixture()
        let calls = await fixture.store.journal.count
        await fixture.store.holdNextLookup()
        fixture.feed(1)
        try #require(await waitUntil("the first step looks up") { await fixture.store.lookupHeld })
        // m2 and m3 arrive while m1's step is planned; m1's commit fails.
        fixture.feed(2)
        fixture.feed(3)
        try await fixture.waitForBacklog(2)
        await fixture.store.failCommit(1)
        await fixture.store.releaseLookup()

        try await fixture.log.until("m2 and m3 shown") { _ in fixture.shown() == ["m2", "m3"] }
        // m2 and m3 were looked up before m1's commit and planned on top of
        // it; after its failure, looked up and planned again, and stored.
        #expect(await Array(fixture.store.journal.dropFirst(calls)) == [
            .lookUp(1), .lookUp(2), .commit(1, failed: true), .lookUp(2), .commit(2, failed: false), .stored(2),
        ])
        #expect(try await fixture.store.inner.storedIDs(among: [Self.id(1), Self.id(2), Self.id(3)]) == [Self.id(2), Self.id(3)])
        #expect(await fixture.node.recentMessages(in: .publicRoom).map(\.content) == ["m2", "m3"])

        // m1 left no trace: its sender's retry is stored and shown, once.
        fixture.feed(1)
        try await fixture.log.until("m1 shown") { _ in fixture.shown().contains("m1") }
        #expect(try await fixture.store.inner.storedIDs(among: [Self.id(1)]) == [Self.id(1)])
        fixture.feed(2)  // a replay of one planned twice is still a duplicate
        try #require(await waitUntil("the replay handled") { await fixture.node.statistics().duplicates == 1 })
        #expect(fixture.shown() == ["m2", "m3", "m1"])
        await fixture.node.stop()
    }

    @Test func eventsAndAnswersKeepTheirOrderAcrossOverlappingSteps() async throws {
        let fixture = try await Fixture()
        let calls = await fixture.store.journal.count
        await fixture.store.holdNextLookup()
        fixture.feed(0)
        try #require(await waitUntil("the first step looks up") { await fixture.store.lookupHeld })
        // Queued behind it: nine frames, a command, carol leaving, five more.
        for n in 1..<10 { fixture.feed(n) }
        let send = Task { try await fixture.node.sendPublic("mine") }
        fixture.transport.feed.yield(.peerLeft(Self.carol, .left))
        for n in 10..<15 { fixture.feed(n) }
        try await fixture.waitForBacklog(15, commands: 1)
        await fixture.store.setCommitDelay(.milliseconds(20))  // the next step is planned while this one commits
        await fixture.store.releaseLookup()

        let mine = try await send.value
        // Answered only after its commit.
        #expect(try await fixture.store.inner.storedIDs(among: [mine.id]) == [mine.id])
        try await fixture.log.until("all shown") { _ in fixture.shown().count == 16 }
        let order: [String] = fixture.log.events.compactMap { event in
            switch event {
            case .message(let m): m.content
            case .peerLeft(let peer, _): "left \(peer.nickname)"
            default: nil
            }
        }
        // The step planned while the first committed reports after it, and
        // carol's leaving ends the run: it comes after that step, alone.
        #expect(order == (0..<10).map { "m\($0)" } + ["mine", "left carol"] + (10..<15).map { "m\($0)" })
        #expect(await Array(fixture.store.journal.dropFirst(calls).prefix(6)) == [
            .lookUp(1), .lookUp(9), .commit(1, failed: false), .stored(1), .commit(10, failed: false), .stored(10),
        ])
        await fixture.node.stop()
    }

    @Test func theStepAfterNextIsLookedUpBeforeTheNextCommitAndAllArriveInOrder() async throws {
        let fixture = try await Fixture()
        let calls = await fixture.store.journal.count
        await fixture.store.holdNextLookup()
        fixture.feed(0)
        try #require(await waitUntil("the first step looks up") { await fixture.store.lookupHeld })
        // One full step behind the first, and three more behind that.
        let total = 1 + NodeLimits.maxCommitBatch + 3
        for n in 1..<total { fixture.feed(n) }
        try await fixture.waitForBacklog(total - 1)
        await fixture.store.releaseLookup()

        try await fixture.log.until("all shown", within: .seconds(20)) { _ in fixture.shown().count == total }
        #expect(fixture.shown() == (0..<total).map { "m\($0)" })
        let journal = Array(await fixture.store.journal.dropFirst(calls))
        // The last three were taken while the full step was planned on top
        // of the first, and looked up after the first commit, before the
        // full step's own commit.
        let firstCommit = try #require(journal.firstIndex(of: .stored(1)))
        let lookup = try #require(journal.firstIndex(of: .lookUp(3)))
        let fullCommit = try #require(journal.firstIndex(of: .commit(NodeLimits.maxCommitBatch, failed: false)))
        #expect(firstCommit < lookup && lookup < fullCommit)
        #expect(journal.filter { if case .lookUp = $0 { true } else { false } } == [.lookUp(1), .lookUp(NodeLimits.maxCommitBatch), .lookUp(3)])
        #expect(try await fixture.store.inner.storedIDs(among: (0..<total).map(Self.id)).count == total)
        await fixture.node.stop()
    }
}
