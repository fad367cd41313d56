/// Everything that can go wrong in ChatCrypto. A peer's bad bytes always
/// surface as one of these, never as a silent nil; the caller closes the link.
public enum CryptoError: Error, Equatable, Sendable {
    /// A libcrypto call failed; `reason` is OpenSSL's error string, if any.
    case libcrypto(operation: String, reason: String)
    /// A key, nonce or seed had the wrong number of bytes.
    case invalidLength(what: String, expected: Int, got: Int)
    /// An AEAD tag did not verify: tampered, replayed, reordered or wrong key.
    case authenticationFailed
    /// A cipher used all 2^64-1 nonces (never in practice; the link must end).
    case nonceExhausted
    /// A Noise message or record over the 65535-byte limit.
    case messageTooLarge(limit: Int, got: Int)
    /// A handshake message shorter than its pattern requires.
    case messageTooShort(expected: Int, got: Int)
    /// `writeMessage`/`readMessage`/`split` called out of turn.
    case handshakeOutOfOrder(String)
    /// The pattern needs a key the handshake was not given (e.g. the psk).
    case missingKey(String)
    /// An X25519 public key whose shared secret is all zeros (low order).
    case invalidPublicKey
    /// An Ed25519 signature that does not verify.
    case invalidSignature
    /// A credential signing another static key than the handshake's.
    case credentialMismatch
    /// A handshake identity payload that cannot be parsed.
    case malformedPayload(String)
    /// A record frame whose length prefix is out of bounds.
    case malformedRecord(String)
    /// A record cipher that already failed once is not used again.
    case cipherFailed
    /// A key or secret file with the wrong size or format.
    case malformedKeyFile(String)
}
