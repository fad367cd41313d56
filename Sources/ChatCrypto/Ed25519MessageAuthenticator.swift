import ChatCore
import Foundation

/// Signs public messages with the node's Ed25519 identity key and checks
/// others' against the key they carry (see `PublicMessageSignature` for the
/// bytes signed, and PROTOCOL.md, "Signed public messages").
///
/// Verifying needs no state: the key comes with the message, and it is
/// trusted only because it derives the claimed sender number (so a verdict
/// can be remembered for the exact payload, `VerifiedSignatures`).
public struct Ed25519MessageAuthenticator: MessageAuthenticator {
    private let key: IdentityKey
    private let encodedKey: String
    /// Payloads verified lately, shared with whoever else was given the
    /// same table; nil: every check verifies.
    private let verified: VerifiedSignatures?

    /// `verified`: the table its successful checks go in and are answered
    /// from: a table of its own unless given one (the app gives a node's
    /// transport and node the same one); nil remembers nothing.
    public init(key: IdentityKey, verified: VerifiedSignatures? = VerifiedSignatures()) {
        self.key = key
        encodedKey = Data(key.publicKey.rawValue).base64EncodedString()
        self.verified = verified
    }

    public var authorKey: String? { encodedKey }

    /// Leaves the payload unsigned only if libcrypto fails to sign with a
    /// key it loaded (the node logs that; peers will refuse the message).
    public func sign(_ payload: inout P2PPayload) {
        payload.signature = nil
        payload.authorKey = nil
        guard let signature = try? key.sign(PublicMessageSignature.canonicalBytes(of: payload)) else { return }
        payload.signature = Data(signature).base64EncodedString()
        payload.authorKey = encodedKey
    }

    /// A payload in the table (verified lately by whoever shares it) is
    /// not verified again (`VerifiedSignatures`: the overlay's transport
    /// checks a gossiped message before relaying it, then hands the node
    /// the same frame).
    public func verify(_ payload: P2PPayload) -> SignatureVerdict {
        guard let verified else { return Self.check(payload) }
        if verified.contains(payload) { return .valid }
        let verdict = Self.check(payload)
        if verdict == .valid { verified.insert(payload) }
        return verdict
    }

    private static func check(_ payload: P2PPayload) -> SignatureVerdict {
        guard let signatureText = payload.signature, let keyText = payload.authorKey else { return .unsigned }
        guard let signature = Data(base64Encoded: signatureText), signature.count == PublicMessageSignature.signatureBytes,
              let keyBytes = Data(base64Encoded: keyText),
              let author = try? IdentityKey.Public(rawValue: Array(keyBytes)) else { return .malformed }
        guard author.nodeNumber == payload.senderNumber else { return .wrongAuthorKey }
        let signed = PublicMessageSignature.canonicalBytes(of: payload)
        return author.isValidSignature(Array(signature), for: signed) ? .valid : .badSignature
    }
}
