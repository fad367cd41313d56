/// A message sealed to one recipient: a single Noise X handshake message
/// (`Noise_X_25519_ChaChaPoly_SHA256`), for a DM that has to travel through
/// other nodes when no direct link can be made. A relay learns that an
/// envelope exists and its size; only the recipient can open it, and the
/// recipient learns who sealed it from the sender's identity signature,
/// checked against the static key the `ss` token proves.
///
///     prologue = "lanchat sealed v1" || 0x00 || recipient identity key (32)
///     envelope = e (32) || sender static, encrypted (48)
///                || payload, encrypted (plaintext + 96 + 16)
///     payload  = sender identity (32) || signature (64) || plaintext
///
/// The payload is `HandshakeIdentity`'s identity payload with the plaintext
/// in place of the hello, so one signature per run binds the sender's
/// static key to its identity, as on a link. The recipient's static key
/// comes from its `card` (the same binding, published by the recipient);
/// a card that does not verify is refused before anything is sealed.
///
/// What it does not give: replay protection (an envelope opens every time;
/// the chat layer drops a message id it already has) and forward secrecy
/// beyond the recipient's static key, which lives for one run.
public enum SealedEnvelope {
    public static let prologueLabel = Array("lanchat sealed v1".utf8) + [0]
    /// e, the encrypted static key and the payload's tag and identity header.
    public static let overhead = 32 + 48 + HandshakeIdentity.headerLength + ChaChaPoly.tagByteCount
    public static let maxPlaintextLength = NoiseHandshake.maxMessageLength - overhead

    /// A recipient whose static key is proven to speak for its identity.
    public struct Recipient: Sendable, Equatable {
        public let identity: IdentityKey.Public
        public let staticKey: [UInt8]

        /// Checks a card: static key (32) || identity (32) || signature (64).
        public init(card: [UInt8]) throws(CryptoError) {
            guard card.count == Card.length else {
                throw .malformedPayload("a recipient card of \(card.count) bytes, \(Card.length) expected")
            }
            let staticKey = Array(card[0..<32])
            let verified = try HandshakeIdentity.verify(Array(card[32...]), remoteStaticKey: staticKey)
            identity = verified.identity
            self.staticKey = staticKey
        }
    }

    public enum Card {
        public static let length = 32 + HandshakeIdentity.headerLength
    }

    /// What an opened envelope says.
    public struct Opened: Sendable {
        /// Proven: the envelope's `ss` token and the identity signature.
        public let sender: IdentityKey.Public
        public let plaintext: [UInt8]
        /// The sender's card (its static key with the identity signature
        /// the envelope carried), so the recipient can seal an answer.
        public let senderCard: [UInt8]
    }

    /// Seals `plaintext` from the holder of `credential` to `recipient`.
    public static func seal(_ plaintext: [UInt8], from credential: HandshakeIdentity.Credential,
                            to recipient: Recipient) throws(CryptoError) -> [UInt8] {
        try seal(plaintext, from: credential, to: recipient, ephemeralKey: nil)
    }

    /// - Parameter ephemeralKey: for vectors only; normally generated.
    static func seal(_ plaintext: [UInt8], from credential: HandshakeIdentity.Credential, to recipient: Recipient,
                     ephemeralKey: X25519KeyPair?) throws(CryptoError) -> [UInt8] {
        guard plaintext.count <= maxPlaintextLength else {
            throw .messageTooLarge(limit: maxPlaintextLength, got: plaintext.count)
        }
        var handshake = try NoiseHandshake(
            pattern: .X, role: .initiator, prologue: prologue(for: recipient.identity),
            staticKey: credential.staticKey, psk: nil, remoteStaticKey: recipient.staticKey, ephemeralKey: ephemeralKey)
        return try handshake.writeMessage(credential.payload(hello: plaintext))
    }

    /// Opens an envelope sealed to the holder of `credential`. Throws for
    /// anything not sealed to this key, altered, or signed by no one.
    public static func open(_ envelope: [UInt8], as credential: HandshakeIdentity.Credential) throws(CryptoError) -> Opened {
        var handshake = try NoiseHandshake(
            pattern: .X, role: .responder, prologue: prologue(for: credential.identity), staticKey: credential.staticKey)
        let payload = try handshake.readMessage(envelope)
        guard let senderStatic = handshake.remoteStaticKey else {
            throw .handshakeOutOfOrder("an envelope without the sender's static key")
        }
        let verified = try HandshakeIdentity.verify(payload, remoteStaticKey: senderStatic)
        let card = senderStatic + Array(payload[0..<HandshakeIdentity.headerLength])
        return Opened(sender: verified.identity, plaintext: verified.hello, senderCard: card)
    }

    static func prologue(for recipient: IdentityKey.Public) -> [UInt8] {
        prologueLabel + recipient.rawValue
    }
}

extension HandshakeIdentity.Credential {
    /// What a node publishes so others can seal envelopes to it: its static
    /// key and the identity signature over it (`SealedEnvelope.Recipient`).
    public var card: [UInt8] { staticKey.publicKey + identity.rawValue + signature }
}
