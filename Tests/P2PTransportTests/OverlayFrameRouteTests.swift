import ChatCore
import ChatOverlay
import ChatWire
@testable import P2PTransport
import Testing

/// Overlay frames take the overlay's parser, not the generic decoder, and
/// carry their common fields to the link's rules (sender, id, type) as the
/// generic decoder would have; a frame whose common fields break a frame's
/// rules is left to the generic path, which refuses it as before.
@Suite struct OverlayFrameRouteTests {
    static let header = OverlayFrameCodec.Header(messageId: MessageID("01934c04-c101-7a00-9b00-000000000001")!,
                                                 senderNumber: NodeNumber(rawValue: 77)!, senderNickname: "bob",
                                                 timestamp: 1_732_147_200_101)

    @Test func anIHaveCarriesTheFieldsTheGenericDecoderReads() throws {
        let bytes = OverlayFrameCodec.encode(.ihave([MessageID("01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f")!]), header: Self.header)
        let routed = try #require(P2PService.overlayFrame(bytes))
        let generic = try P2PFrameCodec.decode(bytes)
        #expect(routed.carrier.type == generic.type)
        #expect(routed.carrier.messageId == generic.messageId)
        #expect(routed.carrier.senderNumber == generic.senderNumber)
        #expect(routed.carrier.senderNickname == generic.senderNickname)
        #expect(routed.frame == .ihave([MessageID("01934c04-c001-7c3d-8e4f-5a6b7c8d9e0f")!]))
    }

    @Test func aFrameTheGenericRulesRefuseIsLeftToThem() {
        var old = Self.header
        old.timestamp = 631_152_000_000  // 1990: outside the years a frame may carry
        let bytes = OverlayFrameCodec.encode(.prune, header: old)
        #expect(P2PService.overlayFrame(bytes) == nil)
        #expect(throws: FrameError.self) { try P2PFrameCodec.decode(bytes) }
        let ping = P2PPayload(type: .ping, messageId: Self.header.messageId, senderNumber: Self.header.senderNumber,
                              senderNickname: "bob", timestamp: Self.header.timestamp)
        #expect(P2PService.overlayFrame(Array(P2PFrameCodec.encode(ping).dropLast())) == nil)
    }
}
