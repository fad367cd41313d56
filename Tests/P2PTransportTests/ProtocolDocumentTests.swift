import ChatCore
import ChatWire
import ChatCrypto
import Foundation
@testable import P2PTransport
import Testing
import TestSupport

/// docs/PROTOCOL.md's examples are real: each one decodes as what it claims,
/// frames carry this build's protocol version, every known frame type has
/// one, and every public message in them is signed by the key that derives
/// its sender number.
@Suite struct ProtocolDocumentTests {
    private func examples() throws -> [String] {
        let text = try ProjectDocument.wireProtocol.text()
        // ```json blocks; wrapped lines are joined (the wrap is for reading only).
        return text.components(separatedBy: "```json\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first!.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        }
    }

    @Test func everyExampleDecodes() throws {
        let blocks = try examples()
        let datagrams = blocks.filter { $0.contains(#""proto":"lanchat""#) }
        var kinds: [DiscoveryBeacon.Kind] = []
        for datagram in datagrams {
            let beacon = try DiscoveryBeacon.decode(Array(datagram.utf8))
            #expect(beacon.version == DiscoveryBeacon.formatVersion, "datagrams keep their own format version")
            kinds.append(beacon.kind)
        }
        #expect(kinds == [.beacon, .leave])
        var types: Set<String> = []
        for frame in blocks where !frame.contains(#""proto":"lanchat""#) {
            let payload = try P2PFrameCodec.decode(Array(frame.utf8))
            #expect(Array(frame.utf8).count <= P2PFrameCodec.maxFrameLength)
            #expect(payload.version == P2PPayload.protocolVersion, "\(payload.type)")
            if payload.type.isDirect { #expect(payload.targetNumber != nil, "\(payload.type)") }
            types.insert(payload.type.name)
        }
        #expect(types == Set(PayloadType.known.map(\.name)))
    }

    @Test func everyPublicMessageExampleIsSigned() throws {
        let verifier = Ed25519MessageAuthenticator(key: try IdentityKey(seed: Array(repeating: 7, count: 32)))
        var checked = 0
        for frame in try examples() where !frame.contains(#""proto":"lanchat""#) {
            let payload = try P2PFrameCodec.decode(Array(frame.utf8))
            for message in [payload] + (payload.messages ?? []) where message.type == .publicMessage {
                #expect(verifier.verify(message) == .valid, "\(message.messageId)")
                checked += 1
            }
        }
        #expect(checked >= 3, "4.3's example, the historyReply entry, and the signed example")
    }

    @Test func answersNameWhatTheyAnswer() throws {
        let frames = try examples().filter { !$0.contains(#""proto":"lanchat""#) }.map { try P2PFrameCodec.decode(Array($0.utf8)) }
        let ids = Set(frames.map(\.messageId))
        for frame in frames where [.ack, .pong, .historyReply, .dmAccept, .dmDecline].contains(frame.type) {
            let refId = try #require(frame.refId, "\(frame.type)")
            #expect(ids.contains(refId), "\(frame.type) answers an example frame")
        }
        let reply = try #require(frames.first { $0.type == .historyReply })
        let request = try #require(frames.first { $0.messageId == reply.refId })
        #expect(reply.targetNumber == request.senderNumber, "a historyReply names its asker")
    }
}
