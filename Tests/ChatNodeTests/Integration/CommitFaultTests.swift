import ChatCore
import ChatWire
import ChatNode
import ChatStore
import Foundation
import Testing
import TestSupport

/// Plan, commit once, then apply: a commit that fails changes nothing, so
/// what its sender retries is stored once the cause is gone.
@Suite(.realTime) struct CommitFaultTests {
    static func storageEvents(_ node: TestNode) -> [String?] {
        node.log.events.compactMap { if case .storage(let failure) = $0 { failure } else { nil } }
    }

    @Test func dmsRefusedByAFullDiskAreStoredOnRetryWithoutARestart() async throws {
        let clock = ManualClock()
        let (_, alice, bob) = try await TestNode.linkedPair(clock: clock, conversation: true)

        await bob.faults.setDiskFull(true)
        for n in 1...20 { try await alice.node.sendDirect("dm \(n)", to: bob.identity.number) }
        try #require(await waitUntil("bob's commits fail") { await bob.faults.failures >= 1 })
        try await bob.log.first("one storage error") { if case .storage(let failure?) = $0 { failure } else { nil } }
        #expect(await alice.node.pendingDeliveries == 20)  // nothing acknowledged

        await bob.faults.setDiskFull(false)
        try await NodeFixture.retryUntil("every DM acknowledged", clock: clock) { await alice.node.pendingDeliveries == 0 }
        let received = try await bob.storedDMs(from: alice)
        #expect(received == ["hello bob"] + (1...20).map { "dm \($0)" })
        let shown = bob.messages().filter { $0.senderNumber == alice.identity.number }.map(\.id)
        #expect(shown.count == 21 && Set(shown).count == 21)
        // One error while it lasted, one notice when it ended (said after
        // a quiet time, which may still be running when the last ack lands).
        try await NodeFixture.retryUntil("the recovery said", clock: clock) { Self.storageEvents(bob).count >= 2 }
        let storage = Self.storageEvents(bob)
        #expect(storage.count == 2 && storage.first! != nil && storage.last! == nil)
    }

    /// A nearly full disk takes some commits and refuses others: the error
    /// is said once, and the recovery once, after a quiet time with no
    /// refusal (issue 31: ok:false and ok:true alternated 5 times in 1.8 s).
    @Test func aDiskThatRefusesSomeCommitsIsSaidOnceNotPerSwitch() async throws {
        let clock = ManualClock()
        let (_, alice, bob) = try await TestNode.linkedPair(clock: clock, conversation: true)
        await bob.faults.setFailureRate(0.5, seed: 3)
        for n in 1...30 {
            let before = await bob.faults.commits
            try await alice.node.sendDirect("dm \(n)", to: bob.identity.number)
            try #require(await waitUntil("commit \(n)") { await bob.faults.commits > before })
        }
        let (failures, commits) = (await bob.faults.failures, await bob.faults.commits)
        try #require(failures >= 3 && commits - failures >= 3, "both happened: \(failures) of \(commits) refused")
        try await bob.log.first("the storage error") { if case .storage(_?) = $0 { true } else { nil } }
        #expect(Self.storageEvents(bob).count == 1, "said once: \(Self.storageEvents(bob))")

        // The disk takes every write again; said once the quiet time is over.
        await bob.faults.setFailureRate(0)
        let before = await bob.faults.commits
        try await alice.node.sendDirect("after", to: bob.identity.number)
        try #require(await waitUntil("a commit that goes through") { await bob.faults.commits > before })
        #expect(Self.storageEvents(bob).count == 1, "not before the quiet time")
        clock.advance(by: NodeLimits.storageRecoveryQuiet)
        try await bob.log.first("the recovery") { if case .storage(nil) = $0 { true } else { nil } }
        let storage = Self.storageEvents(bob)
        #expect(storage.count == 2 && storage.first! != nil && storage.last! == nil)
    }

    @Test func publicMessagesMissedWhileTheDiskWasFullComeBackByCatchUp() async throws {
        let (network, alice, bob) = try await TestNode.linkedPair()
        try await alice.node.sendPublic("before")
        _ = try await bob.waitForMessage("before")

        await bob.faults.setDiskFull(true)
        for n in 1...10 { try await alice.node.sendPublic("while full \(n)") }
        try #require(await waitUntil("bob's commits fail") { await bob.faults.failures >= 1 })
        await bob.faults.setDiskFull(false)
        // The next link-up asks alice for everything after what bob got from her.
        await network.cut(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("link down") { await bob.node.peers().isEmpty })
        await network.heal(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("all ten stored") {
            try await bob.storedPublic().count == 11
        })
        try await bob.log.until("all ten shown") { events in
            events.filter { if case .message(let m) = $0 { m.content.hasPrefix("while full") } else { false } }.count >= 10
        }
        #expect(bob.messages().filter { $0.content.hasPrefix("while full") }.count == 10)
    }

    /// Found by lan-test's disk-full scenario: with links staying up,
    /// nothing asked for the lost public messages again (only a link-up did).
    @Test func publicMessagesLostToAFullDiskComeBackWhileTheLinkStaysUp() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode("alice", number: 1, on: network)
        let bob = try await TestNode("bob", number: 2, on: network)
        try await alice.waitForPeers(1)
        try await alice.node.sendPublic("before")
        _ = try await bob.waitForMessage("before")

