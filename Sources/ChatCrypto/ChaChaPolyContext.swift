import CCrypto

/// One ChaCha20-Poly1305 key loaded into a libcrypto `EVP_CIPHER_CTX`
/// once; each seal or open sets only the nonce (and direction) again. A
/// link seals and opens thousands of records a second with one key per
/// direction, and building a context and scheduling the key per record
/// was most of a record's cost.
///
/// `@unchecked Sendable`: the context is mutable C state, so an instance
/// must not be used by two threads at once. Its owners (`CipherState`,
/// and through it `RecordCipher`) are values that copy it on write
/// (`isKnownUniquelyReferenced`), so each copy that mutates has its own.
final class ChaChaPolyContext: @unchecked Sendable {
    private let ctx: OpaquePointer
    /// Kept so a copy-on-write can load the same key into a new context.
    let key: [UInt8]

    init(key: [UInt8]) throws(CryptoError) {
        try LibCrypto.requireLength(key, ChaChaPoly.keyByteCount, "ChaCha20-Poly1305 key")
        guard let ctx = EVP_CIPHER_CTX_new() else { throw LibCrypto.failure("EVP_CIPHER_CTX_new") }
        do {
            try LibCrypto.check(EVP_CipherInit_ex(ctx, ChaChaPoly.cipher, nil, nil, nil, 1), "EVP_CipherInit_ex")
            try LibCrypto.check(EVP_CIPHER_CTX_ctrl(ctx, CCRYPTO_CTRL_AEAD_SET_IVLEN, 12, nil), "EVP_CTRL_AEAD_SET_IVLEN")
            try LibCrypto.check(EVP_CipherInit_ex(ctx, nil, nil, key, nil, 1), "EVP_CipherInit_ex(key)")
        } catch {
            EVP_CIPHER_CTX_free(ctx)
            throw error
        }
        self.ctx = ctx
        self.key = key
    }

    deinit { EVP_CIPHER_CTX_free(ctx) }

    /// A new context with the same key (for copy-on-write).
    func copy() throws(CryptoError) -> ChaChaPolyContext { try ChaChaPolyContext(key: key) }

