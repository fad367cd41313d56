import ChatCore
import TestSupport
import Testing

@Suite struct MessageRouterTests {
    typealias F = Fixtures

    /// Control and delivery types the node and transport own.
    static let controlTypes: [PayloadType] = [.hello, .ack, .leave, .historyRequest, .historyReply, .ping, .pong,
                                              .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone]

    /// received, rejected, unknownType.
    static func counts(_ router: MessageRouter) -> [Int] {
        [router.counters.received, router.counters.rejected, router.counters.unknownType]
    }

    @Test func everyKnownTypeIsRouted() {
        // Guards the lists below: a new type must be added to a test too.
        let covered: Set<PayloadType> = Set(Self.controlTypes + [.publicMessage, .directMessage, .dmRequest, .dmAccept, .dmDecline])
        #expect(covered == Set(PayloadType.known))
        #expect(PayloadType.known.count == 17)
    }

    @Test func publicMessageGoesToPublicChat() {
        var router = MessageRouter(identity: F.alice)
        let frame = F.frame(.publicMessage, from: F.bob, content: "hi all")
        let result = router.receive(frame, from: F.bob.number, at: F.t0)
        #expect(result.events.count == 2)
        #expect(result.events.last == .unreadChanged(.publicRoom, count: 1))
        #expect(result.replies.isEmpty)
        #expect(router.publicChat.messages.map(\.content) == ["hi all"])
        #expect(router.directChat.conversations.count == 0)
        #expect(Self.counts(router) == [1, 0, 0])
    }

    @Test func dmRequestGoesToDirectChat() throws {
        var router = MessageRouter(identity: F.alice)
        let frame = F.frame(.dmRequest, from: F.bob, to: F.alice, content: "psst")
        let result = router.receive(frame, from: F.bob.number, at: F.t0)
        #expect(result.events.first == .dmStateChanged(peer: F.bob.number, .incomingRequest))
        #expect(router.directChat.state(with: F.bob.number) == .incomingRequest)
        #expect(router.publicChat.messages.isEmpty)
        #expect(router.counters.rejected == 0)
    }

    @Test func directMessageDmAcceptAndDmDeclineGoToDirectChat() throws {
        var router = MessageRouter(identity: F.alice)
        _ = try router.directChat.compose("hi", to: F.bob.number, peerNickname: "bob", at: F.t0)
        let accept = router.receive(F.frame(.dmAccept, from: F.bob, to: F.alice, id: F.id(1)), from: F.bob.number, at: F.t0)
        #expect(accept.events == [.dmStateChanged(peer: F.bob.number, .accepted)])
        let message = router.receive(F.frame(.directMessage, from: F.bob, to: F.alice, content: "yo", id: F.id(2)),
                                   from: F.bob.number, at: F.t0)
        #expect(message.events.count == 2)
        let decline = router.receive(F.frame(.dmDecline, from: F.bob, to: F.alice, id: F.id(3)), from: F.bob.number, at: F.t0)
        #expect(decline.events == [.dmStateChanged(peer: F.bob.number, .declinedByPeer)])
        #expect(Self.counts(router) == [3, 0, 0])
    }

    @Test func crossingRequestRepliesOnTheSameLink() throws {
        var router = MessageRouter(identity: F.alice)
        _ = try router.directChat.compose("hi", to: F.bob.number, peerNickname: "bob", at: F.t0)
        let theirs = F.frame(.dmRequest, from: F.bob, to: F.alice, content: "hi too", id: F.id(5))
        let result = router.receive(theirs, from: F.bob.number, at: F.t0 + 10)
        #expect(result.replies.count == 1)
        let reply = try #require(result.replies.first)
        #expect(reply.type == .dmAccept)
        #expect(reply.senderNumber == F.alice.number)
        #expect(reply.targetNumber == F.bob.number)
        #expect(reply.refId == theirs.messageId)
        #expect(reply.timestamp == F.t0 + 10)
    }

    @Test(arguments: controlTypes)
    func controlTypesSurfaceAsControl(type: PayloadType) {
        var router = MessageRouter(identity: F.alice)
        let frame = F.frame(type, from: F.bob, to: type.isDirect ? F.alice : nil)
        let result = router.receive(frame, from: F.bob.number, at: F.t0)
        #expect(result.events == [.control(frame)])
        #expect(result.replies.isEmpty)
        #expect(router.publicChat.messages.isEmpty && router.directChat.conversations.count == 0)
        #expect(Self.counts(router) == [1, 0, 0])
    }

