import ChatCore
import TestSupport
import Testing

@Suite struct PublicChatTests {
    typealias F = Fixtures

    @Test func composeTrimsAndBuildsTheFrame() throws {
        var chat = PublicChat(identity: F.alice)
        let (payload, message) = try chat.compose("  hello 세계 \n", at: F.t0)
        #expect(payload.type == .publicMessage)
        #expect(payload.content == "hello 세계")
        #expect(payload.senderNumber == F.alice.number)
        #expect(payload.senderNickname == "alice")
        #expect(payload.senderStage == "ios")
        #expect(payload.timestamp == F.t0)
        #expect(payload.targetNumber == nil)
        #expect(payload.automatic == nil)
        #expect(payload.version == P2PPayload.protocolVersion)
        #expect(payload.messageId.millis == F.t0)
        #expect(message.id == payload.messageId)
        #expect(message.room == .publicRoom)
        #expect(message.isFromCurrentUser(F.alice))
        #expect(!message.isFromCurrentUser(F.bob))
        #expect(chat.messages.map(\.content) == ["hello 세계"])
        #expect(chat.unreadCount == 0, "own messages never count")
    }

    @Test func composeMarksBotMessages() throws {
        var chat = PublicChat(identity: F.alice)
        let (payload, message) = try chat.compose("beep", at: F.t0, automatic: true)
        #expect(payload.automatic == true)
        #expect(message.automatic)
    }

    @Test(arguments: [
        ("", TextValidationError.empty),
        (" \n\u{3000} ", .empty),
        (String(repeating: "가", count: 241), .tooLong(characters: 241, limit: 240)),
        (String(repeating: "e" + String(repeating: "\u{301}", count: 18), count: 240),
         .tooManyBytes(bytes: 240 * 37, limit: 8192)),
    ])
    func composeRefusesBrokenText(text: String, error: TextValidationError) {
        var chat = PublicChat(identity: F.alice)
        #expect(throws: ChatError.invalidText(error)) { try chat.compose(text, at: F.t0) }
        #expect(chat.messages.isEmpty)
    }

    @Test func composeAcceptsExactly240() throws {
        var chat = PublicChat(identity: F.alice)
        let text = String(repeating: "\u{1F44D}\u{1F3FD}", count: 240)
        #expect(try chat.compose(text, at: F.t0).payload.content == text)
    }