    /// Ciphertext || 16-byte tag, appended to `output`.
    func seal(nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer, plaintext: UnsafeRawBufferPointer,
              appendingTo output: inout [UInt8]) throws(CryptoError) {
        try start(nonce: nonce, encrypt: true)
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try LibCrypto.check(EVP_EncryptUpdate(ctx, nil, &length, associatedData.bytes, Int32(associatedData.count)),
                                "EVP_EncryptUpdate(ad)")
        }
        let total = plaintext.count + ChaChaPoly.tagByteCount
        // The plaintext is copied in and encrypted in place (EVP allows
        // in == out): one memcpy, where zero-filling the room first cost
        // a loop over every byte. No reserveCapacity(start + total) here:
        // it grows a buffer to exactly that size, so a link's write batch
        // of many records would be copied whole for every record;
        // appending grows it geometrically.
        var failure: CryptoError?
        let ctx = self.ctx
        output.appendForInPlace(plaintext) { out in
            do throws(CryptoError) {
                if !plaintext.isEmpty {
                    try LibCrypto.check(EVP_EncryptUpdate(ctx, out, &length, out, Int32(plaintext.count)), "EVP_EncryptUpdate")
                }
                try LibCrypto.check(EVP_EncryptFinal_ex(ctx, out + plaintext.count, &length), "EVP_EncryptFinal_ex")
                try LibCrypto.check(EVP_CIPHER_CTX_ctrl(ctx, CCRYPTO_CTRL_AEAD_GET_TAG, Int32(ChaChaPoly.tagByteCount), out + plaintext.count),
                                    "EVP_CTRL_AEAD_GET_TAG")
            } catch {
                failure = error
            }
        }
        if let failure {
            output.removeLast(total)
            throw failure
        }
    }

    /// The plaintext of ciphertext || tag; `.authenticationFailed` when the
    /// tag does not verify (nothing is returned then).
    func open(nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
              ciphertext: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        guard ciphertext.count >= ChaChaPoly.tagByteCount else { throw .authenticationFailed }
        try start(nonce: nonce, encrypt: false)
        let bodyCount = ciphertext.count - ChaChaPoly.tagByteCount
        let tag = UnsafeMutableRawPointer(mutating: ciphertext.baseAddress! + bodyCount)  // libcrypto copies it
        try LibCrypto.check(EVP_CIPHER_CTX_ctrl(ctx, CCRYPTO_CTRL_AEAD_SET_TAG, Int32(ChaChaPoly.tagByteCount), tag),
                            "EVP_CTRL_AEAD_SET_TAG")
        var length: Int32 = 0
        if !associatedData.isEmpty {
            try LibCrypto.check(EVP_DecryptUpdate(ctx, nil, &length, associatedData.bytes, Int32(associatedData.count)),
                                "EVP_DecryptUpdate(ad)")
        }
        var failure: CryptoError?
        var verified = false
        let ctx = self.ctx
        // The final call writes nothing for this AEAD, but gets room anyway.
        let plaintext = [UInt8](unsafeUninitializedCapacity: bodyCount + ChaChaPoly.tagByteCount) { out, count in
            count = 0
            do throws(CryptoError) {
                if bodyCount > 0 {
                    try LibCrypto.check(EVP_DecryptUpdate(ctx, out.baseAddress, &length, ciphertext.bytes, Int32(bodyCount)),
                                        "EVP_DecryptUpdate")
                }
                verified = EVP_DecryptFinal_ex(ctx, out.baseAddress! + bodyCount, &length) > 0
                count = verified ? bodyCount : 0
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        guard verified else {
            ERR_clear_error()
            throw .authenticationFailed
        }
        return plaintext
    }

    /// Opens ciphertext || tag into `output` (room for the ciphertext's
    /// length at least; may be the ciphertext's own bytes): the plaintext's
    /// length. On `.authenticationFailed` the bytes written must be
    /// discarded. For a reader that keeps its buffers (a transfer link),
    /// where `open` would allocate an array per record.
    func open(nonce: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer,
              into output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Int {
        guard ciphertext.count >= ChaChaPoly.tagByteCount else { throw .authenticationFailed }
        let bodyCount = ciphertext.count - ChaChaPoly.tagByteCount
        guard output.count >= bodyCount else { throw .invalidLength(what: "plaintext room", expected: bodyCount, got: output.count) }
        try start(nonce: nonce, encrypt: false)
        // The tag is read before the body may be overwritten in place.
        var tag: (UInt64, UInt64) = (0, 0)  // 16 bytes, no allocation per record
        let ctx = self.ctx
        try withUnsafeMutableBytes(of: &tag) { (tag) throws(CryptoError) in
            tag.copyMemory(from: UnsafeRawBufferPointer(rebasing: ciphertext[bodyCount...]))
            try LibCrypto.check(EVP_CIPHER_CTX_ctrl(ctx, CCRYPTO_CTRL_AEAD_SET_TAG, Int32(ChaChaPoly.tagByteCount), tag.baseAddress),
                                "EVP_CTRL_AEAD_SET_TAG")
        }
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var length: Int32 = 0
        if bodyCount > 0 {
            try LibCrypto.check(EVP_DecryptUpdate(ctx, out, &length, ciphertext.bytes, Int32(bodyCount)), "EVP_DecryptUpdate")
        }
        // Writes nothing for this AEAD; `tag` is room enough.
        let verified = withUnsafeMutableBytes(of: &tag) { EVP_DecryptFinal_ex(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) }
        guard verified > 0 else {
            ERR_clear_error()
            throw .authenticationFailed
        }
        return bodyCount
    }

    /// Sets the nonce and direction; the key stays loaded.
    private func start(nonce: UnsafeRawBufferPointer, encrypt: Bool) throws(CryptoError) {
        guard nonce.count == 12 else { throw .invalidLength(what: "ChaCha20-Poly1305 nonce", expected: 12, got: nonce.count) }
        let result = EVP_CipherInit_ex(ctx, nil, nil, nil, nonce.bytes, encrypt ? 1 : 0)
        try LibCrypto.check(result, "EVP_CipherInit_ex(nonce)")
    }
}

extension UnsafeRawBufferPointer {
    /// Only for buffers known not to be empty (empty input is never passed).
    fileprivate var bytes: UnsafePointer<UInt8> { baseAddress!.assumingMemoryBound(to: UInt8.self) }
}

extension Array where Element == UInt8 {
    /// Appends `bytes` and room for a tag, then lets `body` rewrite them in
    /// place (it gets the address of the first appended byte).
    fileprivate mutating func appendForInPlace(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        let start = count
        append(contentsOf: bytes)
        append(contentsOf: ChaChaPoly.zeroTag)
        withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }
}
