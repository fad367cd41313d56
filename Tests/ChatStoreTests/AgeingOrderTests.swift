import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// The user's own messages and the DMs of their conversations always have
/// room under `--max-history`: when the pool cannot make room, a commit
/// of them ages out known peers' oldest, then verified peers' oldest, then
/// the user's own oldest public ones, never a message of the user's
/// conversations; and the files stay within the cap and its margin.
@Suite struct AgeingOrderTests {
    static let carol = Fixtures.carol
    static let verifiedPeer = NodeNumber(rawValue: 50)!
    static let order = AgeingOrder(conversations: [.direct(Fixtures.carol)], verified: [verifiedPeer])

    /// Messages with a rising clock and unique ids, each about 400 counted bytes.
    struct Writer {
        var next = 0

        mutating func message(from sender: NodeNumber, room: RoomID = .publicRoom, _ label: String) -> Message {
            next += 1
            var message = Fixtures.message(at: Fixtures.base + Int64(next), idBits: UInt64(next), room: room, from: sender,
                                           text: "\(label) \(next) " + String(repeating: "w", count: 150))
            message.signature = String(repeating: "s", count: 88)
            message.authorKey = String(repeating: "k", count: 44)
            return message
        }

        mutating func batch(_ count: Int, from sender: NodeNumber, room: RoomID = .publicRoom, _ label: String) -> [Message] {
            (0..<count).map { _ in message(from: sender, room: room, label) }
        }
    }

