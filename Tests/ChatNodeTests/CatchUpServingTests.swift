import ChatCore
import ChatWire
import Testing
@testable import ChatNode

/// The answering side of catch-up as a value, on explicit time: what a
/// peer may ask of us (rate, page size, where a page starts) and what one
/// reply holds.
@Suite struct CatchUpServingTests {
    static let a = NodeNumber(rawValue: 1)!
    static let b = NodeNumber(rawValue: 2)!

    static func request(_ n: UInt64) -> P2PPayload {
        P2PPayload(type: .historyRequest, messageId: MessageID(millis: 1_732_147_200_000, random: (n, n)),
                   senderNumber: a, senderNickname: "a", timestamp: 1_732_147_200_000)
    }

    /// A burst is answered at once; past it one request per peer waits for
    /// budget (a newer one takes its place), and budget comes back with time.
    @Test func aPeerAskingTooOftenWaitsAndOnlyItsNewestRequestWaits() {
        var serving = CatchUpServing()
        let burst = Int(NodeLimits.catchUpBurst)
        let now = Duration.seconds(100)
        for n in 0..<burst { #expect(serving.admit(Self.request(UInt64(n)), from: Self.a, at: now) == .answer) }
        let wait = Duration.seconds(1 / NodeLimits.catchUpRefillPerSecond)
        #expect(serving.admit(Self.request(100), from: Self.a, at: now) == .deferred(wait: wait))
        #expect(serving.admit(Self.request(101), from: Self.a, at: now) == .replaced, "one waits per peer")
        #expect(serving.admit(Self.request(0), from: Self.b, at: now) == .answer, "each peer has its own budget")
        #expect(serving.takeDeferred(from: Self.a)?.messageId == Self.request(101).messageId, "the newest waits")
        #expect(serving.takeDeferred(from: Self.a) == nil)
        // The wait the node sleeps is enough for one more.
        #expect(serving.admit(Self.request(102), from: Self.a, at: now + wait) == .answer)
        #expect(serving.admit(Self.request(103), from: Self.a, at: now + wait) == .deferred(wait: wait))
    }

    @Test func aPeerCannotAskForMoreThanAPage() {
        #expect(CatchUpServing.pageLimit(asked: nil) == NodeLimits.catchUpPageSize)
        #expect(CatchUpServing.pageLimit(asked: 20) == 20)
        #expect(CatchUpServing.pageLimit(asked: 1_000_000) == NodeLimits.catchUpPageSize)
        #expect(CatchUpServing.pageLimit(asked: 0) == 1)
        #expect(CatchUpServing.pageLimit(asked: -5) == 1)
    }

    /// A cursor of this store continues after it; anything else (first
    /// contact, an earlier store of ours, a negative number) gets only our
    /// newest messages.
    @Test func aPageStartsAfterACursorOfThisStoreOrAtTheNewest() {
        #expect(CatchUpServing.start(after: CatchUpCursor(epoch: "mine", seq: 42), epoch: "mine") == 42)
        #expect(CatchUpServing.start(after: CatchUpCursor(epoch: "old", seq: 42), epoch: "mine") == nil)
        #expect(CatchUpServing.start(after: CatchUpCursor(epoch: "mine", seq: -1), epoch: "mine") == nil)
        #expect(CatchUpServing.start(after: nil, epoch: "mine") == nil)
        #expect(CatchUpServing.firstContactStart(lastSeq: 300) == 0)
        #expect(CatchUpServing.firstContactStart(lastSeq: 5_000) == 5_000 - NodeLimits.catchUpFirstContact)
    }

    static func rows(_ seqs: ClosedRange<Int64>, text: String = "hello") -> [(seq: Int64, message: Message)] {
        seqs.map { seq in
            let message = Message(id: MessageID(millis: 1_732_147_200_000 + seq, random: (UInt64(seq), 7)), room: .publicRoom,
                                  senderNumber: a, senderNickname: "a", content: text,
                                  timestamp: 1_732_147_200_000 + seq)
            return (seq, message)
        }
    }

    @Test func onePageMoreSaysThereIsMore() {
        let rows = Self.rows(11...16)
        let all = Set(rows.map(\.message.id))
        let page = CatchUpServing.page(rows, limit: 5, start: 10, relayable: all)
        #expect(page.frames.map(\.messageId) == rows.prefix(5).map(\.message.id))
        #expect(page.last == 15 && page.more)
        let last = CatchUpServing.page(Array(rows.prefix(5)), limit: 5, start: 10, relayable: all)
        #expect(last.last == 15 && !last.more)
        let empty = CatchUpServing.page([], limit: 5, start: 10, relayable: [])
        #expect(empty.frames.isEmpty && empty.last == 10 && !empty.more, "nothing new: the cursor stays")
    }

    /// A message that failed its check is not sent, but the cursor moves
    /// past it, so the asker is not stuck on it.
    @Test func anUnrelayableMessageIsPassedOverNotStuckOn() {
        let rows = Self.rows(1...4)
        let relayable = Set(rows.map(\.message.id)).subtracting([rows[1].message.id, rows[3].message.id])
        let page = CatchUpServing.page(rows, limit: 10, start: 0, relayable: relayable)
        #expect(page.frames.map(\.messageId) == [rows[0].message.id, rows[2].message.id])
        #expect(page.last == 4 && !page.more)
    }

    /// However many messages were asked for, one reply stays under
    /// `catchUpReplyBytes`; the rest is the next page.
    @Test func aReplyStaysUnderItsByteCap() {
        // The longest text there is: 240 characters of 3 bytes each.
        let rows = Self.rows(1...200, text: String(repeating: "가", count: ChatLimits.maxMessageCharacters))
        let page = CatchUpServing.page(rows, limit: 200, start: 0, relayable: Set(rows.map(\.message.id)))
        let size = page.frames.reduce(512) { $0 + P2PFrameCodec.encode($1).count }
        #expect(size <= NodeLimits.catchUpReplyBytes)
        #expect(page.frames.count < 200 && page.more)
        #expect(page.last == Int64(page.frames.count), "the cursor ends at the last message sent")
    }
}
