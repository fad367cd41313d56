import CCrypto

/// ChaCha20-Poly1305 AEAD (RFC 8439) through libcrypto's
/// EVP_chacha20_poly1305. Ciphertext is the encrypted bytes followed by the
/// 16-byte tag. Nonces follow Noise: 4 zero bytes then a 64-bit
/// little-endian counter.
public enum ChaChaPoly {
    public static let keyByteCount = 32
    public static let tagByteCount = 16

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
        let ctx = try context(key: key, nonce: nonce, encrypt: true)
        defer { EVP_CIPHER_CTX_free(ctx) }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try LibCrypto.check(EVP_EncryptUpdate(ctx, nil, &length, associatedData, Int32(associatedData.count)), "EVP_EncryptUpdate(ad)")
        }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        if !plaintext.isEmpty {
            try LibCrypto.check(EVP_EncryptUpdate(ctx, &out, &length, plaintext, Int32(plaintext.count)), "EVP_EncryptUpdate")
        }
        let final = out.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(ctx, $0.baseAddress! + plaintext.count, &length) }
        try LibCrypto.check(final, "EVP_EncryptFinal_ex")
        let tag = out.withUnsafeMutableBufferPointer {
            EVP_CIPHER_CTX_ctrl(ctx, CCRYPTO_CTRL_AEAD_GET_TAG, Int32(tagByteCount), $0.baseAddress! + plaintext.count)
        }
        try LibCrypto.check(tag, "EVP_CTRL_AEAD_GET_TAG")
        return out
    }

    static func open(key: [UInt8], nonce: [UInt8], associatedData: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard ciphertext.count >= tagByteCount else { throw .authenticationFailed }
        let ctx = try context(key: key, nonce: nonce, encrypt: false)
        defer { EVP_CIPHER_CTX_free(ctx) }
        let bodyCount = ciphertext.count - tagByteCount
        var tag = Array(ciphertext[bodyCount...])
        try LibCrypto.check(EVP_CIPHER_CTX_ctrl(ctx, CCRYPTO_CTRL_AEAD_SET_TAG, Int32(tagByteCount), &tag), "EVP_CTRL_AEAD_SET_TAG")
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try LibCrypto.check(EVP_DecryptUpdate(ctx, nil, &length, associatedData, Int32(associatedData.count)), "EVP_DecryptUpdate(ad)")
        }
        var out = [UInt8](repeating: 0, count: bodyCount + tagByteCount)
        if bodyCount > 0 {
            let update = ciphertext.withUnsafeBufferPointer { EVP_DecryptUpdate(ctx, &out, &length, $0.baseAddress, Int32(bodyCount)) }
            try LibCrypto.check(update, "EVP_DecryptUpdate")
        }
        let final = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(ctx, $0.baseAddress! + bodyCount, &length) }
        guard final > 0 else {
            ERR_clear_error()
            throw .authenticationFailed
        }
        out.removeLast(tagByteCount)
        return out
    }

    private static func context(key: [UInt8], nonce: [UInt8], encrypt: Bool) throws(CryptoError) -> OpaquePointer {
        try LibCrypto.requireLength(key, keyByteCount, "ChaCha20-Poly1305 key")
        try LibCrypto.requireLength(nonce, 12, "ChaCha20-Poly1305 nonce")
        guard let ctx = EVP_CIPHER_CTX_new() else { throw LibCrypto.failure("EVP_CIPHER_CTX_new") }
        let mode: Int32 = encrypt ? 1 : 0
        do {
            try LibCrypto.check(EVP_CipherInit_ex(ctx, EVP_chacha20_poly1305(), nil, nil, nil, mode), "EVP_CipherInit_ex")
            try LibCrypto.check(EVP_CIPHER_CTX_ctrl(ctx, CCRYPTO_CTRL_AEAD_SET_IVLEN, 12, nil), "EVP_CTRL_AEAD_SET_IVLEN")
            try LibCrypto.check(EVP_CipherInit_ex(ctx, nil, nil, key, nonce, mode), "EVP_CipherInit_ex(key)")
        } catch {
            EVP_CIPHER_CTX_free(ctx)
            throw error
        }
        return ctx
    }
}
