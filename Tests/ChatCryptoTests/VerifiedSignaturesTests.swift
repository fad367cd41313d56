import ChatCore
@testable import ChatCrypto
import Testing

/// A signature is verified once per payload: a second check of the very
/// same payload is answered from `VerifiedSignatures`, and any change to
/// it (content, key, signature, sender) is checked again and refused.
@Suite struct VerifiedSignaturesTests {
    static func signed(_ key: IdentityKey, content: String = "hi all") -> P2PPayload {
        var payload = P2PPayload(type: .publicMessage, messageId: MessageID("01934c04-c009-7a00-9b00-00000000a029")!,
                                 senderNumber: key.nodeNumber, senderNickname: "alice", content: content,
                                 timestamp: 1_732_147_200_000)
        Ed25519MessageAuthenticator(key: key).sign(&payload)
        return payload
    }

    @Test func theTableHoldsExactPayloadsAndForgetsTheOldestFirst() throws {
        let key = try IdentityKey.generate()
        let table = VerifiedSignatures(capacity: 2)
        let first = Self.signed(key)
        table.insert(first)
        #expect(table.contains(first))
        var changed = first
        changed.content = "hi all!"
        #expect(!table.contains(changed), "same id, other content")
        var second = Self.signed(key, content: "two"), third = Self.signed(key, content: "three")
        second.messageId = MessageID("01934c04-c009-7a00-9b00-00000000b029")!
        third.messageId = MessageID("01934c04-c009-7a00-9b00-00000000c029")!
        table.insert(second)
        table.insert(third)
        #expect(!table.contains(first), "the oldest is forgotten")
        #expect(table.contains(second) && table.contains(third))
        #expect(table.count == 2)
    }

    @Test func aSecondCheckIsAnsweredFromTheTableAndATamperedCopyIsStillRefused() throws {
        let key = try IdentityKey.generate(), other = try IdentityKey.generate()
        // Two authenticators given one table, as the app gives its transport and node.
        let table = VerifiedSignatures()
        let transport = Ed25519MessageAuthenticator(key: other, verified: table)
        let node = Ed25519MessageAuthenticator(key: other, verified: table)
        let payload = Self.signed(key)
        #expect(transport.verify(payload) == .valid)
        #expect(table.hits == 0)
        #expect(node.verify(payload) == .valid)
        #expect(table.hits == 1, "the node's check was the table's")
        var tampered = payload
        tampered.content = "pay mallory"
        #expect(node.verify(tampered) == .badSignature)
        var impostor = payload
        impostor.senderNumber = other.nodeNumber
        #expect(node.verify(impostor) == .wrongAuthorKey)
        var resigned = payload
        resigned.signature = Self.signed(key, content: "other").signature
        #expect(node.verify(resigned) == .badSignature)
        #expect(table.count == 1, "refusals are not kept")
    }

    @Test func authenticatorsShareOnlyTheTableTheyWereGiven() throws {
        let key = try IdentityKey.generate(), other = try IdentityKey.generate()
        let table = VerifiedSignatures()
        let shared = Ed25519MessageAuthenticator(key: other, verified: table)
        let alone = Ed25519MessageAuthenticator(key: other, verified: nil)
        let payload = Self.signed(key)
        #expect(alone.verify(payload) == .valid)
        #expect(table.count == 0, "a check without the table leaves nothing in it")
        #expect(shared.verify(payload) == .valid)
        #expect(table.hits == 0 && table.count == 1)
        // Another table (another node's, or an authenticator's own by
        // default) does not answer for this one, nor this one for it.
        let elsewhere = Ed25519MessageAuthenticator(key: other)
        #expect(elsewhere.verify(payload) == .valid)
        #expect(table.hits == 0)
    }
}
