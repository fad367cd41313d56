import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// Aged rows leave through one path (ChatStore+AgedRows.swift), so a file
/// packed to its last page cannot refuse the user's own message because
/// of the order in which rows go.
@Suite struct AgedRowsTests {
    typealias Writer = AgeingOrderTests.Writer

    /// Newcomers' messages in the pool, in the search index, on a file
    /// known peers packed to its last page: ageing them out alone frees no
    /// page, and the index needs one for their removal. The user's own
    /// messages are stored all the same (the pool's rows and known peers'
    /// oldest go in one deletion), and the store stays consistent. (The
    /// node-level race that made the pool's deletion fail at every retry,
    /// pool first, is OwnSendUnderCapTests'; this holds the store's side
    /// over many fill-and-send cycles.)
    @Test func indexedPoolRowsOnAPackedFileDoNotStopTheUsersOwnMessages() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try AgeingOrderTests.store(in: directory, cap: 1_048_576)
            var writer = Writer()
            // Known peers fill the cap twice over, making room among
            // themselves as a node commits them (the pool keeps its part).
            func knownRounds(_ count: Int) async throws {
                for round in 0..<count {
                    let batch = writer.batch(32, from: NodeNumber(rawValue: UInt64(101 + round % 6))!, "known")
                    try await AgeingOrderTests.commit(store, batch, order: AgeingOrder(rank: .known))
                }
            }
            try await knownRounds(60)
            var mine: [Message] = []
            var agedPool = 0
            for cycle in 0..<12 {
                // A newcomer (the pool), folded into the index when there is room for it.
                let pooled = [writer.message(from: NodeNumber(rawValue: UInt64(1_000_000 + cycle))!, "fresh")]
                try await AgeingOrderTests.commit(store, pooled, pooled: true, order: AgeingOrder(rank: .unknown))
                try await store.checkSearchIndex()
                try await knownRounds(4)
                // The user's own, until one finds no room: each stored.
                var first: StoreCommitResult?
                for index in 0..<2000 where first == nil {
                    let message = writer.message(from: Fixtures.me, "mine \(cycle) \(index)")
                    let result = try await AgeingOrderTests.commit(store, [message], order: AgeingOrderTests.order)
                    #expect(result.added == [message.id])
                    mine.append(message)
                    if !result.agedOut.isEmpty { first = result }
                }
                let result = try #require(first, "the user's own filled what was left")
                let aged = Set(result.agedOut.values.joined())
                if pooled.allSatisfy({ aged.contains($0.id) }) { agedPool += 1 }
            }
            #expect(agedPool > 0, "the pool went first for the user's own")
            for message in mine.suffix(20) { #expect(try await AgeingOrderTests.shows(store, message)) }
            try await AgeingOrderTests.expectConsistent(store, rooms: [.publicRoom])
        }
    }
}
