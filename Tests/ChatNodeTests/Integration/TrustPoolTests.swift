import ChatCore
import ChatNode
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// A crowd of attackers, each holding a valid key of its own, whose signed
/// public messages reach the node under test over links of their own.
struct FreshCrowd {
    let signers: [TestSigner]
    let peers: [PeerInfo]

    init(_ count: Int, named prefix: String = "crowd") throws {
        signers = try (0..<count).map { try TestSigner("\(prefix)\($0)") }
        peers = signers.map {
            PeerInfo(number: $0.identity.number, nickname: $0.identity.nickname, instanceId: "crowd", address: "memory",
                     identityKey: $0.encodedKey)
        }
    }

    /// Round `round`: one signed message from each member.
    func round(_ round: Int, millis: Int64) -> [(payload: P2PPayload, from: PeerInfo)] {
        zip(signers, peers).map { signer, peer in
            var ids = MessageIDGenerator()
            var payload = P2PPayload(
                type: .publicMessage, messageId: ids.next(millis: millis), senderNumber: peer.number,
                senderNickname: peer.nickname, content: "round \(round) from \(peer.nickname) " + String(repeating: "z", count: 120),
                timestamp: millis)
            signer.authenticator.sign(&payload)
            return (payload, peer)
        }
    }
}

/// Storage shared by trust, against a thousand fresh identities: they
/// share one pool, which keeps the newest; a new message from anyone, the
/// user's own sends, the user's accepted conversations and known peers
/// are stored and shown throughout, on disk and under `--max-history`.
@Suite(.realTime) struct TrustPoolTests {
    struct Scene {
        let network: InMemoryNetwork
        let alice: TestNode
        let bob: TestNode
        let carol: TestNode
        let crowd: FreshCrowd
        let directory: URL
    }

    /// Alice under test (a file store, `options`), bob (unknown to her),
    /// carol (in a conversation alice accepted), and the crowd.
    static func scene(cap: Int? = nil, reserve: DiskReserve? = nil, options: NodeOptions) async throws -> Scene {
        let directory = try NodeFixture.temporaryDirectory()
        let network = InMemoryNetwork()
        let aliceSigner = try TestSigner("alice")
        let store = try ChatStore(path: directory.appendingPathComponent("alice.sqlite").path, localNumber: aliceSigner.identity.number,
                                  durability: .full, maxBytes: cap, diskReserve: reserve)
        let alice = try await TestNode(aliceSigner.identity, on: network, store: store, options: options,
                                       authenticator: aliceSigner.authenticator, identityKey: aliceSigner.encodedKey)
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        let carol = try await TestNode(try TestSigner("carol"), on: network)
        try await alice.waitForPeers(2)
        try await carol.openConversation(with: alice, saying: "carol asks")
        return Scene(network: network, alice: alice, bob: bob, carol: carol, crowd: try FreshCrowd(1000), directory: directory)
    }

    /// Injects `rounds` rounds of the crowd and waits until alice handled them.
    static func flood(_ scene: Scene, rounds: Range<Int>) async throws {
        for round in rounds {
            let frames = scene.crowd.round(round, millis: Int64(Date().timeIntervalSince1970 * 1000))
            await scene.network.inject(frames, into: scene.alice.identity.number)
            try await Self.waitForMessage(frames.last!.payload.content, at: scene.alice)
        }
    }

    /// A crowd's round: a thousand peers link (each key is recorded) and
    /// write. On a loaded machine that takes minutes (a round passed 90 s
    /// with four busy loops beside a parallel `swift test`), so the wait
    /// fails only once alice's events stop coming.
    static func waitForMessage(_ text: String, at node: TestNode) async throws {
        try await node.log.first("message \(text.prefix(30))", whileEventsArrive: .seconds(600)) {
            if case .message(let m) = $0, m.content == text { true } else { nil }
        }
    }

    static func stored(_ node: TestNode, _ id: MessageID) async throws -> Bool {
        try await !node.store.storedIDs(among: [id]).isEmpty
    }

