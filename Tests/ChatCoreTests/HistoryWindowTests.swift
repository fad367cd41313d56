import ChatCore
import Foundation
import Testing

@Suite struct HistoryWindowTests {
    private static let base: Int64 = 1_732_147_200_000
    private static let alice = NodeNumber(rawValue: 1)!

    /// Message number `n` of a room: one a second, ids in the same order.
    private static func message(_ n: Int, room: RoomID = .publicRoom) -> Message {
        let millis = base + Int64(n) * 1000
        return Message(
            id: MessageID(millis: millis, random: (UInt64(n), UInt64(n))), room: room,
            senderNumber: alice, senderNickname: "alice", content: "m\(n)", timestamp: millis)
    }

    /// A page of messages `range` out of a room holding `0..<total`.
    private static func page(_ range: Range<Int>, of total: Int, room: RoomID = .publicRoom) -> HistoryPage {
        HistoryPage(
            room: room, messages: range.map { message($0, room: room) },
            hasMoreBefore: range.lowerBound > 0, hasMoreAfter: range.upperBound < total)
    }

    // MARK: The three placements

    @Test func liveMessageAtNewestPageIsAppendedAndFollowed() {
        var window = HistoryWindow(page: Self.page(70..<100, of: 100))
        #expect(window.isFollowing)
        #expect(window.place(Self.message(100)) == .appendAndFollow)
        #expect(window.newest == Self.message(100).cursor)
        #expect(window.count == 31)
        #expect(window.isFollowing)
    }

    @Test func liveMessageWhileScrolledBackWithNewestLoadedIsAppendedAndAnnounced() {
        var window = HistoryWindow(page: Self.page(70..<100, of: 100))
        window.loadedOlder(Self.page(40..<70, of: 100))
        #expect(!window.isFollowing)
        #expect(!window.hasMoreAfter)
        #expect(window.place(Self.message(100)) == .appendAndAnnounce)
        #expect(window.newest == Self.message(100).cursor)
        #expect(window.oldest == Self.message(40).cursor)
        #expect(window.count == 61)
    }

    @Test func liveMessageWithNewerPagesUnloadedIsOnlyStoredAndAnnounced() {
        // Opened around a read marker in the middle of the room.
        var window = HistoryWindow(page: Self.page(40..<70, of: 100))
        #expect(window.hasMoreAfter)
        #expect(!window.isFollowing)
        let before = window
        #expect(window.place(Self.message(100)) == .storeAndAnnounce)
        #expect(window == before, "never appended after a gap")
    }

    // MARK: Moving around

    @Test func loadingDownToTheNewestPageFollowsAgain() {
        var window = HistoryWindow(page: Self.page(40..<70, of: 100))
        #expect(window.newerPageCursor == Self.message(69).cursor)
        window.loadedNewer(Self.page(70..<100, of: 100))
        #expect(window.isFollowing)
        #expect(window.newerPageCursor == nil)
        #expect(window.place(Self.message(100)) == .appendAndFollow)
    }

    @Test func scrollingWithinTheLoadedRunDecidesFollowing() {
        var window = HistoryWindow(page: Self.page(70..<100, of: 100))
        window.readerMoved(toBottom: false)
        #expect(window.place(Self.message(100)) == .appendAndAnnounce)
        window.readerMoved(toBottom: true)
        #expect(window.place(Self.message(101)) == .appendAndFollow)
    }

    @Test func readerAtBottomOfAPartialRunDoesNotFollow() {
        var window = HistoryWindow(page: Self.page(40..<70, of: 100))
        window.readerMoved(toBottom: true)
        #expect(!window.isFollowing)
        #expect(window.place(Self.message(100)) == .storeAndAnnounce)
    }

    @Test func cursorsForTheNextPages() {
        var window = HistoryWindow(page: Self.page(70..<100, of: 100))
        #expect(window.olderPageCursor == Self.message(70).cursor)
        #expect(window.newerPageCursor == nil)
        window.loadedOlder(Self.page(40..<70, of: 100))
        #expect(window.olderPageCursor == Self.message(40).cursor)
        window.loadedOlder(Self.page(10..<40, of: 100))
        window.loadedOlder(Self.page(0..<10, of: 100))
        #expect(window.olderPageCursor == nil)
        #expect(window.count == 100)
        #expect(window.oldest == Self.message(0).cursor)
    }

