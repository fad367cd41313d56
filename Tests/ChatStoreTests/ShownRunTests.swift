import ChatCore
import Foundation
import Testing
@testable import ChatStore

/// `markRead(_:shownFrom:upTo:)`: the marker crosses a run the reader was
/// shown only when no unread message lies between it and the run.
@Suite struct ShownRunTests {
    @Test func aRunTouchingTheMarkerMovesIt() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(10)
        try await store.insert(contentsOf: messages)
        try await store.markRead(.publicRoom, upTo: messages[2].cursor)
        // Shown 0...5: starts before the marker, so it touches it.
        #expect(try await store.markRead(.publicRoom, shownFrom: messages[0].cursor, upTo: messages[5].cursor) == 4)
        // Shown 6...6: right after the marker.
        #expect(try await store.markRead(.publicRoom, shownFrom: messages[6].cursor, upTo: messages[6].cursor) == 3)
    }

    @Test func aGapOfUnseenMessagesKeepsTheMarker() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(10)
        try await store.insert(contentsOf: messages)
        try await store.markRead(.publicRoom, upTo: messages[2].cursor)
        // 3 and 4 were never shown.
        #expect(try await store.markRead(.publicRoom, shownFrom: messages[5].cursor, upTo: messages[9].cursor) == 7)
        #expect(try await store.summary(of: .publicRoom)?.readMarker == messages[2].cursor)
        // With no marker at all, every earlier message is the gap.
        #expect(try await store.markRead(.direct(Fixtures.bob), shownFrom: messages[0].cursor, upTo: messages[0].cursor) == 0, "unknown room")
        let fresh = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await fresh.insert(contentsOf: messages)
        #expect(try await fresh.markRead(.publicRoom, shownFrom: messages[1].cursor, upTo: messages[9].cursor) == 10)
        #expect(try await fresh.markRead(.publicRoom, shownFrom: messages[0].cursor, upTo: messages[9].cursor) == 0)
    }

    @Test func aGapCostsTheSameHoweverFarTheRunIs() async throws {
        // One unseen message holds the marker; then 3,000 are shown one by
        // one, each checking for a gap before it. The check stops at the
        // unseen message: its work must not grow with the run (a count did,
        // visiting every message after the marker each time).
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = Fixtures.numbered(3_001)
        try await store.insert(contentsOf: messages)
        var steps: [Int] = []
        for index in [10, 3_000] {
            let before = try await store.virtualMachineSteps(of: SQL.anyUnreadBetween)
            #expect(try await store.markRead(.publicRoom, shownFrom: messages[index].cursor, upTo: messages[index].cursor) == 3_001)
            steps.append(try await store.virtualMachineSteps(of: SQL.anyUnreadBetween) - before)
        }
        #expect(steps[0] > 0)
        #expect(steps[1] <= steps[0] + 10, "steps near the marker \(steps[0]), 3,000 messages on \(steps[1])")
    }

    @Test func ownMessagesAreNoGap() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let mine = Fixtures.numbered(3, from: Fixtures.me)
        let theirs = Fixtures.message(at: Fixtures.base + 100_000, idBits: 500)
        try await store.insert(contentsOf: mine + [theirs])
        #expect(try await store.markRead(.publicRoom, shownFrom: theirs.cursor, upTo: theirs.cursor) == 0)
    }
}