    static func store(in directory: URL, cap: Int) throws -> ChatStore {
        try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me,
                      durability: .full, maxBytes: cap)
    }

    @discardableResult
    static func commit(_ store: ChatStore, _ messages: [Message], pooled: Bool = false, budget: Int? = nil,
                       order: AgeingOrder? = nil) async throws -> StoreCommitResult {
        var changes = StoreChanges()
        changes.messages = messages
        if pooled { changes.pooled = Set(messages.map(\.id)) }
        changes.poolBudget = budget
        changes.ageingOrder = order
        changes.now = Fixtures.base
        return try await store.commit(changes)
    }

    /// Whether `store` holds `message` and shows it: stored, and on its room's pages.
    static func shows(_ store: ChatStore, _ message: Message) async throws -> Bool {
        guard try await store.message(message.id) != nil else { return false }
        let page = try await store.page(message.room, around: HistoryCursor(message), limit: 5)
        return page.messages.contains { $0.id == message.id }
    }

    /// Rooms and authors' totals agree with the rows; the file and its search index are sound.
    static func expectConsistent(_ store: ChatStore, rooms: [RoomID]) async throws {
        var rows: [Message] = []
        for room in rooms {
            var inRoom: [Message] = []
            while true {
                let page = try await store.page(room, after: inRoom.last.map(HistoryCursor.init), limit: 1000)
                inRoom += page
                if page.count < 1000 { break }
            }
            #expect(try await store.summary(of: room)?.messageCount == inRoom.count)
            #expect(try await store.summary(of: room)?.lastMessage == inRoom.last.map(HistoryCursor.init))
            rows += inRoom
        }
        let authors = Set(rows.map(\.senderNumber))
        let usage = try await store.usage(of: Array(authors))
        for author in authors {
            let theirs = rows.filter { $0.senderNumber == author }
            #expect(usage[author] == StorageUsage(messages: theirs.count, bytes: theirs.reduce(0) { $0 + StorageUsage.bytes(of: $1) }))
        }
        #expect(try await store.integrityCheck())
        try await store.checkSearchIndex()
    }

    static func filesBytes(_ store: ChatStore) async -> Int {
        let files = await store.fileBytes()
        return files.database + files.wal + files.shm
    }

    /// Known peers fill a cap the pool has no part of: their next batch is
    /// refused and leaves no trace, and the user's own message is stored,
    /// the known peers' oldest aged out for it; as more of the user's own
    /// come, the verified peer's oldest go only once no known peer's is
    /// left, the user's own oldest public ones only once no verified one
    /// is left, and carol's conversation never loses a message.
    @Test func theUsersOwnAgeOutKnownThenVerifiedThenTheirOwnPublicNeverTheirConversations() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let cap = 1_048_576
            let store = try Self.store(in: directory, cap: cap)
            var writer = Writer()
            let conversation = writer.batch(40, from: Self.carol, room: .direct(Self.carol), "carol")
                + writer.batch(40, from: Fixtures.me, room: .direct(Self.carol), "to carol")
            try await Self.commit(store, conversation, order: Self.order)
            let verified = writer.batch(150, from: Self.verifiedPeer, "verified")
            try await Self.commit(store, verified)
            var ownPublic = writer.batch(150, from: Fixtures.me, "mine")
            try await Self.commit(store, ownPublic, order: Self.order)
            var known: [Message] = []
            var refused = false
            for round in 0..<200 where !refused {
                let batch = writer.batch(32, from: NodeNumber(rawValue: UInt64(100 + round % 6))!, "known")
                do {
                    try await Self.commit(store, batch)
                    known += batch
                } catch let error as StoreError where error.isFull {
                    refused = true
                    #expect(try await store.storedIDs(among: batch.map(\.id)).isEmpty, "a refused commit leaves no trace")
                }
            }
            // Then one at a time: the file has no room for another message.
            while refused {
                let one = writer.message(from: NodeNumber(rawValue: 106)!, "known")
                do {
                    try await Self.commit(store, [one])
                    known.append(one)
                } catch let error as StoreError where error.isFull {
                    break
                }
            }
            #expect(refused, "known peers filled the cap")
            #expect(try await store.poolUsage().messages == 0)
            let before = try await store.lastSeq()

            // One own message: a few of the known peers' oldest go, nothing else.
            let first = writer.message(from: Fixtures.me, "my first under a full cap")
            let result = try await Self.commit(store, [first], order: Self.order)
            #expect(result.added == [first.id])
            let aged = Set(result.agedOut[.publicRoom] ?? [])
            #expect(!aged.isEmpty && aged == Set(known.prefix(aged.count).map(\.id)), "the oldest known first")
            #expect(aged.count < known.count / 4, "a little, not the whole tier")
            #expect(try await Self.shows(store, first))
            #expect(try await store.lastSeq() == before + 1)
            ownPublic.append(first)

            // More of the user's own, until their own oldest public start to go.
            var gone = Set(aged)
            for round in 0..<400 {
                let mine = writer.batch(8, from: Fixtures.me, "mine later")
                let room = round % 4 == 1 ? RoomID.direct(Self.carol) : .publicRoom
                var placed = room == .publicRoom ? mine : mine.map { var m = $0; m.room = room; return m }
                // A few steps also carry a known peer's message, unread: the
                // count the commit reports must include it.
                if round < 12, room == .publicRoom {
                    let theirs = writer.message(from: NodeNumber(rawValue: 107)!, "known, same step")
                    placed.append(theirs)
                    known.append(theirs)
                }
                let result = try await Self.commit(store, placed, order: Self.order)
                #expect(result.added.count == placed.count)
                #expect(result.agedOut[.direct(Self.carol)] == nil, "never the user's conversation")
                for (room, unread) in result.unread {
                    #expect(try await store.summary(of: room)?.unreadCount == unread, "the count the node is told")
                }
                let now = Set(result.agedOut.values.joined())
                let knownLeft = known.contains { !gone.contains($0.id) }
                let verifiedLeft = verified.contains { !gone.contains($0.id) }
                if now.contains(where: { id in verified.contains { $0.id == id } }) {
                    #expect(!knownLeft || known.allSatisfy { gone.contains($0.id) || now.contains($0.id) }, "verified after known")
                }
                if now.contains(where: { id in ownPublic.contains { $0.id == id } }) {
                    #expect(!verifiedLeft || verified.allSatisfy { gone.contains($0.id) || now.contains($0.id) }, "own after verified")
                }
                gone.formUnion(now)
                if room == .publicRoom { ownPublic += placed.filter { $0.senderNumber == Fixtures.me } }
                for message in placed { #expect(try await store.message(message.id) != nil) }
                if ownPublic.contains(where: { gone.contains($0.id) }) { break }
            }
            #expect(known.allSatisfy { gone.contains($0.id) } && verified.allSatisfy { gone.contains($0.id) })
            #expect(ownPublic.contains { gone.contains($0.id) }, "the user's own oldest public went last")
            // Oldest first within each tier: what is left of each is its newest.
            for tier in [known, verified, ownPublic] {
                let left = tier.filter { !gone.contains($0.id) }
                #expect(left.map(\.id) == tier.suffix(left.count).map(\.id))
            }
            for message in conversation { #expect(try await Self.shows(store, message)) }
            try await Self.expectConsistent(store, rooms: [.publicRoom, .direct(Self.carol)])
        }
    }

    /// Without an ageing order only the pool makes room: a full cap
    /// refuses and ages out nothing else (the node gives every step an
    /// order; a peer's ages out as fair shares allow: FairShareTests).
    @Test func withoutAnAgeingOrderAFullCapRefusesAndAgesOutNothingElse() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try Self.store(in: directory, cap: 1_048_576)
            var writer = Writer()
            var stored: [MessageID] = []
            var refusal: StoreError?
            for round in 0..<200 where refusal == nil {
                let batch = writer.batch(32, from: NodeNumber(rawValue: UInt64(100 + round % 6))!, "known")
                do {
                    try await Self.commit(store, batch)
                    stored += batch.map(\.id)
                } catch let error as StoreError {
                    refusal = error
                }
            }
            #expect(refusal?.isFull == true)
            #expect(try await store.storedIDs(among: stored).count == stored.count, "nothing aged out")
        }
    }

    /// Under a small cap, a flood of fresh keys (the pool), known peers
    /// filling their shares, verified ones, and the user's own sends and
    /// accepted conversation, in turns: after every commit the database,
    /// its WAL and its shared memory take at most the cap plus the stated
    /// margin, and every one of the user's own messages and every message
    /// of their conversation is stored and shown.
    @Test(arguments: [1, 2]) func theFilesStayWithinTheCapAndItsMarginAndTheUsersOwnAreAllKept(mib: Int) async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let cap = mib * 1_048_576
            let bound = cap + WALBound.margin(cap: cap)
            let store = try Self.store(in: directory, cap: cap)
            let share = cap / ChatLimits.peerShareOfHistoryCap
            let batch = WALBound.commitBatch(cap: cap)
            var writer = Writer()
            var used: [NodeNumber: Int] = [:]
            var kept: [Message] = []
            var largest = 0
            var refusedKnown = 0
            var refusedFlood = 0
            var fresh = 0
            func measure() async {
                let bytes = await Self.filesBytes(store)
                largest = max(largest, bytes)
                #expect(bytes <= bound, "files reached \(bytes) bytes, bound \(bound)")
            }
            for round in 0..<60 {
                // The crowd: each message from a key never seen before, into the pool.
                let flood = (0..<batch).map { _ in
                    fresh += 1
                    return writer.message(from: NodeNumber(rawValue: UInt64(1_000_000 + fresh))!, "fresh")
                }
                // Refused only when known peers' shares took the whole cap
                // and left the pool nothing to age out (docs/OPERATIONS.md).
                let poolBefore = try await store.poolUsage().messages
                do {
                    #expect(try await Self.commit(store, flood, pooled: true, budget: share).added.count == batch)
                } catch let error as StoreError where error.isFull {
                    #expect(poolBefore == 0, "a flood is refused only with the pool empty")
                    refusedFlood += 1
                }
                await measure()
                // Known peers (and one verified), each within its share as the node holds it.
                for peer in [NodeNumber(rawValue: UInt64(100 + round % 9))!, Self.verifiedPeer] {
                    let room = share - used[peer, default: 0]
                    let messages = writer.batch(min(batch / 2, room / 400), from: peer, "known")
                    guard !messages.isEmpty else { continue }
                    do {
                        try await Self.commit(store, messages)
                        used[peer, default: 0] += messages.reduce(0) { $0 + StorageUsage.bytes(of: $1) }
                    } catch let error as StoreError where error.isFull {
                        refusedKnown += 1
                    }
                    await measure()
                }
                // The user: a public send, carol's DM, a DM to carol.
                for message in [writer.message(from: Fixtures.me, "mine"),
                                writer.message(from: Self.carol, room: .direct(Self.carol), "carol"),
                                writer.message(from: Fixtures.me, room: .direct(Self.carol), "to carol")] {
                    let result = try await Self.commit(store, [message], order: Self.order)
                    #expect(result.added == [message.id])
                    #expect(try await Self.shows(store, message))
                    kept.append(message)
                    await measure()
                }
            }
            #expect(refusedKnown > 0, "the cap was full of known peers' shares")
            #expect(refusedFlood < 60)
            for message in kept { #expect(try await Self.shows(store, message), "\(message.content.prefix(20)) kept") }
            #expect(largest <= bound)
            #expect(try await store.integrityCheck())
            try await store.checkSearchIndex()
        }
    }
}
