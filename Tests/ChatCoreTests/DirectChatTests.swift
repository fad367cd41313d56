import ChatCore
import TestSupport
import Testing

/// DM flows between two (or three) `DirectChat`s, frames handed across by
/// hand, in the order a link would carry them.
@Suite struct DirectChatTests {
    typealias F = Fixtures

    var alice = DirectChat(identity: F.alice)
    var bob = DirectChat(identity: F.bob)
    var clock = F.t0

    mutating func tick() -> Int64 {
        clock += 1
        return clock
    }

    /// Delivers `payloads` to `receiver`; returns all events and any replies.
    static func deliver(_ payloads: [P2PPayload], to receiver: inout DirectChat, at now: Int64) throws
        -> (events: [ChatEvent], replies: [P2PPayload])
    {
        var events: [ChatEvent] = []
        var replies: [P2PPayload] = []
        for payload in payloads {
            let outcome = try receiver.receive(payload, at: now)
            events += outcome.events
            replies += outcome.replies
        }
        return (events, replies)
    }

    @Test mutating func requestAcceptThenMessagesBothWays() throws {
        // Alice's first DM is a request.
        let first = try alice.compose("  hi bob  ", to: F.bob.number, peerNickname: "bob", at: tick())
        #expect(first.payloads.map(\.type) == [.dmRequest])
        #expect(first.payloads[0].content == "hi bob")
        #expect(first.events == [.dmStateChanged(peer: F.bob.number, .outgoingRequest)])
        #expect(alice.state(with: F.bob.number) == .outgoingRequest)
        #expect(alice.conversation(with: F.bob.number)?.log.messages.map(\.content) == ["hi bob"])
        #expect(alice.conversation(with: F.bob.number)?.log.unreadCount == 0)

        // A second DM before Bob answers is refused and changes nothing.
        #expect(throws: ChatError.awaitingAcceptance(peer: F.bob.number)) {
            try alice.compose("hello?", to: F.bob.number, peerNickname: "bob", at: tick())
        }
        #expect(alice.conversation(with: F.bob.number)?.log.messages.count == 1)