    @Test func anEmptyOlderPageEndsScrollingUp() {
        var window = HistoryWindow(page: Self.page(0..<30, of: 30))
        window.loadedOlder(HistoryPage(room: .publicRoom, messages: [], hasMoreBefore: false, hasMoreAfter: true))
        #expect(!window.hasMoreBefore)
        #expect(!window.hasMoreAfter, "the window's own newer side is unchanged")
        #expect(window.count == 30)
    }

    // MARK: Edges

    @Test func emptyRoomAppendsAndFollows() {
        var window = HistoryWindow(page: HistoryPage(room: .publicRoom, messages: [], hasMoreBefore: false, hasMoreAfter: false))
        #expect(window.oldest == nil && window.newest == nil)
        #expect(window.place(Self.message(0)) == .appendAndFollow)
        #expect(window.oldest == Self.message(0).cursor)
        #expect(window.newest == Self.message(0).cursor)
        #expect(window.count == 1)
        #expect(HistoryWindow(room: .publicRoom).isFollowing)
    }

    @Test func messageForAnotherRoomIsNotTheWindows() {
        var window = HistoryWindow(page: Self.page(70..<100, of: 100))
        let before = window
        #expect(window.place(Self.message(100, room: .direct(Self.alice))) == .storeAndAnnounce)
        #expect(window == before)
    }

    @Test func lateMessageInsideTheLoadedRunJoinsWithoutMovingTheEnds() {
        var window = HistoryWindow(page: Self.page(70..<100, of: 100))
        // Timestamped between messages 80 and 81 (a peer's clock runs behind).
        var late = Self.message(80)
        late.id = MessageID(millis: late.timestamp, random: (999, 999))
        #expect(window.place(late) == .appendAndFollow)
        #expect(window.newest == Self.message(99).cursor)
        #expect(window.oldest == Self.message(70).cursor)
        #expect(window.count == 31)
    }

    @Test func lateMessageOlderThanAnUnloadedPastIsOnlyStored() {
        var window = HistoryWindow(page: Self.page(70..<100, of: 100))
        let before = window
        #expect(window.place(Self.message(5)) == .storeAndAnnounce)
        #expect(window == before)
    }

    @Test func lateMessageOlderThanAFullyLoadedPastExtendsTheRun() {
        var window = HistoryWindow(page: Self.page(0..<30, of: 30))
        var early = Self.message(0)
        early.timestamp -= 5000
        early.id = MessageID(millis: early.timestamp, random: (1, 1))
        #expect(window.place(early) == .appendAndFollow)
        #expect(window.oldest == early.cursor)
    }

    @Test func cursorsOrderByTimestampThenID() {
        let id1 = MessageID(millis: Self.base, random: (1, 1))
        let id2 = MessageID(millis: Self.base, random: (2, 2))
        // A later timestamp wins even with a smaller id.
        #expect(HistoryCursor(timestamp: 5, id: id2) < HistoryCursor(timestamp: 6, id: id1))
        #expect(HistoryCursor(timestamp: 5, id: id1) < HistoryCursor(timestamp: 5, id: id2))
        #expect(HistoryCursor.justBefore(millis: 5) < HistoryCursor(timestamp: 5, id: id1))
        #expect(HistoryCursor(timestamp: 4, id: id2) <= HistoryCursor.justBefore(millis: 5))
        #expect(HistoryCursor.start(ofMillis: 5) <= HistoryCursor(timestamp: 5, id: id1))
        #expect(HistoryCursor(timestamp: 4, id: id2) < HistoryCursor.start(ofMillis: 5))
    }

    @Test func pageMarksWhereUnreadStarts() {
        var page = Self.page(0..<10, of: 10)
        page.readMarker = Self.message(3).cursor
        #expect(page.firstUnreadIndex == 4)
        page.readMarker = Self.message(9).cursor
        #expect(page.firstUnreadIndex == nil)
        page.readMarker = nil
        #expect(page.firstUnreadIndex == 0)
    }
}
