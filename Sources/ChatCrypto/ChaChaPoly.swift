import CCrypto

/// ChaCha20-Poly1305 AEAD (RFC 8439) through libcrypto's
/// EVP_chacha20_poly1305. Ciphertext is the encrypted bytes followed by the
/// 16-byte tag. Nonces follow Noise: 4 zero bytes then a 64-bit
/// little-endian counter. These one-shot calls load the key for one
/// record; a link keeps it loaded (`ChaChaPolyContext`, in `CipherState`).
public enum ChaChaPoly {
    public static let keyByteCount = 32

    /// Fetched once: EVP_chacha20_poly1305() makes every init look the
    /// algorithm up in the provider store again. Safe to share across
    /// threads: a fetched EVP_CIPHER is immutable and libcrypto documents
    /// it for concurrent use; it lives for the process.
    nonisolated(unsafe) static let cipher: OpaquePointer? =
        EVP_CIPHER_fetch(nil, "ChaCha20-Poly1305", nil) ?? EVP_chacha20_poly1305()
    public static let tagByteCount = 16
    /// Room for a tag, appended before the tag is written.
    static let zeroTag = [UInt8](repeating: 0, count: tagByteCount)

    /// The 12-byte nonce Noise uses for counter `n`.
    public static func nonce(counter: UInt64) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { nonce[4 + index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(index))) }
        return nonce
    }

    public static func seal(key: [UInt8], counter: UInt64, associatedData: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try seal(key: key, nonce: nonce(counter: counter), associatedData: associatedData, plaintext: plaintext)
    }

    /// Throws `.authenticationFailed` when the tag does not verify.
    public static func open(key: [UInt8], counter: UInt64, associatedData: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try open(key: key, nonce: nonce(counter: counter), associatedData: associatedData, ciphertext: ciphertext)
    }

    /// Any 12-byte nonce: for the RFC 8439 vector, whose nonce is not Noise-shaped.
    static func seal(key: [UInt8], nonce: [UInt8], associatedData: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        let context = try ChaChaPolyContext(key: key)
        var out: [UInt8] = []
        // Array's withUnsafeBytes only rethrows untyped errors: carry ours in a Result.
        let sealed = nonce.withUnsafeBytes { nonce in
            associatedData.withUnsafeBytes { ad in
                plaintext.withUnsafeBytes { plaintext in
                    Result { () throws(CryptoError) in
                        try context.seal(nonce: nonce, associatedData: ad, plaintext: plaintext, appendingTo: &out)
                    }
                }
            }
        }
        try sealed.get()
        return out
    }

    static func open(key: [UInt8], nonce: [UInt8], associatedData: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard ciphertext.count >= tagByteCount else { throw .authenticationFailed }
        let context = try ChaChaPolyContext(key: key)
        return try nonce.withUnsafeBytes { nonce in
            associatedData.withUnsafeBytes { ad in
                ciphertext.withUnsafeBytes { ciphertext in
                    Result { () throws(CryptoError) in try context.open(nonce: nonce, associatedData: ad, ciphertext: ciphertext) }
                }
            }
        }.get()
    }

    /// The Noise nonce for `counter` on the stack, for one call.
    static func withNonce<R>(counter: UInt64, _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R) throws(CryptoError) -> R {
        var nonce: (UInt32, UInt32, UInt32) = (0, UInt32(truncatingIfNeeded: counter).littleEndian,
                                               UInt32(truncatingIfNeeded: counter >> 32).littleEndian)
        return try withUnsafeBytes(of: &nonce) { (raw) throws(CryptoError) -> R in try body(raw) }
    }
}