        // Bob sees the request.
        let request = try Self.deliver(first.payloads, to: &bob, at: tick())
        let requestMessage = try Message(from: first.payloads[0], localNumber: F.bob.number)
        #expect(requestMessage.room == .direct(F.alice.number))
        #expect(request.events == [
            .dmStateChanged(peer: F.alice.number, .incomingRequest),
            .dmRequested(peer: F.alice.number, nickname: "alice", message: requestMessage),
            .message(requestMessage),
            .unreadChanged(.direct(F.alice.number), count: 1),
        ])
        #expect(request.replies.isEmpty)
        #expect(bob.conversation(with: F.alice.number)?.peerNickname == "alice")

        // Bob accepts.
        let accept = try bob.accept(F.alice.number, at: tick())
        let acceptFrame = try #require(accept.payload)
        #expect(acceptFrame.type == .dmAccept)
        #expect(acceptFrame.targetNumber == F.alice.number)
        #expect(acceptFrame.senderNumber == F.bob.number)
        #expect(accept.events == [.dmStateChanged(peer: F.alice.number, .accepted)])
        // Accepting again is harmless and sends nothing.
        let again = try bob.accept(F.alice.number, at: tick())
        #expect(again.payload == nil && again.events.isEmpty)

        let accepted = try Self.deliver([acceptFrame], to: &alice, at: tick())
        #expect(accepted.events == [.dmStateChanged(peer: F.bob.number, .accepted)])
        #expect(alice.state(with: F.bob.number) == .accepted)

        // Messages both ways are plain directMessages now.
        let fromAlice = try alice.compose("great", to: F.bob.number, peerNickname: "bob", at: tick())
        #expect(fromAlice.payloads.map(\.type) == [.directMessage])
        #expect(fromAlice.events.isEmpty)
        let atBob = try Self.deliver(fromAlice.payloads, to: &bob, at: tick())
        #expect(atBob.events.count == 2)  // message + unread 2
        #expect(atBob.events.last == .unreadChanged(.direct(F.alice.number), count: 2))

        let fromBob = try bob.compose("you too", to: F.alice.number, peerNickname: "alice", at: tick())
        #expect(fromBob.payloads.map(\.type) == [.directMessage])
        let atAlice = try Self.deliver(fromBob.payloads, to: &alice, at: tick())
        #expect(atAlice.events.last == .unreadChanged(.direct(F.bob.number), count: 1))

        #expect(alice.conversation(with: F.bob.number)?.log.messages.map(\.content) == ["hi bob", "great", "you too"])
        #expect(bob.conversation(with: F.alice.number)?.log.messages.map(\.content) == ["hi bob", "great", "you too"])
    }

    @Test mutating func declineRefusesTheSenderAndDropsFurtherDMs() throws {
        let first = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        _ = try Self.deliver(first.payloads, to: &bob, at: tick())
        let decline = try bob.decline(F.alice.number, at: tick())
        let declineFrame = try #require(decline.payload)
        #expect(declineFrame.type == .dmDecline)
        #expect(declineFrame.targetNumber == F.alice.number)
        #expect(decline.events == [.dmStateChanged(peer: F.alice.number, .declinedByMe)])

        let declined = try Self.deliver([declineFrame], to: &alice, at: tick())
        #expect(declined.events == [.dmStateChanged(peer: F.bob.number, .declinedByPeer)])

        // The sender is refused locally...
        #expect(throws: ChatError.declinedByPeer(peer: F.bob.number)) {
            try alice.compose("please?", to: F.bob.number, peerNickname: "bob", at: tick())
        }
        // ...and a sender who ignores that is dropped by the decliner, with
        // nothing added and no unread change.
        let unreadBefore = bob.conversation(with: F.alice.number)?.log.unreadCount
        let pushy = P2PPayload(
            type: .directMessage, messageId: F.id(77, millis: clock), senderNumber: F.alice.number,
            senderNickname: "alice", content: "please?", timestamp: clock, targetNumber: F.bob.number)
        #expect(throws: ChatError.dmNotAccepted(peer: F.alice.number)) { try bob.receive(pushy, at: tick()) }
        var askAgain = pushy
        askAgain.type = .dmRequest
        askAgain.messageId = F.id(78, millis: clock)
        #expect(throws: ChatError.dmNotAccepted(peer: F.alice.number)) { try bob.receive(askAgain, at: tick()) }
        #expect(bob.conversation(with: F.alice.number)?.log.messages.map(\.content) == ["hi"])
        #expect(bob.conversation(with: F.alice.number)?.log.unreadCount == unreadBefore)
        #expect(bob.state(with: F.alice.number) == .declinedByMe)
    }

    @Test mutating func theDeclinedPeerCanBeAskedByTheDecliner() throws {
        let first = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        _ = try Self.deliver(first.payloads, to: &bob, at: tick())
        _ = try Self.deliver([try #require(bob.decline(F.alice.number, at: tick()).payload)], to: &alice, at: tick())
        // Bob changes his mind: his DM is a fresh request, which Alice sees.
        let ask = try bob.compose("sorry, hi", to: F.alice.number, peerNickname: "alice", at: tick())
        #expect(ask.payloads.map(\.type) == [.dmRequest])
        let atAlice = try Self.deliver(ask.payloads, to: &alice, at: tick())
        #expect(atAlice.events.first == .dmStateChanged(peer: F.bob.number, .incomingRequest))
        #expect(alice.state(with: F.bob.number) == .incomingRequest)
    }

    @Test mutating func crossingRequestsBecomeAccepted() throws {
        let fromAlice = try alice.compose("hi bob", to: F.bob.number, peerNickname: "bob", at: tick())
        let fromBob = try bob.compose("hi alice", to: F.alice.number, peerNickname: "alice", at: tick())
        let atBob = try Self.deliver(fromAlice.payloads, to: &bob, at: tick())
        let atAlice = try Self.deliver(fromBob.payloads, to: &alice, at: tick())
        #expect(alice.state(with: F.bob.number) == .accepted)
        #expect(bob.state(with: F.alice.number) == .accepted)
        // Each delivers the other's text (no "request" prompt) and answers dmAccept.
        #expect(!atBob.events.contains { if case .dmRequested = $0 { true } else { false } })
        #expect(atBob.events.contains(.dmStateChanged(peer: F.alice.number, .accepted)))
        #expect(atBob.replies.map(\.type) == [.dmAccept])
        #expect(atBob.replies[0].targetNumber == F.alice.number)
        #expect(atBob.replies[0].refId == fromAlice.payloads[0].messageId)
        #expect(atAlice.replies.map(\.type) == [.dmAccept])
        // The accepts cross too and change nothing more.
        let late = try Self.deliver(atBob.replies, to: &alice, at: tick())
        #expect(late.events.isEmpty && late.replies.isEmpty)
        _ = try Self.deliver(atAlice.replies, to: &bob, at: tick())
        #expect(alice.conversation(with: F.bob.number)?.log.messages.map(\.content) == ["hi bob", "hi alice"])
        #expect(bob.conversation(with: F.alice.number)?.log.messages.map(\.content) == ["hi bob", "hi alice"])
    }

    @Test mutating func replyingToARequestAccepts() throws {
        let request = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        _ = try Self.deliver(request.payloads, to: &bob, at: tick())
        let reply = try bob.compose("hello!", to: F.alice.number, peerNickname: "alice", at: tick())
        #expect(reply.payloads.map(\.type) == [.dmAccept, .directMessage])
        #expect(reply.payloads.allSatisfy { $0.targetNumber == F.alice.number })
        #expect(reply.payloads[0].messageId < reply.payloads[1].messageId)
        #expect(reply.events == [.dmStateChanged(peer: F.alice.number, .accepted)])
        let atAlice = try Self.deliver(reply.payloads, to: &alice, at: tick())
        #expect(alice.state(with: F.bob.number) == .accepted)
        #expect(atAlice.events.first == .dmStateChanged(peer: F.bob.number, .accepted))
        #expect(alice.conversation(with: F.bob.number)?.log.messages.map(\.content) == ["hi", "hello!"])
    }

    @Test mutating func aReplyWhoseAcceptWasLostStillAccepts() throws {
        let request = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        _ = try Self.deliver(request.payloads, to: &bob, at: tick())
        let reply = try bob.compose("hello!", to: F.alice.number, peerNickname: "alice", at: tick())
        let atAlice = try Self.deliver([reply.payloads[1]], to: &alice, at: tick())
        #expect(atAlice.events.first == .dmStateChanged(peer: F.bob.number, .accepted))
        #expect(alice.state(with: F.bob.number) == .accepted)
    }

    @Test mutating func notAddressedToMe() throws {
        let request = try alice.compose("hi", to: F.carol.number, peerNickname: "carol", at: tick())
        #expect(throws: ChatError.notForMe(target: F.carol.number)) { try bob.receive(request.payloads[0], at: tick()) }
        var untargeted = request.payloads[0]
        untargeted.targetNumber = nil
        #expect(throws: ChatError.notForMe(target: nil)) { try bob.receive(untargeted, at: tick()) }
        #expect(bob.conversations.count == 0)
    }

    @Test mutating func dmToSelfIsRefused() throws {
        #expect(throws: ChatError.cannotMessageSelf) {
            try alice.compose("me", to: F.alice.number, peerNickname: "alice", at: tick())
        }
        let loop = P2PPayload(type: .dmRequest, messageId: F.id(1), senderNumber: F.alice.number, senderNickname: "alice",
                              content: "me", timestamp: F.t0, targetNumber: F.alice.number)
        #expect(throws: ChatError.cannotMessageSelf) { try alice.receive(loop, at: tick()) }
        #expect(alice.conversations.count == 0)
    }

    @Test(arguments: [
        (String(repeating: "가", count: 241), TextValidationError.tooLong(characters: 241, limit: 240)),
        (" \n ", .empty),
    ])
    func textRuleOnSend(text: String, error: TextValidationError) {
        var chat = DirectChat(identity: F.alice)
        #expect(throws: ChatError.invalidText(error)) {
            try chat.compose(text, to: F.bob.number, peerNickname: "bob", at: F.t0)
        }
        #expect(chat.state(with: F.bob.number) == .none)
        #expect(chat.conversations.count == 0)
    }

    @Test(arguments: [PayloadType.dmRequest, .directMessage])
    func textRuleOnReceiveChangesNothing(type: PayloadType) throws {
        var chat = DirectChat(identity: F.bob)
        chat.restore(peer: F.alice.number, peerNickname: "alice", state: type == .dmRequest ? .none : .accepted)
        let before = chat.state(with: F.alice.number)
        let frame = P2PPayload(type: type, messageId: F.id(1), senderNumber: F.alice.number, senderNickname: "alice",
                               content: String(repeating: "a", count: 241), timestamp: F.t0, targetNumber: F.bob.number)
        #expect(throws: ChatError.invalidText(.tooLong(characters: 241, limit: 240))) { try chat.receive(frame, at: F.t0) }
        #expect(chat.state(with: F.alice.number) == before)
        #expect(chat.conversation(with: F.alice.number)?.log.messages.isEmpty ?? true)
        #expect(chat.conversation(with: F.alice.number)?.log.unreadCount ?? 0 == 0)
    }

    @Test mutating func unreadIsPerConversation() throws {
        var carol = DirectChat(identity: F.carol)
        for (sender, text) in [(0, "a1"), (1, "c1"), (0, "a2")] {
            if sender == 0 {
                let out = try alice.compose(text, to: F.bob.number, peerNickname: "bob", at: tick())
                _ = try Self.deliver(out.payloads, to: &bob, at: tick())
                if alice.state(with: F.bob.number) == .outgoingRequest {
                    _ = try Self.deliver([try #require(bob.accept(F.alice.number, at: tick()).payload)], to: &alice, at: tick())
                }
            } else {
                let out = try carol.compose(text, to: F.bob.number, peerNickname: "bob", at: tick())
                _ = try Self.deliver(out.payloads, to: &bob, at: tick())
            }
        }
        #expect(bob.conversation(with: F.alice.number)?.log.unreadCount == 2)
        #expect(bob.conversation(with: F.carol.number)?.log.unreadCount == 1)

        #expect(bob.activate(F.alice.number) == [.unreadChanged(.direct(F.alice.number), count: 0)])
        #expect(bob.activate(F.alice.number).isEmpty)
        #expect(bob.conversation(with: F.alice.number)?.log.unreadCount == 0)
        #expect(bob.conversation(with: F.carol.number)?.log.unreadCount == 1)

        // While active, Alice's messages do not count; after, they do.
        let live = try alice.compose("live", to: F.bob.number, peerNickname: "bob", at: tick())
        #expect(try Self.deliver(live.payloads, to: &bob, at: tick()).events.count == 1)
        bob.deactivate(F.alice.number)
        let later = try alice.compose("later", to: F.bob.number, peerNickname: "bob", at: tick())
        #expect(try Self.deliver(later.payloads, to: &bob, at: tick()).events.last
                == .unreadChanged(.direct(F.alice.number), count: 1))
        #expect(bob.activate(F.carol.number) == [.unreadChanged(.direct(F.carol.number), count: 0)])
        #expect(bob.activate(Fixtures.node(999)).isEmpty, "no conversation, nothing to clear")
    }

    @Test mutating func replayedDMIsADuplicate() throws {
        let request = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        _ = try Self.deliver(request.payloads, to: &bob, at: tick())
        let replay = try bob.receive(request.payloads[0], at: tick())
        #expect(replay.events == [.duplicate(request.payloads[0].messageId, .direct(F.alice.number))])
        #expect(replay.replies.isEmpty)
        #expect(bob.conversation(with: F.alice.number)?.log.unreadCount == 1)
    }

    @Test mutating func everyFrameCarriesItsTarget() throws {
        let request = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        _ = try Self.deliver(request.payloads, to: &bob, at: tick())
        let reply = try bob.compose("yo", to: F.alice.number, peerNickname: "alice", at: tick())
        _ = try Self.deliver(reply.payloads, to: &alice, at: tick())
        let close = try #require(alice.decline(F.bob.number, at: tick()).payload)
        for frame in request.payloads + reply.payloads + [close] {
            #expect(frame.targetNumber != nil)
            #expect(frame.type.isDirect)
            #expect(frame.targetNumber != frame.senderNumber)
        }
        #expect(close.type == .dmDecline && close.targetNumber == F.bob.number)
    }

    @Test mutating func answeringWithoutARequestFails() throws {
        #expect(throws: ChatError.noPendingRequest(peer: F.bob.number)) { try alice.accept(F.bob.number, at: tick()) }
        #expect(throws: ChatError.noPendingRequest(peer: F.bob.number)) { try alice.decline(F.bob.number, at: tick()) }
        _ = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        #expect(throws: ChatError.noPendingRequest(peer: F.bob.number)) { try alice.accept(F.bob.number, at: tick()) }
    }

    @Test func receiveRefusesNonDMTypes() {
        var chat = DirectChat(identity: F.bob)
        for type in [PayloadType.publicMessage, .ack, .hello, .ping, .unknown("x")] {
            #expect(throws: ChatError.unexpectedType(type)) {
                try chat.receive(F.frame(type, from: F.alice, to: F.bob, content: "x"), at: F.t0)
            }
        }
    }

    @Test func addAndRestoreDoNotTouchTheRequestFlow() {
        var chat = DirectChat(identity: F.bob)
        let message = Message(id: F.id(1), room: .direct(F.alice.number), senderNumber: F.alice.number,
                              senderNickname: "alice", content: "stored", timestamp: F.t0)
        #expect(chat.add(message, peerNickname: "alice") == [.message(message), .unreadChanged(.direct(F.alice.number), count: 1)])
        #expect(chat.add(message, peerNickname: "alice") == [.duplicate(message.id, .direct(F.alice.number))])
        #expect(chat.state(with: F.alice.number) == .none)
        #expect(chat.add(F.message(2), peerNickname: "bob").isEmpty, "a public message is not a DM")
        chat.restore(peer: F.alice.number, peerNickname: "alice", state: .accepted)
        #expect(chat.state(with: F.alice.number) == .accepted)
        #expect(chat.conversation(with: F.alice.number)?.log.messages.count == 1)
    }

    @Test(arguments: [PayloadType.dmAccept, .dmDecline])
    func staleAnswerFromAStrangerLeavesNoTrace(type: PayloadType) throws {
        var chat = DirectChat(identity: F.alice)
        let outcome = try chat.receive(F.frame(type, from: F.carol, to: F.alice, refId: F.id(9)), at: F.t0)
        #expect(outcome.events.isEmpty && outcome.replies.isEmpty)
        #expect(chat.conversations.count == 0, "no conversation appears for a peer we never talked to")
        #expect(chat.state(with: F.carol.number) == .none)
    }

    @Test mutating func nicknameFollowsThePeersFrames() throws {
        let request = try alice.compose("hi", to: F.bob.number, peerNickname: "bob", at: tick())
        var renamed = request.payloads[0]
        renamed.senderNickname = "alicia"
        _ = try bob.receive(renamed, at: tick())
        #expect(bob.conversation(with: F.alice.number)?.peerNickname == "alicia")
    }
}

@Suite struct DirectChatRepeatDeclineTests {
    @Test func onlyAPeerIDeclinedHearsItAgain() throws {
        let me = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "me")
        let peer = NodeNumber(rawValue: 2)!
        var chat = DirectChat(identity: me)
        let stranger = chat.repeatDecline(to: peer, at: 1_732_147_200_000)
        #expect(stranger == nil)
        chat.restore(peer: peer, peerNickname: "p", state: .accepted)
        let friend = chat.repeatDecline(to: peer, at: 1_732_147_200_000)
        #expect(friend == nil)
        chat.restore(peer: peer, peerNickname: "p", state: .declinedByMe)
        let declined = chat.repeatDecline(to: peer, at: 1_732_147_200_000)
        let frame = try #require(declined)
        #expect(frame.type == .dmDecline)
        #expect(frame.targetNumber == peer)
        #expect(chat.state(with: peer) == .declinedByMe)
    }
}
