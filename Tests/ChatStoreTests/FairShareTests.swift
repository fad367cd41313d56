import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// Under `--max-history`, known peers each within their share fill the
/// files (a row takes about three times its counted bytes in pages). Then
/// the pool of unknown authors still stores every new message, by ageing
/// out known peers' oldest while it holds less than its fair part (an
/// eighth of what is stored for others) and its own oldest after; known
/// peers keep at least seven eighths, whatever the flood; a known peer's
/// new message is stored too, never at a verified peer's expense; and the
/// files stay within the cap and its margin (ChatStore+FairShare.swift).
@Suite struct FairShareTests {
    typealias Writer = AgeingOrderTests.Writer
    static let verifiedPeer = NodeNumber(rawValue: 50)!
    static let knownPeers = (100..<108).map { NodeNumber(rawValue: UInt64($0))! }

    static func order(_ rank: AgeingOrder.Rank) -> AgeingOrder {
        AgeingOrder(conversations: [.direct(Fixtures.carol)], verified: [verifiedPeer], rank: rank)
    }

    /// A store under a 1 MiB cap the known peers filled, each within its
    /// share, after a verified peer stored 100 messages.
    struct Filled {
        let store: ChatStore
        let cap = 1_048_576
        var writer = Writer()
        var verified: [Message] = []
        var known: [Message] = []
        var fresh = 0

        var bound: Int { cap + WALBound.margin(cap: cap) }
        var share: Int { cap / ChatLimits.peerShareOfHistoryCap }

        init(in directory: URL) async throws {
            store = try AgeingOrderTests.store(in: directory, cap: cap)
            verified = writer.batch(100, from: FairShareTests.verifiedPeer, "verified")
            try await commit(verified, .verified)
            var used: [NodeNumber: Int] = [:]
            for round in 0..<400 {
                let peer = FairShareTests.knownPeers[round % 8]
                let count = min(32, (share - used[peer, default: 0]) / 400)
                if count <= 0 { break }
                let batch = writer.batch(count, from: peer, "known")
                try await commit(batch, .known)
                used[peer, default: 0] += batch.reduce(0) { $0 + StorageUsage.bytes(of: $1) }
                known += batch
            }
            await pack()
        }

        /// Without an ageing order a commit only finds free pages, so the
        /// file takes known messages until it has none.
        mutating func pack() async {
            while true {
                let one = writer.message(from: FairShareTests.knownPeers[known.count % 8], "known, packing")
                var changes = StoreChanges()
                changes.messages = [one]
                do {
                    try await store.commit(changes)
                    known.append(one)
                } catch {
                    #expect(error.isFull, "packed: refused only for a full file")
                    return
                }
            }
        }

        /// Commits as the node would, and checks what every commit must
        /// hold: all its rows stored, the unread counts it reports are the
        /// store's, the files within the cap and its margin.
        @discardableResult
        func commit(_ messages: [Message], _ rank: AgeingOrder.Rank) async throws -> StoreCommitResult {
            var changes = StoreChanges()
            changes.messages = messages
            if rank == .unknown {
                changes.pooled = Set(messages.map(\.id))
                changes.poolBudget = share
            }
            changes.ageingOrder = FairShareTests.order(rank)
            changes.now = Fixtures.base
            let result = try await store.commit(changes)
            #expect(result.added.count == messages.count)
            for (room, unread) in result.unread {
                #expect(try await store.summary(of: room)?.unreadCount == unread)
            }
            let files = await AgeingOrderTests.filesBytes(store)
            #expect(files <= bound, "files reached \(files) bytes, bound \(bound)")
            return result
        }

        mutating func freshMessages(_ count: Int) -> [Message] {
            (0..<count).map { _ in
                fresh += 1
                return writer.message(from: NodeNumber(rawValue: UInt64(1_000_000 + fresh))!, "fresh")
            }
        }

        /// Counted bytes of known and verified peers, and of the pool.
        func shares() async throws -> (kept: Int, pool: Int) {
            let usage = try await store.usage(of: FairShareTests.knownPeers + [FairShareTests.verifiedPeer])
            return (usage.values.reduce(0) { $0 + $1.bytes }, try await store.poolUsage().bytes)
        }

        /// Known and verified peers keep at least (n-1)/n of others' storage.
        /// `besides`: counted bytes of the last commit's own rows, which
        /// stay even if they alone are more than the pool's part.
        func expectKnownKeepTheirPart(besides: Int = 0) async throws {
            let (kept, pool) = try await shares()
            let part = ChatLimits.peerShareOfHistoryCap
            #expect(kept * part >= (part - 1) * (kept + pool - besides), "known peers keep \(kept) bytes beside a pool of \(pool)")
        }
    }

