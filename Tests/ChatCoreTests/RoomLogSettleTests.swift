import ChatCore
import Testing
import TestSupport

/// `RoomLog` keeps added messages pending until `settle()`; whatever the
/// moment it is settled, a log must read exactly as one settled after every
/// add (the reference below).
@Suite struct RoomLogSettleTests {
    let me = Fixtures.alice.number

    @Test func pendingMessagesAreShownInDisplayOrderAndCountedBeforeSettling() {
        var log = RoomLog(room: .publicRoom, capacity: 3)
        _ = log.add(Fixtures.message(1, at: Fixtures.t0 + 10), localNumber: me)
        _ = log.add(Fixtures.message(2, at: Fixtures.t0 + 30), localNumber: me)
        _ = log.add(Fixtures.message(3, at: Fixtures.t0 + 20), localNumber: me)
        #expect(!log.isSettled)
        #expect(log.messages.map(\.content) == ["m1", "m3", "m2"])
        #expect(log.unreadCount == 3)
        log.settle()
        #expect(log.isSettled)
        #expect(log.messages.map(\.content) == ["m1", "m3", "m2"])
    }

    @Test func aPendingIdIsADuplicateAndStaysOneAfterSettling() {
        var log = RoomLog(room: .publicRoom)
        #expect(log.add(Fixtures.message(1), localNumber: me) == .added(counted: true))
        #expect(log.contains(Fixtures.id(1)))
        #expect(log.add(Fixtures.message(1), localNumber: me) == .duplicate)
        log.settle()
        #expect(log.add(Fixtures.message(1), localNumber: me) == .duplicate)
        #expect(log.messages.count == 1 && log.unreadCount == 1)
    }

    @Test func aCopyPlannedOnLeavesTheOriginalAsItWas() {
        var original = RoomLog(room: .publicRoom)
        _ = original.add(Fixtures.message(1), localNumber: me)
        original.settle()
        var copy = original
        _ = copy.add(Fixtures.message(2), localNumber: me)
        copy.settle()
        #expect(original.messages.map(\.content) == ["m1"])
        #expect(!original.contains(Fixtures.id(2)))
        #expect(copy.messages.map(\.content) == ["m1", "m2"])
    }

    @Test func manyAddsWithoutSettlingStayBoundedAndComplete() {
        var log = RoomLog(room: .publicRoom, capacity: 100)
        for n in 0..<300 { _ = log.add(Fixtures.message(UInt64(n), at: Fixtures.t0 + Int64(n)), localNumber: me) }
        #expect(log.messages.count == 100)
        #expect(log.messages.first?.content == "m200" && log.messages.last?.content == "m299")
        #expect(log.unreadCount == 300)
    }

    /// Random adds (repeats, old and new times, own messages), random
    /// settles, activation and restores, against a log settled after every
    /// add: same messages, order, unread count and duplicate answers.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func anySettleScheduleReadsAsSettlingAfterEveryAdd(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var log = RoomLog(room: .publicRoom, capacity: 20)
        var reference = RoomLog(room: .publicRoom, capacity: 20)
        for step in 0..<600 {
            switch random.next() % 20 {
            case 0:
                log.settle()
            case 1:
                _ = log.activate()
                _ = reference.activate()
            case 2:
                log.deactivate()
                reference.deactivate()
            default:
                let sequence = random.next() % 200
                let sender = random.next() % 4 == 0 ? Fixtures.alice : Fixtures.bob
                let message = Fixtures.message(sequence, from: sender, at: Fixtures.t0 + Int64(sequence % 37))
                let expected = reference.add(message, localNumber: me)
                reference.settle()
                #expect(log.add(message, localNumber: me) == expected, "step \(step)")
            }
            #expect(log.unreadCount == reference.unreadCount, "step \(step)")
            #expect(log.messages.map(\.id) == reference.messages.map(\.id), "step \(step)")
        }
    }
}
