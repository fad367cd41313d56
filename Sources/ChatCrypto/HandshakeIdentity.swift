/// Binds a node's Ed25519 identity to a Noise handshake. The payload of the
/// two encrypted handshake messages (XX messages 2 and 3) is
///
///     identity public key (32) || signature (64) || hello (rest, may be empty)
///
/// where the signature is Ed25519 by the identity key over
///
///     "lanchat v2 handshake identity\0" || Noise static public key (32)
///         || handshake hash h at the payload (32) || hello
///
/// The static key ties the identity to the key the Noise DH authenticated;
/// h (which covers both ephemerals and everything sent so far) ties it to
/// this one session, so a payload recorded from another session is refused.
public enum HandshakeIdentity {
    public static let context = Array("lanchat v2 handshake identity".utf8) + [0]
    static let headerLength = Ed25519.publicKeyByteCount + Ed25519.signatureByteCount

    /// What a verified payload says.
    public struct Verified: Sendable {
        public let identity: IdentityKey.Public
        public let hello: [UInt8]
    }

    /// The payload this side sends; `staticKey` is its own Noise static
    /// public key and `handshakeHash` the hash at the payload
    /// (`NoiseHandshake.writeMessage(payload:)` hands it over).
    public static func payload(identity: IdentityKey, staticKey: [UInt8], handshakeHash: [UInt8],
                               hello: [UInt8]) throws(CryptoError) -> [UInt8] {
        let signature = try identity.sign(signedBytes(staticKey: staticKey, handshakeHash: handshakeHash, hello: hello))
        return identity.publicKey.rawValue + signature + hello
    }

    /// Checks a received payload against the sender's Noise static key and
    /// the hash at the payload (`NoiseHandshake.payloadHandshakeHash`).
    public static func verify(_ payload: [UInt8], remoteStaticKey: [UInt8],
                              handshakeHash: [UInt8]) throws(CryptoError) -> Verified {
        guard payload.count >= headerLength else {
            throw .malformedPayload("identity payload of \(payload.count) bytes, at least \(headerLength) expected")
        }
        let identity = try IdentityKey.Public(rawValue: Array(payload[0..<32]))
        let signature = Array(payload[32..<headerLength])
        let hello = Array(payload[headerLength...])
        let signed = signedBytes(staticKey: remoteStaticKey, handshakeHash: handshakeHash, hello: hello)
        guard identity.isValidSignature(signature, for: signed) else { throw .invalidSignature }
        return Verified(identity: identity, hello: hello)
    }

    static func signedBytes(staticKey: [UInt8], handshakeHash: [UInt8], hello: [UInt8]) -> [UInt8] {
        context + staticKey + handshakeHash + hello
    }
}

extension NoiseHandshake {
    /// Writes the next message with this node's identity payload (messages
    /// 2 and 3; message 1 carries an empty payload: in clear with XX,
    /// encrypted under the group psk with XXpsk0+psk3).
    public mutating func writeMessage(identity: IdentityKey, hello: [UInt8]) throws(CryptoError) -> [UInt8] {
        let staticKey = localStaticPublicKey
        return try writeMessage { hash throws(CryptoError) in
            try HandshakeIdentity.payload(identity: identity, staticKey: staticKey, handshakeHash: hash, hello: hello)
        }
    }

    /// Reads the next message and verifies the identity payload in it.
    public mutating func readIdentityMessage(_ message: [UInt8]) throws(CryptoError) -> HandshakeIdentity.Verified {
        let payload = try readMessage(message)
        guard let remoteStaticKey else { throw .handshakeOutOfOrder("identity payload before the static key") }
        return try HandshakeIdentity.verify(payload, remoteStaticKey: remoteStaticKey, handshakeHash: payloadHandshakeHash)
    }
}