    /// (a) Under a cap known peers packed, a new unknown author's message
    /// is stored and shown, the known peers' oldest aged out for it, and
    /// so are those of the 600 rounds after it; known peers' rows go only
    /// down to their part; a verified peer's history goes only once no
    /// known peer's is left to go, so not here.
    @Test func anUnknownAuthorsMessageIsStoredUnderACapKnownPeersFilled() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            var filled = try await Filled(in: directory)
            #expect(try await filled.store.poolUsage().messages == 0)
            #expect(try await filled.store.storedIDs(among: filled.known.map(\.id)).count < filled.known.count,
                    "the known peers' shares took more than the cap: they aged out each other's oldest")
            let first = filled.freshMessages(1)[0]
            let aged = Set(try await filled.commit([first], .unknown).agedOut.values.joined())
            #expect(!aged.isEmpty && aged.isSubset(of: Set(filled.known.map(\.id))), "known peers' oldest made room")
            #expect(try await AgeingOrderTests.shows(filled.store, first))
            for _ in 0..<600 {
                let before = try await filled.shares().kept
                let one = filled.freshMessages(1)[0]
                try await filled.commit([one], .unknown)
                #expect(try await AgeingOrderTests.shows(filled.store, one))
                if try await filled.shares().kept < before { try await filled.expectKnownKeepTheirPart() }
            }
            #expect(try await filled.store.poolUsage().messages > 100, "the pool keeps its newest")
            #expect(try await filled.store.storedIDs(among: filled.verified.map(\.id)).count == filled.verified.count)
            try await AgeingOrderTests.expectConsistent(filled.store, rooms: [.publicRoom])
        }
    }

    /// (b) Under a cap known peers packed, a known peer's new messages are
    /// stored, known peers' oldest aged out for them; a verified peer's never.
    @Test func aKnownPeersNewMessageIsStoredUnderAPackedCap() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            var filled = try await Filled(in: directory)
            let verifiedBefore = try await filled.store.storedIDs(among: filled.verified.map(\.id))
            #expect(verifiedBefore.count == filled.verified.count)
            var agedKnown = 0
            for round in 0..<200 {
                let message = filled.writer.message(from: Self.knownPeers[round % 8], "known later")
                let result = try await filled.commit([message], .known)
                #expect(try await AgeingOrderTests.shows(filled.store, message))
                let aged = Set(result.agedOut.values.joined())
                #expect(aged.isDisjoint(with: verifiedBefore), "never a verified peer's")
                agedKnown += filled.known.count { aged.contains($0.id) }
                filled.known.append(message)
            }
            #expect(agedKnown > 0, "known peers' oldest made room")
            // Oldest first: what is left of the known peers' is their newest.
            let left = try await filled.store.storedIDs(among: filled.known.map(\.id))
            #expect(filled.known.suffix(left.count).allSatisfy { left.contains($0.id) })
            #expect(try await filled.store.storedIDs(among: filled.verified.map(\.id)) == verifiedBefore)
            try await AgeingOrderTests.expectConsistent(filled.store, rooms: [.publicRoom])
        }
    }

    /// (c) Three thousand fresh identities, a batch a commit: every
    /// message is stored, the pool grows to about its part and then ages
    /// itself; known peers' rows go only down to their part. Then a known
    /// peer's message is stored too, the pool giving up what it holds
    /// beyond its part first; a verified peer's never.
    @Test func aFloodOfFreshKeysCannotShrinkKnownPeersBelowTheirPart() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            var filled = try await Filled(in: directory)
            let batch = WALBound.commitBatch(cap: filled.cap)
            var last: [Message] = []
            while filled.fresh < 3000 {
                let before = try await filled.shares().kept
                last = filled.freshMessages(batch)
                try await filled.commit(last, .unknown)
                // A commit's own rows always stay, so one batch may hold
                // more than the pool's part: known peers' rows go only
                // while they keep more than theirs, and down to it at most.
                if try await filled.shares().kept < before {
                    try await filled.expectKnownKeepTheirPart(besides: last.reduce(0) { $0 + StorageUsage.bytes(of: $1) })
                }
            }
            for message in last.suffix(5) { #expect(try await AgeingOrderTests.shows(filled.store, message)) }
            let (kept, pool) = try await filled.shares()
            #expect(pool * 2 * ChatLimits.peerShareOfHistoryCap >= kept, "the pool has room of its own: \(pool) beside \(kept)")

            let verifiedBefore = try await filled.store.storedIDs(among: filled.verified.map(\.id))
            for round in 0..<40 {
                let message = filled.writer.message(from: Self.knownPeers[round % 8], "known later")
                let result = try await filled.commit([message], .known)
                #expect(try await AgeingOrderTests.shows(filled.store, message))
                #expect(Set(result.agedOut.values.joined()).isDisjoint(with: verifiedBefore), "never a verified peer's")
            }
            #expect(try await filled.store.storedIDs(among: filled.verified.map(\.id)) == verifiedBefore)
            try await AgeingOrderTests.expectConsistent(filled.store, rooms: [.publicRoom])
        }
    }
}
