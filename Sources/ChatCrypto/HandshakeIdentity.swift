/// Binds a node's Ed25519 identity to its Noise static key. The payload of
/// the two encrypted handshake messages (XX messages 2 and 3) is
///
///     identity public key (32) || signature (64) || hello (rest, may be empty)
///
/// where the signature is Ed25519 by the identity key over
///
///     "lanchat v2 static key" || 0x00 || Noise static public key (32)
///
/// The signature says "this static key speaks for this identity"; the
/// handshake's DH tokens (es, se) prove that the sender holds that static
/// key in this session, and the payload travels under keys that depend on
/// both. So a node signs once per static key (once per run), not once per
/// link, as libp2p's Noise handshake does: a payload recorded from another
/// session is useless without the static private key, and a signature
/// made per link cost a sixth of a handshake's CPU.
public enum HandshakeIdentity {
    public static let context = Array("lanchat v2 static key".utf8) + [0]
    static let headerLength = Ed25519.publicKeyByteCount + Ed25519.signatureByteCount

    /// A static key with the identity's signature over it: made once, then
    /// sent in every handshake that uses that static key.
    public struct Credential: Sendable {
        public let staticKey: X25519KeyPair
        public let identity: IdentityKey.Public
        let signature: [UInt8]

        /// Signs `staticKey` (fresh if nil) with `identity`.
        public init(identity: IdentityKey, staticKey: X25519KeyPair? = nil) throws(CryptoError) {
            let key: X25519KeyPair
            if let staticKey { key = staticKey } else { key = try X25519KeyPair.generate() }
            self.staticKey = key
            self.identity = identity.publicKey
            signature = try identity.sign(HandshakeIdentity.signedBytes(staticKey: key.publicKey))
        }

        /// The identity payload carrying `hello`.
        public func payload(hello: [UInt8]) -> [UInt8] {
            identity.rawValue + signature + hello
        }
    }

    /// What a verified payload says.
    public struct Verified: Sendable {
        public let identity: IdentityKey.Public
        public let hello: [UInt8]
    }

    /// Checks a received payload against the sender's Noise static key (the
    /// `s` token just read in the same message).
    public static func verify(_ payload: [UInt8], remoteStaticKey: [UInt8]) throws(CryptoError) -> Verified {
        guard payload.count >= headerLength else {
            throw .malformedPayload("identity payload of \(payload.count) bytes, at least \(headerLength) expected")
        }
        let identity = try IdentityKey.Public(rawValue: Array(payload[0..<32]))
        let signature = Array(payload[32..<headerLength])
        guard identity.isValidSignature(signature, for: signedBytes(staticKey: remoteStaticKey)) else { throw .invalidSignature }
        return Verified(identity: identity, hello: Array(payload[headerLength...]))
    }

    static func signedBytes(staticKey: [UInt8]) -> [UInt8] {
        context + staticKey
    }
}

extension NoiseHandshake {
    /// Writes the next message with this node's identity payload (messages
    /// 2 and 3; message 1 carries an empty payload: in clear with XX,
    /// encrypted under the group psk with XXpsk0+psk3). `credential` must
    /// sign this handshake's static key.
    public mutating func writeMessage(credential: HandshakeIdentity.Credential, hello: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard credential.staticKey.publicKey == localStaticPublicKey else {
            throw .credentialMismatch
        }
        return try writeMessage(credential.payload(hello: hello))
    }

    /// `writeMessage(credential:hello:)` with a credential signed for this
    /// one message (tests and raw peers; a node signs once per run).
    public mutating func writeMessage(identity: IdentityKey, hello: [UInt8]) throws(CryptoError) -> [UInt8] {
        try writeMessage(credential: HandshakeIdentity.Credential(identity: identity, staticKey: localStatic), hello: hello)
    }

    /// Reads the next message and verifies the identity payload in it.
    public mutating func readIdentityMessage(_ message: [UInt8]) throws(CryptoError) -> HandshakeIdentity.Verified {
        let payload = try readMessage(message)
        guard let remoteStaticKey else { throw .handshakeOutOfOrder("identity payload before the static key") }
        return try HandshakeIdentity.verify(payload, remoteStaticKey: remoteStaticKey)
    }
}
