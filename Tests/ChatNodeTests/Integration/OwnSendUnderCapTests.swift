import ChatCore
import ChatNode
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// Under `--max-history`, a thousand fresh identities flooding and then
/// known peers filling their shares (more than the cap holds, so their
/// steps age out the pool beyond its part and each other's oldest, and are
/// never refused) cannot stop a new unknown author's message, a known
/// peer's, the user's own sends, nor the DMs of the conversation they
/// accepted, from being stored and shown: their commits age out the
/// oldest as fair shares allow (ChatStore+FairShare.swift, `AgeingOrder`),
/// and the files stay within the cap and its margin.
@Suite(.realTime) struct OwnSendUnderCapTests {
    /// Waits until alice took every public frame injected so far. On a
    /// loaded machine hundreds of signed frames take minutes: the wait
    /// fails once alice stops taking them, as for `waitForStored`.
    static func waitForTaken(_ alice: TestNode, _ count: Int) async throws {
        func taken() async -> Int { await alice.node.statistics().receivedByType[PayloadType.publicMessage.counterKey, default: 0] }
        try #require(await waitUntil("\(count) public frames taken", progress: taken, limit: .seconds(600)) {
            await taken() >= count
        })
    }

    /// Waits until these frames' messages are committed. Taken is not
    /// enough before the clock jumps: the next step's look-up of its
    /// authors may run while this step's commit is in flight (pipelined
    /// steps), and would see them as never seen.
    static func waitForStored(_ alice: TestNode, _ frames: [(payload: P2PPayload, from: PeerInfo)]) async throws {
        let ids = frames.map(\.payload.messageId)
        func stored() async -> Int { (try? await alice.store.storedIDs(among: ids).count) ?? 0 }
        try #require(await waitUntil("\(ids.count) messages stored", progress: stored, limit: .seconds(600)) {
            await stored() == ids.count
        })
    }

    @Test func knownPeersFillingTheCapAndAFloodCannotStopANewcomerAKnownPeerOrTheUsersOwnSend() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cap = 1_048_576
        let share = NodeOptions.defaultPeerQuota(historyBytes: cap)
        let options = NodeOptions(peerStorageQuota: share, unknownPoolBytes: share, commitBatch: WALBound.commitBatch(cap: cap))
        let clock = ManualClock()
        let network = InMemoryNetwork()
        let identity = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "alice")
        let store = try ChatStore(path: directory.appendingPathComponent("alice.sqlite").path, localNumber: identity.number,
                                  durability: .full, maxBytes: cap)
        let alice = try await TestNode(identity, on: network, clock: clock, store: store, options: options)
        let carol = try await TestNode("carol", number: 3, on: network, clock: clock)
        try await alice.waitForPeers(1)
        try await carol.openConversation(with: alice, saying: "carol asks")
        var largest = 0
        func measure() async {
            let files = await store.fileBytes()
            largest = max(largest, files.database + files.wal + files.shm)
        }
        var injected = 0
        func inject(_ frames: [(payload: P2PPayload, from: PeerInfo)]) async {
            await network.inject(frames, into: identity.number)
            injected += frames.count
        }

        // Eight peers first stored a day ago: known, each with a share of its own.
        let known = try FreshCrowd(8)
        let first = known.round(0, millis: clock.nowMillis())
        await inject(first)
        try await Self.waitForStored(alice, first)
        clock.advance(by: NodeLimits.knownAfter + .seconds(60))
        // Their next message makes them known (out of the pool) before the flood.
        await inject(known.round(1, millis: clock.nowMillis()))
        try await Self.waitForTaken(alice, injected)
        for peer in known.peers {
            try #require(await waitUntil("\(peer.nickname) known", within: .seconds(60)) {
                (try? await store.standing(of: [peer.number])[peer.number]?.pooledMessages) == 0
            })
        }
        // A thousand fresh identities: the pool.
        let crowd = try FreshCrowd(1000)
        await inject(crowd.round(0, millis: clock.nowMillis()))
        try await TrustPoolTests.waitForMessage(crowd.round(0, millis: 0).last!.payload.content, at: alice)
        // The known peers fill their shares: eight shares are about three
        // times what the cap holds, so their steps age out the pool beyond
        // its part, then each other's oldest.
        // A round a millisecond after the one before, as a live clock would
        // have it: ids (time first) and arrival go together.
        let rounds = share / 250
        var last: [(payload: P2PPayload, from: PeerInfo)] = []
        for start in stride(from: 2, to: rounds, by: 50) {
            last = (start..<min(rounds, start + 50)).flatMap { known.round($0, millis: clock.nowMillis() + Int64($0)) }
            await inject(last)
            try await Self.waitForTaken(alice, injected)
            await measure()
        }
        // The newest rows, committed before the clock moves on.
        try await Self.waitForStored(alice, last)
        let full = await alice.node.statistics()
        #expect(full.commitFailures == 0, "known peers within their shares are never refused")
        #expect(full.agedOut > 1000, "the cap was full: the oldest made room")

        // A new unknown author, then each known peer (a second later: the
        // newest): stored and shown, the oldest aged out for them.
        clock.advance(by: .seconds(1))
        let newcomer = try FreshCrowd(1, named: "newcomer")
        let hello = newcomer.round(0, millis: clock.nowMillis())
        await inject(hello)
        try await TrustPoolTests.waitForMessage(hello[0].payload.content, at: alice)
        #expect(try await TrustPoolTests.stored(alice, hello[0].payload.messageId))
        let later = known.round(rounds, millis: clock.nowMillis() + 1)
        await inject(later)
        // Taken is counted on receipt, before the commit: wait for the rows.
        try await Self.waitForStored(alice, later)
        let shown = Set(await alice.node.recentMessages(in: .publicRoom).map(\.id))
        #expect(shown.contains(hello[0].payload.messageId) && later.allSatisfy { shown.contains($0.payload.messageId) })
        try await TrustPoolTests.expectConsistent(alice)
        await measure()
        let filled = await alice.node.statistics()
        #expect(filled.commitFailures == 0)
        // The user's own sends (a second later: the newest), until the
        // known peers' oldest had to make room for one: each stored and shown.
        clock.advance(by: .seconds(1))
        var sent = 0
        while await alice.node.statistics().agedOut == filled.agedOut && sent < 2000 {
            sent += 1
            let mine = try await alice.node.sendPublic("alice under a full cap \(sent)")
            #expect(try await TrustPoolTests.stored(alice, mine.id))
            #expect(await alice.node.recentMessages(in: .publicRoom).last?.id == mine.id)
        }
        let toCarol = try await alice.node.sendDirect("alice to carol under a full cap", to: carol.identity.number)
        #expect(try await TrustPoolTests.stored(alice, toCarol.id))
        _ = try await carol.waitForMessage("alice to carol under a full cap")
        let fromCarol = try await carol.node.sendDirect("carol under a full cap", to: identity.number)
        _ = try await alice.waitForMessage("carol under a full cap")
        #expect(try await TrustPoolTests.stored(alice, fromCarol.id))
        await measure()

        let after = await alice.node.statistics()
        #expect(after.agedOut > filled.agedOut, "known peers' oldest made room")
        #expect(largest <= cap + WALBound.margin(cap: cap), "files reached \(largest) bytes")
        #expect(try await store.integrityCheck())
        try await store.checkSearchIndex()
        for node in [alice, carol] { await node.node.stop() }
    }
}