    /// The rooms table, the pages and the node's memory agree with the rows.
    static func expectConsistent(_ alice: TestNode) async throws {
        let rows = try await alice.storedPublic()
        let summary = try #require(try await alice.store.summary(of: .publicRoom))
        #expect(summary.messageCount == rows.count)
        var paged = 0
        var cursor: HistoryCursor?
        while true {
            let page = try await alice.store.historyPage(.publicRoom, before: cursor, limit: 30)
            paged += page.messages.count
            guard page.hasMoreBefore, let first = page.messages.first else { break }
            cursor = HistoryCursor(first)
        }
        #expect(paged == rows.count)
        let me = alice.identity.number
        var all: [Message] = []
        while true {
            let page = try await alice.store.page(.publicRoom, after: all.last.map(HistoryCursor.init), limit: 1000)
            all += page
            if page.count < 1000 { break }
        }
        let unread = all.filter { row in row.senderNumber != me && summary.readMarker.map { HistoryCursor(row) > $0 } ?? true }.count
        #expect(summary.unreadCount == unread)
        #expect(await alice.node.rooms().first { $0.room == .publicRoom }?.unread == unread)
        // The front end is told the same count last (after the ageing's
        // correction); the event log is filled from the node's stream, so
        // the last one may still be on its way.
        func said() -> Int? { alice.log.events.compactMap { if case .unread(.publicRoom, let count) = $0 { count } else { nil } }.last }
        #expect(await waitUntil("unread said \(unread)") { said() == nil || said() == unread }, "said \(String(describing: said()))")
        let inMemory = await alice.node.recentMessages(in: .publicRoom).map(\.id)
        #expect(Set(inMemory).isSubset(of: rows), "memory follows the disk")
        #expect(try await alice.store.integrityCheck())
        try await alice.store.checkSearchIndex()
    }

