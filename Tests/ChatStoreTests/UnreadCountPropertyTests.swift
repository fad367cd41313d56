import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// A file store keeps its unread count by the messages a reader moves past
/// rather than recounting the whole tail: under any mix of messages (from
/// others and from me, landing before and after the marker) and marker
/// moves, the count it returns is the count of messages from others after
/// the marker.
@Suite struct UnreadCountPropertyTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theCountMatchesACountOfTheRoom(seed: UInt64) async throws {
        try await Fixtures.withTemporaryDirectory { directory in
            let store = try ChatStore(path: directory.appendingPathComponent("history.sqlite").path, localNumber: Fixtures.me)
            var rng = SeededRandom(seed: seed)
            var all: [Message] = []
            var bits: UInt64 = 0
            for round in 0..<60 {
                // A batch of messages, some far back in time (a peer catching up).
                var batch: [Message] = []
                for _ in 0..<Int(rng.next() % 12) {
                    bits += 1
                    let millis = Fixtures.base + Int64(rng.next() % 200_000)
                    let sender = [Fixtures.me, Fixtures.bob, Fixtures.carol][Int(rng.next() % 3)]
                    batch.append(Fixtures.message(at: millis, idBits: bits, from: sender))
                }
                try await store.insert(contentsOf: batch)
                all += batch
                guard !all.isEmpty else { continue }
                let sorted = all.sorted(by: Message.displayOrder)
                let pick = sorted[Int(rng.next() % UInt64(sorted.count))]
                let unread: Int
                switch rng.next() % 3 {
                case 0: unread = try await store.markRead(.publicRoom, upTo: pick.cursor)
                case 1: unread = try await store.markRead(.publicRoom, shownFrom: sorted[0].cursor, upTo: pick.cursor)
                default: unread = try await store.summary(of: .publicRoom)?.unreadCount ?? 0
                }
                let marker = try await store.summary(of: .publicRoom)?.readMarker
                let expected = all.filter { message in
                    message.senderNumber != Fixtures.me && (marker.map { message.cursor > $0 } ?? true)
                }.count
                #expect(unread == expected, "seed \(seed), round \(round)")
            }
        }
    }
}
