import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatCrypto

/// Envelopes sealed to one recipient (Noise X): only the recipient opens
/// one, it names its sender only when the sender's signature proves it,
/// and any change to a byte is refused. The vector in docs/PROTOCOL.md
/// ("Sealed envelopes") is generated here and checked by conformance.py.
@Suite struct SealedEnvelopeTests {
    static let beginMarker = "<!-- lanchat-sealed-vector:begin -->"
    static let endMarker = "<!-- lanchat-sealed-vector:end -->"

    static func credential(_ seed: UInt8, static staticSeed: UInt8) throws -> HandshakeIdentity.Credential {
        try HandshakeIdentity.Credential(identity: IdentityKey(seed: ProtocolVectorTests.key(seed)),
                                         staticKey: X25519KeyPair(privateKey: ProtocolVectorTests.key(staticSeed)))
    }

    @Test func theRecipientOpensItAndLearnsTheSender() throws {
        let alice = try HandshakeIdentity.Credential(identity: .generate())
        let bob = try HandshakeIdentity.Credential(identity: .generate())
        let text = Array("meet at the printer".utf8)
        let envelope = try SealedEnvelope.seal(text, from: alice, to: SealedEnvelope.Recipient(card: bob.card))
        #expect(envelope.count == text.count + SealedEnvelope.overhead)
        let opened = try SealedEnvelope.open(envelope, as: bob)
        #expect(opened.sender == alice.identity)
        #expect(opened.plaintext == text)
        // Fresh ephemeral each time: the same text seals to other bytes.
        #expect(try SealedEnvelope.seal(text, from: alice, to: SealedEnvelope.Recipient(card: bob.card)) != envelope)
    }