    static func run(cap: Int?, reserve: DiskReserve? = nil, options: NodeOptions) async throws {
        let scene = try await Self.scene(cap: cap, reserve: reserve, options: options)
        defer { try? FileManager.default.removeItem(at: scene.directory) }
        let (alice, bob, carol) = (scene.alice, scene.bob, scene.carol)
        let before = try await alice.node.sendPublic("alice before the flood")
        let carolsDM = try await carol.node.sendDirect("carol, accepted", to: alice.identity.number)
        _ = try await alice.waitForMessage("carol, accepted")
        var largest = 0
        func measure() async {
            let files = await alice.store.fileBytes()
            largest = max(largest, files.database + files.wal + files.shm)
        }

        try await Self.flood(scene, rounds: 0..<3)
        await measure()
        // Bob, unknown to alice, is still heard, and alice still writes.
        let fromBob = try await bob.node.sendPublic("bob during the flood")
        _ = try await alice.waitForMessage("bob during the flood")
        #expect(try await Self.stored(alice, fromBob.id))
        let during = try await alice.node.sendPublic("alice during the flood")
        #expect(try await Self.stored(alice, during.id))
        _ = try await bob.waitForMessage("alice during the flood")
        try await Self.flood(scene, rounds: 3..<6)
        await measure()

        // The user's own and the accepted conversation survive the flood.
        for id in [before.id, during.id, carolsDM.id] { #expect(try await Self.stored(alice, id)) }
        let counters = await alice.node.statistics()
        #expect(counters.agedOut > 0, "the pool aged its oldest out")
        #expect(counters.commitFailures == 0 && counters.quotaRefused == 0)
        #expect(!alice.log.events.contains { if case .storage(_?) = $0 { true } else { false } }, "storing never stopped")
        // Within its budget, give or take the last step's own rows (never aged out).
        #expect(try await alice.store.poolUsage().bytes <= min(options.unknownPoolBytes, reserve == nil ? .max : 2_000_000)
                + options.commitBatch * 420)
        // Every crowd message was shown once (6,000), none refused.
        let shown = alice.messages().filter { $0.content.hasPrefix("round ") }.count
        #expect(shown == 6000)
        if let cap { #expect(largest <= cap + WALBound.margin(cap: cap), "files reached \(largest) bytes") }
        try await Self.expectConsistent(alice)
        for node in [alice, bob, carol] { await node.node.stop() }
    }

    @Test func aThousandFreshIdentitiesCannotStopAnyoneBeingStoredOnDisk() async throws {
        try await Self.run(cap: nil, options: NodeOptions(unknownPoolBytes: 2_000_000))
    }

    /// No pool budget to speak of, the disk below its reserve (all of it
    /// is reserved): the pool ages out instead of growing.
    @Test func aThousandFreshIdentitiesCannotStopAnyoneBeingStoredOnAFullDisk() async throws {
        try await Self.run(cap: nil, reserve: DiskReserve(percent: 100, floor: 0), options: NodeOptions(unknownPoolBytes: 1 << 40))
    }

    @Test func aThousandFreshIdentitiesCannotStopAnyoneBeingStoredUnderAHistoryCap() async throws {
        let cap = 2 * 1_048_576
        let share = NodeOptions.defaultPeerQuota(historyBytes: cap)
        try await Self.run(cap: cap, options: NodeOptions(peerStorageQuota: share, unknownPoolBytes: share,
                                                          commitBatch: WALBound.commitBatch(cap: cap)))
    }

    /// A peer first stored a day ago is known, and a request the user
    /// accepted is the user's: their messages leave the pool and outlive a
    /// flood that ages out a stranger's.
    @Test func aPeerSeenADayAgoAndAnAcceptedRequestOutliveAFlood() async throws {
        let directory = try NodeFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let network = InMemoryNetwork()
        let identity = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "alice")
        let alice = try await TestNode(identity, on: network, clock: clock, path: directory.appendingPathComponent("a.sqlite").path,
                                       options: NodeOptions(unknownPoolBytes: 20_000))
        let bob = try await TestNode("bob", number: 2, on: network, clock: clock)
        let dave = try await TestNode("dave", number: 4, on: network, clock: clock)
        let erin = try await TestNode("erin", number: 5, on: network, clock: clock)
        try await alice.waitForPeers(3)
        let yesterday = try await bob.node.sendPublic("bob yesterday")
        let stranger = try await erin.node.sendPublic("erin, a stranger")
        _ = try await alice.waitForMessage("bob yesterday")
        _ = try await alice.waitForMessage("erin, a stranger")
        let request = try await dave.node.sendDirect("dave asks", to: identity.number)
        try await alice.log.first("request") { if case .dmRequest = $0 { true } else { nil } }
        #expect(try await alice.store.standing(of: [dave.identity.number])[dave.identity.number]?.pooledMessages == 1)
        try await alice.node.accept("dave")
        #expect(try await alice.store.standing(of: [dave.identity.number])[dave.identity.number]?.pooledMessages == 0)

        clock.advance(by: NodeLimits.knownAfter + .seconds(60))
        let today = try await bob.node.sendPublic("bob today")
        _ = try await alice.waitForMessage("bob today")
        #expect(try await alice.store.standing(of: [bob.identity.number])[bob.identity.number]?.pooledMessages == 0, "known now")

        let crowd = try FreshCrowd(200)
        for round in 0..<3 {
            let frames = crowd.round(round, millis: clock.nowMillis())
            await network.inject(frames, into: identity.number)
            try await Self.waitForMessage(frames.last!.payload.content, at: alice)
        }
        for id in [yesterday.id, today.id, request.id] { #expect(try await Self.stored(alice, id)) }
        #expect(try await !Self.stored(alice, stranger.id), "the stranger's message aged out with the flood's oldest")
        #expect(await alice.node.statistics().agedOut > 0)
        try await Self.expectConsistent(alice)
        for node in [alice, bob, dave, erin] { await node.node.stop() }
    }

    /// A key the user verified (the key ledger) has room of its own: its
    /// messages never join the pool.
    @Test func aVerifiedPeerIsKeptOutOfThePool() async throws {
        let network = InMemoryNetwork()
        let alice = try await TestNode(try TestSigner("alice"), on: network)
        let bob = try await TestNode(try TestSigner("bob"), on: network)
        try await alice.waitForPeers(1)
        _ = try await bob.node.sendPublic("bob, new")
        _ = try await alice.waitForMessage("bob, new")
        #expect(try await alice.store.standing(of: [bob.identity.number])[bob.identity.number]?.pooledMessages == 1)
        _ = try await alice.node.verify("bob", confirm: true)
        _ = try await bob.node.sendPublic("bob, verified")
        _ = try await alice.waitForMessage("bob, verified")
        #expect(try await alice.store.standing(of: [bob.identity.number])[bob.identity.number]?.pooledMessages == 0,
                "verified: out of the pool, the earlier message too")
        #expect(try await alice.store.poolUsage().messages == 0)
        for node in [alice, bob] { await node.node.stop() }
    }
}
