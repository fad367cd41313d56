import CCrypto

/// Ed25519 (RFC 8032) signing and verification through libcrypto's
/// EVP_DigestSign/EVP_DigestVerify with a NULL digest (pure Ed25519).
public enum Ed25519 {
    public static let seedByteCount = 32
    public static let publicKeyByteCount = 32
    public static let signatureByteCount = 64

    /// A fresh (seed, public key) pair from EVP_PKEY_keygen.
    public static func generate() throws(CryptoError) -> (seed: [UInt8], publicKey: [UInt8]) {
        let (seed, publicKey) = try EVPKey.generate(CCRYPTO_PKEY_ED25519)
        return (seed, publicKey)
    }

    public static func publicKey(seed: [UInt8]) throws(CryptoError) -> [UInt8] {
        try LibCrypto.requireLength(seed, seedByteCount, "Ed25519 seed")
        return try EVPKey.withPrivate(CCRYPTO_PKEY_ED25519, seed) { key throws(CryptoError) in try EVPKey.rawPublic(key) }
    }

    public static func sign(_ message: [UInt8], seed: [UInt8]) throws(CryptoError) -> [UInt8] {
        try LibCrypto.requireLength(seed, seedByteCount, "Ed25519 seed")
        return try sign(message, key: try EVPKey.privateHandle(CCRYPTO_PKEY_ED25519, seed))
    }

    /// Signs with a key already imported (IdentityKey keeps one).
    static func sign(_ message: [UInt8], key handle: EVPKeyHandle) throws(CryptoError) -> [UInt8] {
        try Ed25519Signer(key: handle).sign(message)
    }

    /// True only for a valid signature by `publicKey` over `message`.
    public static func verify(_ signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == signatureByteCount, publicKey.count == publicKeyByteCount else { return false }
        let valid = try? EVPKey.withPublic(CCRYPTO_PKEY_ED25519, publicKey) { key throws(CryptoError) -> Bool in
            guard let ctx = EVP_MD_CTX_new() else { throw LibCrypto.failure("EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(ctx) }
            try LibCrypto.check(EVP_DigestVerifyInit(ctx, nil, nil, nil, key), "EVP_DigestVerifyInit")
            let result = (message.isEmpty ? [0] : message).withUnsafeBufferPointer {
                EVP_DigestVerify(ctx, signature, signature.count, $0.baseAddress, message.count)
            }
            ERR_clear_error()
            return result == 1
        }
        return valid ?? false
    }
}
