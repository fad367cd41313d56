import ChatCore
import ChatWire
import Testing

@Suite struct SmokeTests {
    @Test func publicRoundTripThroughCodec() throws {
        let alice = NodeIdentity(number: NodeNumber(rawValue: 1)!, nickname: "alice")
        let bob = NodeIdentity(number: NodeNumber(rawValue: 2)!, nickname: "bob")
        var a = MessageRouter(identity: alice)
        var b = MessageRouter(identity: bob)
        let (payload, _) = try a.publicChat.compose("  hello  ", at: 1_732_147_200_000)
        let decoded = try P2PFrameCodec.decode(P2PFrameCodec.encode(payload).dropLast())
        #expect(decoded == payload)
        let result = b.receive(decoded, from: alice.number, at: 1_732_147_200_001)
        #expect(b.publicChat.messages.map(\.content) == ["hello"])
        #expect(result.events.contains(.unreadChanged(.publicRoom, count: 1)))
    }
}
