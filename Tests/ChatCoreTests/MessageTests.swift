import ChatCore
import Foundation
import Testing
import TestSupport

@Suite struct MessageTests {
    typealias F = Fixtures

    @Test func builtFromAPayloadWithTheTextRules() throws {
        var frame = F.frame(.publicMessage, from: F.carol, content: "\u{3000} hello \n")
        frame.automatic = true
        let message = try Message(from: frame, localNumber: F.alice.number)
        #expect(message.id == frame.messageId)
        #expect(message.room == .publicRoom)
        #expect(message.senderNumber == F.carol.number)
        #expect(message.senderNickname == "carol")
        #expect(message.senderStage == "web")
        #expect(message.content == "hello")
        #expect(message.timestamp == F.t0)
        #expect(message.automatic)
        #expect(message.sentAt == Date(timeIntervalSince1970: 1_732_147_200))
        #expect(throws: TextValidationError.empty) {
            try Message(from: F.frame(.publicMessage, from: F.carol, content: " "), localNumber: F.alice.number)
        }
    }

    @Test func isFromCurrentUserDependsOnTheInjectedIdentity() throws {
        let message = try Message(from: F.frame(.publicMessage, from: F.bob, content: "hi"), localNumber: F.alice.number)
        #expect(!message.isFromCurrentUser(F.alice))
        #expect(message.isFromCurrentUser(F.bob))
        // Same number, new nickname: still me.
        #expect(message.isFromCurrentUser(NodeIdentity(number: F.bob.number, nickname: "robert")))
    }

    @Test func directRoomIsTheOtherSide() throws {
        let incoming = F.frame(.directMessage, from: F.bob, to: F.alice, content: "hi")
        #expect(try Message(from: incoming, localNumber: F.alice.number).room == .direct(F.bob.number))
        #expect(try Message(from: incoming, localNumber: F.bob.number).room == .direct(F.alice.number))
        #expect(incoming.room(localNumber: F.alice.number) == .direct(F.bob.number))
        #expect(F.frame(.publicMessage, from: F.bob).room(localNumber: F.bob.number) == .publicRoom)
    }

    @Test func codableRoundTrip() throws {
        let message = try Message(from: F.frame(.dmRequest, from: F.bob, to: F.alice, content: "저장"), localNumber: F.alice.number)
        let data = try JSONEncoder().encode(message)
        #expect(try JSONDecoder().decode(Message.self, from: data) == message)
    }
}

@Suite struct ClockTests {
    @Test(arguments: [
        (0.0, Int64(0)), (1_732_147_200.0, 1_732_147_200_000), (1.0009, 1_000), (-0.0005, -1),
    ])
    func millisecondsRoundDown(seconds: Double, millis: Int64) {
        #expect(Timestamp.millis(from: Date(timeIntervalSince1970: seconds)) == millis)
    }

    @Test func millisRoundTripThroughDate() {
        for millis in [Timestamp.earliestAccepted, Fixtures.t0, Fixtures.t0 + 1, Timestamp.latestAccepted] {
            #expect(Timestamp.millis(from: Timestamp.date(fromMillis: millis)) == millis)
        }
    }

    @Test func acceptedRangeIsYears2000Through9999() {
        let calendar = Calendar(identifier: .gregorian)
        var utc = calendar
        utc.timeZone = TimeZone(identifier: "UTC")!
        #expect(utc.component(.year, from: Timestamp.date(fromMillis: Timestamp.earliestAccepted)) == 2000)
        #expect(utc.component(.year, from: Timestamp.date(fromMillis: Timestamp.earliestAccepted - 1)) == 1999)
        #expect(utc.component(.year, from: Timestamp.date(fromMillis: Timestamp.latestAccepted)) == 9999)
    }

    @Test func manualClockDrivesComposedTimestamps() throws {
        let clock = ManualClock()
        var chat = PublicChat(identity: Fixtures.alice)
        let first = try chat.compose("one", at: clock.nowMillis())
        clock.advance(by: .milliseconds(1_500))
        let second = try chat.compose("two", at: clock.nowMillis())
        #expect(first.payload.timestamp == Fixtures.t0)
        #expect(second.payload.timestamp == Fixtures.t0 + 1_500)
        #expect(second.payload.messageId.millis == Fixtures.t0 + 1_500)
        #expect(clock.uptime() == .milliseconds(1_500))
        // A wall-clock step back does not make ids go back.
        clock.setWallClock(Date(timeIntervalSince1970: 1_700_000_000))
        let third = try chat.compose("three", at: clock.nowMillis())
        #expect(third.payload.messageId > second.payload.messageId)
        #expect(chat.messages.map(\.content) == ["three", "one", "two"], "displayed by timestamp")
    }
}
