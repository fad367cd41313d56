import ChatCore
import TestSupport
import Testing

@Suite struct RecentIDsTests {
    @Test func dropsDuplicates() {
        var recent = RecentIDs(capacity: 4)
        #expect(recent.insert(Fixtures.id(1)) == true)
        #expect(recent.insert(Fixtures.id(2)) == true)
        #expect(recent.insert(Fixtures.id(1)) == false)
        #expect(recent.insert(Fixtures.id(2)) == false)
        #expect(recent.count == 2)
        #expect(recent.contains(Fixtures.id(1)))
        #expect(!recent.contains(Fixtures.id(3)))
    }

    @Test(arguments: [1, 2, 3, 8])
    func evictsTheOldestAtCapacity(capacity: Int) {
        var recent = RecentIDs(capacity: capacity)
        for n in 0..<UInt64(capacity) { #expect(recent.insert(Fixtures.id(n)) == true) }
        #expect(recent.count == capacity)
        // One more pushes out id 0 and only id 0.
        #expect(recent.insert(Fixtures.id(99)) == true)
        #expect(recent.count == capacity)
        #expect(!recent.contains(Fixtures.id(0)))
        for n in 1..<UInt64(capacity) { #expect(recent.contains(Fixtures.id(n))) }
        #expect(recent.contains(Fixtures.id(99)))
        // Forgotten, so it is new again (and evicts id 1 if there is one).
        #expect(recent.insert(Fixtures.id(0)) == true)
        #expect(recent.count == capacity)
        if capacity > 1 { #expect(!recent.contains(Fixtures.id(1))) }
    }

    @Test func duplicateInsertDoesNotRefreshOrEvict() {
        var recent = RecentIDs(capacity: 2)
        recent.insert(Fixtures.id(1))
        recent.insert(Fixtures.id(2))
        #expect(recent.insert(Fixtures.id(1)) == false)  // no eviction for a repeat
        #expect(recent.contains(Fixtures.id(2)))
        recent.insert(Fixtures.id(3))  // evicts 1, the oldest inserted
        #expect(!recent.contains(Fixtures.id(1)))
        #expect(recent.contains(Fixtures.id(2)) && recent.contains(Fixtures.id(3)))
    }

    @Test func defaultCapacityIsTheLimit() {
        var recent = RecentIDs()
        for n in 0..<UInt64(ChatLimits.recentIDMemory) { recent.insert(Fixtures.id(n)) }
        #expect(recent.contains(Fixtures.id(0)))
        recent.insert(Fixtures.id(5_000))
        #expect(!recent.contains(Fixtures.id(0)))
        #expect(recent.count == ChatLimits.recentIDMemory)
    }
}

@Suite struct RoomLogTests {
    let me = Fixtures.alice.number

    @Test func unreadGrowsOnlyWhileInactiveAndNeverForOwnMessages() {
        var log = RoomLog(room: .publicRoom)
        #expect(!log.isActive)
        #expect(log.add(Fixtures.message(1, from: Fixtures.bob), localNumber: me) == .added(counted: true))
        #expect(log.add(Fixtures.message(2, from: Fixtures.alice), localNumber: me) == .added(counted: false))
        #expect(log.add(Fixtures.message(3, from: Fixtures.carol), localNumber: me) == .added(counted: true))
        #expect(log.unreadCount == 2)

        #expect(log.activate() == true)
        #expect(log.isActive)
        #expect(log.unreadCount == 0)
        #expect(log.add(Fixtures.message(4, from: Fixtures.bob), localNumber: me) == .added(counted: false))
        #expect(log.unreadCount == 0)

        log.deactivate()
        #expect(!log.isActive)
        #expect(log.add(Fixtures.message(5, from: Fixtures.alice), localNumber: me) == .added(counted: false))
        #expect(log.add(Fixtures.message(6, from: Fixtures.bob), localNumber: me) == .added(counted: true))
        #expect(log.unreadCount == 1)
        #expect(log.messages.count == 6)
    }

    @Test func activationReportsAChangeOnlyWhenThereWasUnread() {
        var log = RoomLog(room: .publicRoom)
        #expect(log.activate() == false, "nothing unread: no change")
        #expect(log.activate() == false, "already active, still nothing")
        log.deactivate()
        _ = log.add(Fixtures.message(1, from: Fixtures.alice), localNumber: me)
        #expect(log.activate() == false, "own message never counted")
        log.deactivate()
        _ = log.add(Fixtures.message(2), localNumber: me)
        #expect(log.activate() == true)
        #expect(log.activate() == false)
    }

    @Test func markReadClearsWithoutActivating() {
        var log = RoomLog(room: .direct(Fixtures.bob.number))
        _ = log.add(Fixtures.message(1), localNumber: me)
        #expect(log.markRead() == true)
        #expect(log.unreadCount == 0)
        #expect(!log.isActive)
        #expect(log.markRead() == false)
        #expect(log.add(Fixtures.message(2), localNumber: me) == .added(counted: true))
    }

    @Test func duplicateIsKeptOnceAndNotCounted() {
        var log = RoomLog(room: .publicRoom)
        let mine = Fixtures.message(1, from: Fixtures.alice)
        #expect(log.add(mine, localNumber: me) == .added(counted: false))
        #expect(log.add(mine, localNumber: me) == .duplicate)  // own echo
        let theirs = Fixtures.message(2)
        #expect(log.add(theirs, localNumber: me) == .added(counted: true))
        #expect(log.add(theirs, localNumber: me) == .duplicate)
        #expect(log.messages.map(\.id) == [mine.id, theirs.id])
        #expect(log.unreadCount == 1)
        #expect(log.contains(mine.id) && log.contains(theirs.id))
        #expect(!log.contains(Fixtures.id(3)))
    }

    @Test func outOfOrderArrivalsAreKeptInDisplayOrder() {
        var log = RoomLog(room: .publicRoom)
        let t = Fixtures.t0
        // (timestamp, id sequence) arriving shuffled; equal timestamps order by id.
        let arrivals: [(Int64, UInt64)] = [(t + 5, 1), (t + 1, 9), (t + 3, 2), (t + 3, 1), (t + 9, 0), (t, 5), (t + 3, 3)]
        for (timestamp, sequence) in arrivals {
            _ = log.add(Fixtures.message(sequence, at: timestamp), localNumber: me)
        }
        let expected = arrivals.map { Fixtures.message($0.1, at: $0.0) }.sorted(by: Message.displayOrder)
        #expect(log.messages.map(\.id) == expected.map(\.id))
        #expect(log.messages.map(\.timestamp) == [t, t + 1, t + 3, t + 3, t + 3, t + 5, t + 9])
    }

    @Test func sameTimestampOrdersById() {
        var log = RoomLog(room: .publicRoom)
        // Ids of a later millisecond but the same wire timestamp: id decides.
        let late = Message(id: Fixtures.id(1, millis: Fixtures.t0 + 50), room: .publicRoom, senderNumber: Fixtures.bob.number,
                           senderNickname: "bob", content: "late id", timestamp: Fixtures.t0)
        let early = Fixtures.message(1)
        _ = log.add(late, localNumber: me)
        _ = log.add(early, localNumber: me)
        #expect(log.messages.map(\.content) == ["m1", "late id"])
    }

    @Test func capacityDropsTheOldest() {
        var log = RoomLog(room: .publicRoom)
        for n in 0..<UInt64(ChatLimits.roomCapacity + 5) {
            _ = log.add(Fixtures.message(n, at: Fixtures.t0 + Int64(n)), localNumber: me)
        }
        #expect(log.messages.count == 100)
        #expect(log.messages.first?.content == "m5")
        #expect(log.messages.last?.content == "m104")
        #expect(log.unreadCount == 105, "unread counts arrivals, not what the buffer holds")
        // A dropped message is still remembered as seen.
        #expect(log.add(Fixtures.message(0, at: Fixtures.t0), localNumber: me) == .duplicate)
    }

    @Test func olderThanEverythingInAFullRoomIsNotShownButNewerIs() {
        var log = RoomLog(room: .publicRoom, capacity: 3)
        for n in 1...3 as ClosedRange<UInt64> { _ = log.add(Fixtures.message(n, at: Fixtures.t0 + Int64(n)), localNumber: me) }
        // Older than all kept: the room keeps its newest three.
        _ = log.add(Fixtures.message(9, at: Fixtures.t0), localNumber: me)
        #expect(log.messages.map(\.content) == ["m1", "m2", "m3"])
        // In the middle: oldest dropped, the new one in place.
        _ = log.add(Fixtures.message(8, at: Fixtures.t0 + 2), localNumber: me)
        #expect(log.messages.map(\.content) == ["m2", "m8", "m3"])
    }
}