        await bob.faults.setDiskFull(true)
        for n in 1...10 { try await alice.node.sendPublic("while full \(n)") }
        try #require(await waitUntil("bob's commits fail") { await bob.faults.failures >= 1 })
        // Bob's catch-up asks keep failing while the disk is full, and land once it is not.
        try #require(await waitUntil("bob asks again") { await bob.faults.failures >= 2 })
        await bob.faults.setDiskFull(false)
        try #require(await waitUntil("all ten stored", within: .seconds(10)) {
            try await bob.storedPublic().count == 11
        })
        // Stored first, shown after the commit returns: wait for the events.
        try await bob.log.until("all ten shown") { events in
            events.filter { if case .message(let m) = $0 { m.content.hasPrefix("while full") } else { false } }.count >= 10
        }
        #expect(!bob.log.events.contains { if case .peerLeft = $0 { true } else { false } }, "the link stayed up")
        #expect(bob.messages().filter { $0.content.hasPrefix("while full") }.count == 10)
    }

    @Test func aSendWhoseCommitFailsLeavesNoTrace() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair(conversation: true)

        await alice.faults.failCommit(1)
        await #expect(throws: NodeError.self) { try await alice.node.sendPublic("lost public") }
        await alice.faults.failCommit(1)
        await #expect(throws: NodeError.self) { try await alice.node.sendDirect("lost dm", to: bob.identity.number) }
        // Neither stored, held, queued, shown nor sent: no DM is stranded.
        #expect(await alice.node.pendingDeliveries == 0)
        #expect(try await alice.store.undelivered().isEmpty)
        #expect(await alice.node.recentMessages(in: .publicRoom).isEmpty)
        #expect(!alice.messages().contains { $0.content.hasPrefix("lost") })
        try await alice.node.sendPublic("kept")
        _ = try await bob.waitForMessage("kept")
        #expect(!bob.messages().contains { $0.content.hasPrefix("lost") })
        // A DM and its "queued" state were one commit: the next DM works.
        try await alice.node.sendDirect("next dm", to: bob.identity.number)
        _ = try await bob.waitForMessage("next dm")
    }

    @Test func catchUpIgnoresClocksAnHourOff() async throws {
        let network = InMemoryNetwork()
        let slow = ManualClock(now: Date(timeIntervalSince1970: 1_732_147_200 - 3600))
        let fast = ManualClock(now: Date(timeIntervalSince1970: 1_732_147_200 + 3600))
        let alice = try await TestNode("alice", number: 1, on: network, clock: slow)
        let bob = try await TestNode("bob", number: 2, on: network, clock: fast)
        try await alice.waitForPeers(1)
        try await alice.node.sendPublic("seen live")
        _ = try await bob.waitForMessage("seen live")
        try await bob.node.sendPublic("bob's newest")
        _ = try await alice.waitForMessage("bob's newest")

        await network.cut(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("link down") { await bob.node.peers().isEmpty })
        for n in 1...20 { try await alice.node.sendPublic("missed \(n)") }
        await network.heal(alice.identity.number, bob.identity.number)
        try #require(await waitUntil("all twenty caught up") { try await bob.storedPublic().count == 22 })
        // Caught up from alice once: nothing fetched twice.
        try await bob.log.until("all twenty shown") { events in
            events.filter { if case .message(let m) = $0 { m.content.hasPrefix("missed") } else { false } }.count >= 20
        }
        #expect(bob.messages().filter { $0.content.hasPrefix("missed") }.count == 20)
    }

    @Test func theCatchUpCursorSurvivesTheWireCodec() throws {
        var request = P2PPayload(type: .historyRequest, messageId: MessageID(millis: 1_732_147_200_000, random: (3, 3)),
                                 senderNumber: NodeNumber(rawValue: 1)!, senderNickname: "alice", timestamp: 1_732_147_200_000)
        request.catchUp = CatchUpCursor(epoch: "5b0f8f1e", seq: 1200)
        request.limit = 200
        var line = P2PFrameCodec.encode(request)
        if line.last == UInt8(ascii: "\n") { line.removeLast() }
        #expect(try P2PFrameCodec.decode(line).catchUp == CatchUpCursor(epoch: "5b0f8f1e", seq: 1200))
    }

    @Test func aHistoryReplyNobodyAskedForIsRefused() async throws {
        let (_, alice, bob) = try await TestNode.linkedPair()
        try #require(await waitUntil("first catch-up done") { await bob.node.statistics().receivedByType["historyReply"] == 1 })
        var reply = P2PPayload(type: .historyReply, messageId: MessageID(millis: 1_732_147_200_000, random: (1, 1)), senderNumber: alice.identity.number,
                               senderNickname: "alice", timestamp: 1_732_147_200_000, targetNumber: bob.identity.number)
        reply.messages = [P2PPayload(type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000, random: (2, 2)), senderNumber: alice.identity.number,
                                     senderNickname: "alice", content: "planted", timestamp: 1_732_147_200_000)]
        _ = await alice.transport.send(reply, to: bob.identity.number)
        try #require(await waitUntil("refused") { await bob.node.statistics().catchUpUnsolicited == 1 })
        #expect(try await bob.storedPublic().isEmpty)
    }
}
