import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatCrypto

/// The transfer link's vector in docs/PROTOCOL.md ("File transfer"):
/// fixed keys to exact bytes, generated here so the document cannot drift,
/// and checked independently by scripts/conformance.py. The record
/// plaintexts are spelled as bytes (kind byte, u64 big-endian), as the
/// protocol defines them, not through the transport's own encoder.
@Suite struct FileLinkVectorTests {
    static let beginMarker = "<!-- lanchat-file-vectors:begin -->"
    static let endMarker = "<!-- lanchat-file-vectors:end -->"
    static let prologue = Array("lanchat file v1".utf8)

    static func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) } }

    static func vector() throws -> [String: Any] {
        let key = ProtocolVectorTests.key
        // The receiver dials (initiator); the sender answers (responder).
        let initStatic = try X25519KeyPair(privateKey: key(0x10)), respStatic = try X25519KeyPair(privateKey: key(0x20))
        let initEphemeral = try X25519KeyPair(privateKey: key(0x30)), respEphemeral = try X25519KeyPair(privateKey: key(0x40))
        let initIdentity = try IdentityKey(seed: key(0x50)), respIdentity = try IdentityKey(seed: key(0x60))
        let transferID = try #require(MessageID("01934c04-c00a-7a00-9b00-000000000010"))
        let (high, low) = transferID.halves
        let request = u64(high) + u64(low) + u64(3)  // resume from byte 3
        let content = Array("hello".utf8)
        var initiator = try NoiseHandshake(pattern: .XX, role: .initiator, prologue: prologue, staticKey: initStatic, psk: nil,
                                           ephemeralKey: initEphemeral)
        var responder = try NoiseHandshake(pattern: .XX, role: .responder, prologue: prologue, staticKey: respStatic, psk: nil,
                                           ephemeralKey: respEphemeral)
        let m1 = try initiator.writeMessage()
        _ = try responder.readMessage(m1)
        let m2 = try responder.writeMessage(identity: respIdentity, hello: [])
        _ = try initiator.readIdentityMessage(m2)
        let m3 = try initiator.writeMessage(identity: initIdentity, hello: request)
        let ofReceiver = try responder.readIdentityMessage(m3)
        #expect(ofReceiver.hello == request)
        var receiver = try initiator.split(), sender = try responder.split()
        let plaintexts: [(String, [UInt8])] = [
            ("responder", [0x01] + u64(3) + u64(UInt64(content.count))),  // start at 3 of 5
            ("responder", [0x02] + u64(3) + Array(content[3...])),         // data "lo" at 3
            ("responder", [0x03]),                                          // end
            ("initiator", [0x05]),                                          // verified
        ]
        var records: [[String: String]] = []
        for (from, plain) in plaintexts {
            let record = from == "initiator" ? try receiver.seal(plain) : try sender.seal(plain)
            #expect(try (from == "initiator" ? sender.open(record) : receiver.open(record)) == plain)
            records.append(["from": from, "plaintext": hexString(plain), "record": hexString(record)])
        }
        return [
            "protocol_name": NoisePattern.XX.protocolName, "prologue": hexString(prologue),
            "transfer_id": transferID.description, "offset": 3, "file": hexString(content),
            "file_sha256": hexString(SHA256.hash(content)),
            "init_static": hexString(initStatic.privateKey), "init_ephemeral": hexString(initEphemeral.privateKey),
            "init_identity_seed": hexString(key(0x50)), "init_request": hexString(request),
            "resp_static": hexString(respStatic.privateKey), "resp_ephemeral": hexString(respEphemeral.privateKey),
            "resp_identity_seed": hexString(key(0x60)),
            "messages": [m1, m2, m3].map(hexString), "handshake_hash": hexString(initiator.handshakeHash), "records": records,
        ]
    }

    static func generatedBlock() throws -> String {
        let data = try JSONSerialization.data(withJSONObject: try vector(), options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    @Test func protocolDocumentPublishesThisExactVector() throws {
        let text = try ProjectDocument.wireProtocol.text()
        let generated = try Self.generatedBlock()
        guard let begin = text.range(of: Self.beginMarker), let end = text.range(of: Self.endMarker) else {
            print("docs/PROTOCOL.md file vector should read:\n\(generated)")
            Issue.record("docs/PROTOCOL.md has no file vector block")
            return
        }
        let published = text[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("```") }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if published != generated { print("docs/PROTOCOL.md file vector should read:\n\(generated)") }
        #expect(published == generated)
    }
}