    @Test func emptyAndLongestPlaintextsSeal() throws {
        let alice = try HandshakeIdentity.Credential(identity: .generate())
        let bob = try HandshakeIdentity.Credential(identity: .generate())
        let recipient = try SealedEnvelope.Recipient(card: bob.card)
        #expect(try SealedEnvelope.open(SealedEnvelope.seal([], from: alice, to: recipient), as: bob).plaintext == [])
        let longest = [UInt8](repeating: 0x61, count: SealedEnvelope.maxPlaintextLength)
        let envelope = try SealedEnvelope.seal(longest, from: alice, to: recipient)
        #expect(envelope.count == NoiseHandshake.maxMessageLength)
        #expect(try SealedEnvelope.open(envelope, as: bob).plaintext == longest)
        #expect(throws: CryptoError.messageTooLarge(limit: SealedEnvelope.maxPlaintextLength, got: longest.count + 1)) {
            try SealedEnvelope.seal(longest + [0], from: alice, to: recipient)
        }
    }

    @Test func nobodyElseOpensIt() throws {
        let alice = try HandshakeIdentity.Credential(identity: .generate())
        let bobKey = try IdentityKey.generate()
        let bob = try HandshakeIdentity.Credential(identity: bobKey)
        let carol = try HandshakeIdentity.Credential(identity: .generate())
        let envelope = try SealedEnvelope.seal(Array("for bob".utf8), from: alice, to: SealedEnvelope.Recipient(card: bob.card))
        #expect(throws: CryptoError.authenticationFailed) { try SealedEnvelope.open(envelope, as: carol) }
        #expect(throws: CryptoError.authenticationFailed) { try SealedEnvelope.open(envelope, as: alice) }
        // Bob after a restart: same identity, new static key.
        let bobRestarted = try HandshakeIdentity.Credential(identity: bobKey)
        #expect(throws: CryptoError.authenticationFailed) { try SealedEnvelope.open(envelope, as: bobRestarted) }
    }

    @Test func everyChangedByteIsRefused() throws {
        let alice = try HandshakeIdentity.Credential(identity: .generate())
        let bob = try HandshakeIdentity.Credential(identity: .generate())
        let envelope = try SealedEnvelope.seal(Array("hi".utf8), from: alice, to: SealedEnvelope.Recipient(card: bob.card))
        for index in envelope.indices {
            var changed = envelope
            changed[index] ^= 0x01
            #expect(throws: (any Error).self, "byte \(index)") { try SealedEnvelope.open(changed, as: bob) }
        }
        #expect(throws: (any Error).self) { try SealedEnvelope.open(Array(envelope.dropLast()), as: bob) }
        #expect(throws: (any Error).self) { try SealedEnvelope.open(Array(envelope.prefix(40)), as: bob) }
        #expect(throws: (any Error).self) { try SealedEnvelope.open([], as: bob) }
    }

    /// Mallory copies Alice's identity and signature from her card, but the
    /// signature covers Alice's static key, not the one Mallory seals with.
    @Test func aSenderCannotClaimSomeoneElsesIdentity() throws {
        let alice = try HandshakeIdentity.Credential(identity: .generate())
        let mallory = try HandshakeIdentity.Credential(identity: .generate())
        let bob = try HandshakeIdentity.Credential(identity: .generate())
        var handshake = try NoiseHandshake(
            pattern: .X, role: .initiator, prologue: SealedEnvelope.prologue(for: bob.identity),
            staticKey: mallory.staticKey, psk: nil, remoteStaticKey: bob.staticKey.publicKey, ephemeralKey: nil)
        let forged = try handshake.writeMessage(Array(alice.card[32...]) + Array("send me the keys".utf8))
        #expect(throws: CryptoError.invalidSignature) { try SealedEnvelope.open(forged, as: bob) }
    }

    @Test func aCardMustProveItsStaticKey() throws {
        let bob = try HandshakeIdentity.Credential(identity: .generate())
        let mallory = try HandshakeIdentity.Credential(identity: .generate())
        let recipient = try SealedEnvelope.Recipient(card: bob.card)
        #expect(recipient.identity == bob.identity)
        #expect(recipient.staticKey == bob.staticKey.publicKey)
        // Bob's identity and signature over Mallory's static key.
        let swapped = mallory.staticKey.publicKey + Array(bob.card[32...])
        #expect(throws: CryptoError.invalidSignature) { try SealedEnvelope.Recipient(card: swapped) }
        #expect(throws: (any Error).self) { try SealedEnvelope.Recipient(card: Array(bob.card.dropLast())) }
    }

    /// Sealed to Bob under another recipient's prologue: the recipient
    /// identity is bound, so an envelope cannot be re-addressed.
    @Test func theRecipientIdentityIsBound() throws {
        let alice = try HandshakeIdentity.Credential(identity: .generate())
        let bob = try HandshakeIdentity.Credential(identity: .generate())
        let other = try IdentityKey.generate().publicKey
        var handshake = try NoiseHandshake(
            pattern: .X, role: .initiator, prologue: SealedEnvelope.prologue(for: other),
            staticKey: alice.staticKey, psk: nil, remoteStaticKey: bob.staticKey.publicKey, ephemeralKey: nil)
        let misaddressed = try handshake.writeMessage(alice.payload(hello: Array("hi".utf8)))
        #expect(throws: CryptoError.authenticationFailed) { try SealedEnvelope.open(misaddressed, as: bob) }
    }

    static func vector() throws -> [String: Any] {
        let key = ProtocolVectorTests.key
        let sender = try credential(0x50, static: 0x10), recipient = try credential(0x60, static: 0x20)
        let ephemeral = try X25519KeyPair(privateKey: key(0x30))
        let plaintext = Array("meet at the printer".utf8)
        let envelope = try SealedEnvelope.seal(plaintext, from: sender, to: SealedEnvelope.Recipient(card: recipient.card),
                                               ephemeralKey: ephemeral)
        let opened = try SealedEnvelope.open(envelope, as: recipient)
        #expect(opened.sender == sender.identity && opened.plaintext == plaintext)
        return [
            "protocol_name": NoisePattern.X.protocolName,
            "prologue": hexString(SealedEnvelope.prologue(for: recipient.identity)),
            "sender_identity_seed": hexString(key(0x50)), "sender_static": hexString(key(0x10)),
            "sender_ephemeral": hexString(key(0x30)),
            "recipient_identity_seed": hexString(key(0x60)), "recipient_static": hexString(key(0x20)),
            "recipient_card": hexString(recipient.card),
            "plaintext": hexString(plaintext), "envelope": hexString(envelope),
        ]
    }

    @Test func protocolDocumentPublishesThisExactVector() throws {
        let data = try JSONSerialization.data(withJSONObject: try Self.vector(), options: [.prettyPrinted, .sortedKeys])
        let generated = String(decoding: data, as: UTF8.self)
        let text = try ProjectDocument.wireProtocol.text()
        guard let begin = text.range(of: Self.beginMarker), let end = text.range(of: Self.endMarker) else {
            print("docs/PROTOCOL.md sealed vector should read:\n\(generated)")
            Issue.record("docs/PROTOCOL.md has no sealed-envelope vector block")
            return
        }
        let published = text[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("```") }.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        if published != generated { print("docs/PROTOCOL.md sealed vector should read:\n\(generated)") }
        #expect(published == generated)
    }
}