    @Test(arguments: ["futureType", "publicmessage", "", "hello2"])
    func unknownTypeIsCountedAndSkipped(name: String) {
        var router = MessageRouter(identity: F.alice)
        let type = PayloadType(name: name)
        #expect(type == .unknown(name))
        let result = router.receive(F.frame(type, from: F.bob, content: "?"), from: F.bob.number, at: F.t0)
        #expect(result.events == [.unknownType(from: F.bob.number, name: name)])
        #expect(Self.counts(router) == [1, 0, 1])
        _ = router.receive(F.frame(type, from: F.bob, content: "?", id: F.id(2)), from: F.bob.number, at: F.t0)
        #expect(router.counters.unknownType == 2)
        #expect(router.publicChat.messages.isEmpty)
    }

    @Test(arguments: PayloadType.known + [.unknown("futureType")])
    func spoofedSenderIsRejectedWhateverTheType(type: PayloadType) {
        var router = MessageRouter(identity: F.alice)
        // Carol's link carries a frame claiming to be from Bob.
        let frame = F.frame(type, from: F.bob, to: F.alice, content: "trust me")
        let result = router.receive(frame, from: F.carol.number, at: F.t0)
        #expect(result.events == [.rejected(from: F.carol.number, .spoofedSender(claimed: F.bob.number, link: F.carol.number))])
        #expect(result.replies.isEmpty)
        #expect(Self.counts(router) == [1, 1, 0])
        #expect(router.publicChat.messages.isEmpty)
        #expect(router.directChat.conversations.count == 0)
    }

    @Test func invalidTextIsRejectedAndCounted() {
        var router = MessageRouter(identity: F.alice)
        _ = router.receive(F.frame(.publicMessage, from: F.bob, content: "ok", id: F.id(1)), from: F.bob.number, at: F.t0)
        let long = F.frame(.publicMessage, from: F.bob, content: String(repeating: "ㅋ", count: 241), id: F.id(2))
        let result = router.receive(long, from: F.bob.number, at: F.t0)
        #expect(result.events == [.rejected(from: F.bob.number, .invalidText(.tooLong(characters: 241, limit: 240)))])
        #expect(router.publicChat.messages.count == 1)
        #expect(router.publicChat.unreadCount == 1)
        #expect(Self.counts(router) == [2, 1, 0])
    }

    @Test func dmRuleBreaksAreRejectedAndCounted() {
        var router = MessageRouter(identity: F.alice)
        router.directChat.restore(peer: F.bob.number, peerNickname: "bob", state: .declinedByMe)
        let cases: [(P2PPayload, ChatError)] = [
            (F.frame(.directMessage, from: F.bob, to: F.alice, content: "hi", id: F.id(1)), .dmNotAccepted(peer: F.bob.number)),
            (F.frame(.dmRequest, from: F.bob, to: F.carol, content: "hi", id: F.id(2)), .notForMe(target: F.carol.number)),
            (F.frame(.dmRequest, from: F.bob, content: "hi", id: F.id(3)), .notForMe(target: nil)),
        ]
        for (index, (frame, error)) in cases.enumerated() {
            let result = router.receive(frame, from: F.bob.number, at: F.t0)
            #expect(result.events == [.rejected(from: F.bob.number, error)])
            #expect(router.counters.rejected == index + 1)
        }
        #expect(router.directChat.conversations.keys.sorted() == [F.bob.number])
        #expect(router.directChat.state(with: F.bob.number) == .declinedByMe)
        #expect(router.directChat.conversation(with: F.bob.number)?.log.messages.isEmpty == true)
    }

    @Test func identityChangeReachesBothChats() throws {
        var router = MessageRouter(identity: F.alice)
        router.identity = NodeIdentity(number: F.alice.number, nickname: "alicia", stage: "mac")
        #expect(router.identity.nickname == "alicia")
        #expect(try router.publicChat.compose("a", at: F.t0).payload.senderNickname == "alicia")
        let dm = try router.directChat.compose("b", to: F.bob.number, peerNickname: "bob", at: F.t0)
        #expect(dm.payloads[0].senderNickname == "alicia" && dm.payloads[0].senderStage == "mac")
    }

    @Test func payloadTypeNamesRoundTrip() {
        for type in PayloadType.known {
            #expect(PayloadType(name: type.name) == type)
            #expect(type.description == type.name)
        }
        #expect(PayloadType.unknown("x").name == "x")
        #expect(PayloadType.known.filter(\.carriesChatText) == [.publicMessage, .directMessage, .dmRequest])
        #expect(PayloadType.known.filter(\.isDirect) == [.directMessage, .dmRequest, .dmAccept, .dmDecline, .ack,
                                                         .fileOffer, .fileAccept, .fileDecline, .fileCancel, .fileDone])
    }
}
