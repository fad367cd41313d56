import ChatCore
import Testing

/// Every `dmAccept` and `dmDecline` names the request it answers in `refId`
/// while the node still knows it (memory only), however late the answer
/// comes; receivers do not need it (docs/PROTOCOL.md 4.3).
/// (The pair and the clock are `DirectChatTests`' own.)
extension DirectChatTests {
    /// Alice asks Bob; returns her request frame, delivered to Bob.
    mutating func aliceAsks(_ text: String = "hi") throws -> P2PPayload {
        let request = try alice.compose(text, to: F.bob.number, peerNickname: "bob", at: tick())
        for frame in request.payloads { _ = try bob.receive(frame, at: tick()) }
        return try #require(request.payloads.last)
    }

    @Test mutating func acceptingLaterNamesTheRequest() throws {
        let request = try aliceAsks()
        #expect(bob.conversation(with: F.alice.number)?.lastRequestId == request.messageId)
        let answer = try bob.accept(F.alice.number, at: tick())
        let accept = try #require(answer.payload)
        #expect(accept.type == .dmAccept)
        #expect(accept.refId == request.messageId)
    }

    @Test mutating func decliningLaterNamesTheRequest() throws {
        let request = try aliceAsks()
        let answer = try bob.decline(F.alice.number, at: tick())
        let decline = try #require(answer.payload)
        #expect(decline.type == .dmDecline)
        #expect(decline.refId == request.messageId)
    }

    @Test mutating func replyingNamesTheRequestInTheAccept() throws {
        let request = try aliceAsks()
        let reply = try bob.compose("sure", to: F.alice.number, peerNickname: "alice", at: tick())
        #expect(reply.payloads.map(\.type) == [.dmAccept, .directMessage])
        #expect(reply.payloads[0].refId == request.messageId)
        #expect(reply.payloads[1].refId == nil)
    }

    @Test mutating func aRepeatedDeclineNamesTheDeclinedRequest() throws {
        let request = try aliceAsks()
        _ = try bob.decline(F.alice.number, at: tick())
        // Alice's outbox retries (she never got the decline): refused, and
        // the repeated decline names the request Bob declined.
        var retry = request
        retry.type = .directMessage
        retry.messageId = F.id(99, millis: clock)
        #expect(throws: ChatError.dmNotAccepted(peer: F.alice.number)) { try bob.receive(retry, at: tick()) }
        let repeated = bob.repeatDecline(to: F.alice.number, at: tick())
        let again = try #require(repeated)
        #expect(again.refId == request.messageId)
    }

    @Test mutating func closingAnAcceptedConversationNamesTheRequest() throws {
        let request = try aliceAsks()
        _ = try bob.accept(F.alice.number, at: tick())
        let answer = try bob.decline(F.alice.number, at: tick())
        let close = try #require(answer.payload)
        #expect(close.refId == request.messageId)
    }

    @Test mutating func aMessageTakenAsARequestIsWhatTheAnswerNames() throws {
        // Bob lost his state (an in-memory restart): Alice's retried DM asks like a request.
        let dm = F.frame(.directMessage, from: F.alice, to: F.bob, content: "still there?", id: F.id(5), at: tick())
        _ = try bob.receive(dm, at: tick())
        #expect(bob.state(with: F.alice.number) == .incomingRequest)
        let answer = try bob.accept(F.alice.number, at: tick())
        #expect(answer.payload?.refId == dm.messageId)
    }

    @Test mutating func theLatestRequestIsNamed() throws {
        _ = try aliceAsks("first")
        // Alice restarts without her state and asks again under a new id.
        alice = DirectChat(identity: F.alice)
        let second = try aliceAsks("second")
        let answer = try bob.accept(F.alice.number, at: tick())
        #expect(answer.payload?.refId == second.messageId)
    }

    @Test mutating func messagesInAnAcceptedConversationDoNotMoveIt() throws {
        let request = try aliceAsks()
        let reply = try bob.compose("sure", to: F.alice.number, peerNickname: "alice", at: tick())
        for frame in reply.payloads { _ = try alice.receive(frame, at: tick()) }
        let more = try alice.compose("great", to: F.bob.number, peerNickname: "bob", at: tick())
        for frame in more.payloads { _ = try bob.receive(frame, at: tick()) }
        #expect(bob.conversation(with: F.alice.number)?.lastRequestId == request.messageId)
    }

    @Test mutating func afterARestartTheAnswerGoesWithoutRefId() throws {
        _ = try aliceAsks()
        // Restored from the store: the request state survives, its id does not.
        var restarted = DirectChat(identity: F.bob)
        restarted.restore(peer: F.alice.number, peerNickname: "alice", state: .incomingRequest)
        let answer = try restarted.accept(F.alice.number, at: tick())
        let accept = try #require(answer.payload)
        #expect(accept.type == .dmAccept && accept.refId == nil)
        restarted.restore(peer: F.alice.number, peerNickname: "alice", state: .declinedByMe)
        let repeated = restarted.repeatDecline(to: F.alice.number, at: tick())
        #expect(repeated?.type == .dmDecline && repeated?.refId == nil)
    }

    @Test(arguments: [PayloadType.dmAccept, .dmDecline])
    mutating func answersWithoutRefIdAreTaken(type: PayloadType) throws {
        _ = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        let answer = F.frame(type, from: F.bob, to: F.alice, id: F.id(7), at: tick())
        #expect(answer.refId == nil)
        _ = try alice.receive(answer, at: tick())
        #expect(alice.state(with: F.bob.number) == (type == .dmAccept ? .accepted : .declinedByPeer))
    }
}
