import ChatCore
import ChatWire
@testable import ChatCrypto
import Foundation
import Testing
import TestSupport

/// The Ed25519 authenticator: its own signatures verify, and every kind of
/// bad signature gets its own verdict; docs/PROTOCOL.md's signed example is the
/// one this code (and an independent Python signer) produces.
@Suite struct MessageAuthenticatorTests {
    /// RFC 8032 section 7.1, TEST 1 secret key.
    static let seed = hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")

    static func message(from number: NodeNumber) -> P2PPayload {
        P2PPayload(
            type: .publicMessage, messageId: MessageID("01934c04-c009-7a00-9b00-000000000008")!,
            senderNumber: number, senderNickname: "alice", senderStage: "ios",
            content: "hi 👋", timestamp: 1_732_147_200_000)
    }

    @Test func signedExampleMatchesTheDocumentedVector() throws {
        let key = try IdentityKey(seed: Self.seed)
        #expect(key.nodeNumber.rawValue == 4_393_289_295_727_693)
        var payload = Self.message(from: key.nodeNumber)
        let authenticator = Ed25519MessageAuthenticator(key: key)
        authenticator.sign(&payload)
        // Ed25519 is deterministic; computed independently with Python's
        // `cryptography` package.
        #expect(payload.authorKey == "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
        #expect(payload.signature == "fOVugBxOYvH/JjXW8zZdYFYot/7f9h8T9qN2CaLCVN74OaQW8p87y2li/X3VdMWg8nAkKjwB2wcKBVir0rzqAg==")
        #expect(authenticator.verify(payload) == .valid)

        // The same frame is in docs/PROTOCOL.md, "Signed public messages".
        let text = try ProjectDocument.wireProtocol.text()
        let section = try #require(text.components(separatedBy: "## Signed public messages").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let line = block.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
        let documented = try P2PFrameCodec.decode(Array(line.utf8))
        #expect(documented == payload)
        #expect(authenticator.verify(documented) == .valid)
    }

    @Test func everyFailureHasItsVerdict() throws {
        let key = try IdentityKey.generate()
        let other = try IdentityKey.generate()
        let authenticator = Ed25519MessageAuthenticator(key: key)
        var signed = Self.message(from: key.nodeNumber)
        authenticator.sign(&signed)
        #expect(authenticator.verify(signed) == .valid)
        // Any verifier will do: it holds no secret.
        #expect(Ed25519MessageAuthenticator(key: other).verify(signed) == .valid)

        var unsigned = signed
        unsigned.signature = nil
        #expect(authenticator.verify(unsigned) == .unsigned)
        var keyless = signed
        keyless.authorKey = nil
        #expect(authenticator.verify(keyless) == .unsigned)

        for (signature, authorKey) in [("not base64!", signed.authorKey!), (signed.signature!, "not base64!"),
                                       (String(signed.signature!.dropLast(4)), signed.authorKey!),
                                       (signed.signature!, Data(count: 31).base64EncodedString())] {
            var broken = signed
            broken.signature = signature
            broken.authorKey = authorKey
            #expect(authenticator.verify(broken) == .malformed, "\(signature) \(authorKey)")
        }

        var claimed = signed
        claimed.senderNumber = other.nodeNumber  // key does not derive it
        #expect(authenticator.verify(claimed) == .wrongAuthorKey)

        var tampered = signed
        tampered.content = "hi 👋🏽"
        #expect(authenticator.verify(tampered) == .badSignature)
        var flipped = signed
        var bytes = Array(Data(base64Encoded: signed.signature!)!)
        bytes[10] ^= 1
        flipped.signature = Data(bytes).base64EncodedString()
        #expect(authenticator.verify(flipped) == .badSignature)
    }
}