    @Test func composedIdsIncreaseWithinOneMillisecond() throws {
        var chat = PublicChat(identity: F.alice)
        let ids = try (0..<50).map { try chat.compose("n\($0)", at: F.t0).payload.messageId }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == 50)
        #expect(chat.messages.map(\.content) == (0..<50).map { "n\($0)" })
    }

    @Test func receiveFromPeerCountsUnreadAndReportsIt() throws {
        var chat = PublicChat(identity: F.alice)
        let frame = F.frame(.publicMessage, from: F.bob, content: "  hi  ")
        let events = try chat.receive(frame)
        let message = try Message(from: frame, localNumber: F.alice.number)
        #expect(message.content == "hi")
        #expect(events == [.message(message), .unreadChanged(.publicRoom, count: 1)])
        #expect(chat.unreadCount == 1)
        #expect(!message.isFromCurrentUser(F.alice))
    }

    @Test func receiveWhileActiveDoesNotCount() throws {
        var chat = PublicChat(identity: F.alice)
        #expect(chat.activate().isEmpty)
        let events = try chat.receive(F.frame(.publicMessage, from: F.bob, content: "hi"))
        #expect(events.count == 1)
        #expect(chat.unreadCount == 0)
        chat.deactivate()
        let later = try chat.receive(F.frame(.publicMessage, from: F.bob, content: "again", id: F.id(2)))
        #expect(later.last == .unreadChanged(.publicRoom, count: 1))
    }

    @Test func activationClearsAndReportsOnce() throws {
        var chat = PublicChat(identity: F.alice)
        for n in 1...3 as ClosedRange<UInt64> {
            _ = try chat.receive(F.frame(.publicMessage, from: F.bob, content: "m", id: F.id(n)))
        }
        #expect(chat.unreadCount == 3)
        #expect(chat.activate() == [.unreadChanged(.publicRoom, count: 0)])
        #expect(chat.unreadCount == 0)
        #expect(chat.activate().isEmpty)
    }

    @Test func ownEchoIsShownOnce() throws {
        var chat = PublicChat(identity: F.alice)
        let (payload, _) = try chat.compose("echo me", at: F.t0)
        let events = try chat.receive(payload)
        #expect(events == [.duplicate(payload.messageId, .publicRoom)])
        #expect(chat.messages.count == 1)
        #expect(chat.unreadCount == 0)
    }

    @Test func peerDuplicateIsShownOnceAndCountedOnce() throws {
        var chat = PublicChat(identity: F.alice)
        let frame = F.frame(.publicMessage, from: F.bob, content: "twice")
        _ = try chat.receive(frame)
        #expect(try chat.receive(frame) == [.duplicate(frame.messageId, .publicRoom)])
        #expect(chat.messages.count == 1)
        #expect(chat.unreadCount == 1)
    }

    @Test func ownMessageFromAnotherSessionNeverCounts() throws {
        // Our own frame replayed by a peer after a restart (not in the log).
        var chat = PublicChat(identity: F.alice)
        let events = try chat.receive(F.frame(.publicMessage, from: F.alice, content: "from before"))
        #expect(events.count == 1)
        #expect(chat.unreadCount == 0)
        #expect(chat.messages.first?.isFromCurrentUser(F.alice) == true)
    }

    @Test(arguments: [
        (String(repeating: "a", count: 241), TextValidationError.tooLong(characters: 241, limit: 240)),
        (String(repeating: "한", count: 241), .tooLong(characters: 241, limit: 240)),
        ("", .empty),
        ("\n\u{3000}\t", .empty),
    ])
    func peerTextIsValidatedOnReceive(content: String, error: TextValidationError) throws {
        var chat = PublicChat(identity: F.alice)
        _ = try chat.receive(F.frame(.publicMessage, from: F.bob, content: "fine", id: F.id(1)))
        #expect(throws: ChatError.invalidText(error)) {
            try chat.receive(F.frame(.publicMessage, from: F.bob, content: content, id: F.id(2)))
        }
        #expect(chat.messages.map(\.content) == ["fine"])
        #expect(chat.unreadCount == 1)
    }

    @Test func refusedFrameIsNotRememberedAsSeen() throws {
        // The same id with valid text later (e.g. a fixed peer) is not a duplicate.
        var chat = PublicChat(identity: F.alice)
        #expect(throws: ChatError.self) {
            try chat.receive(F.frame(.publicMessage, from: F.bob, content: String(repeating: "a", count: 241)))
        }
        #expect(try chat.receive(F.frame(.publicMessage, from: F.bob, content: "ok")).count == 2)
    }

    @Test(arguments: PayloadType.known.filter { $0 != .publicMessage } + [.unknown("futureType")])
    func receiveRefusesOtherTypes(type: PayloadType) {
        var chat = PublicChat(identity: F.alice)
        #expect(throws: ChatError.unexpectedType(type)) {
            try chat.receive(F.frame(type, from: F.bob, content: "x"))
        }
        #expect(chat.messages.isEmpty)
    }

    @Test func roomKeepsTheNewest100() throws {
        var chat = PublicChat(identity: F.alice)
        for n in 0..<150 {
            _ = try chat.receive(F.frame(.publicMessage, from: F.bob, content: "n\(n)",
                                         id: F.id(UInt64(n)), at: F.t0 + Int64(n)))
        }
        #expect(chat.messages.count == 100)
        #expect(chat.messages.first?.content == "n50")
        #expect(chat.messages.last?.content == "n149")
    }

    @Test func addTakesValidatedMessagesWithTheSameRules() {
        var chat = PublicChat(identity: F.alice)
        let message = F.message(1)
        #expect(chat.add(message) == [.message(message), .unreadChanged(.publicRoom, count: 1)])
        #expect(chat.add(message) == [.duplicate(message.id, .publicRoom)])
        #expect(chat.add(F.message(2, from: F.alice)) == [.message(F.message(2, from: F.alice))])
    }

    @Test func identityChangeAppliesToLaterFrames() throws {
        var chat = PublicChat(identity: F.alice)
        chat.identity.nickname = "alicia"
        #expect(try chat.compose("hi", at: F.t0).payload.senderNickname == "alicia")
    }
}
