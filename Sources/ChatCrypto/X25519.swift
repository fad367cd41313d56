import CCrypto

/// An X25519 key pair (RFC 7748) held as raw bytes; every operation goes
/// through libcrypto's EVP_PKEY_X25519.
public struct X25519KeyPair: Sendable {
    public static let keyByteCount = 32

    public let privateKey: [UInt8]
    public let publicKey: [UInt8]

    /// A fresh key pair from EVP_PKEY_keygen.
    public static func generate() throws(CryptoError) -> X25519KeyPair {
        let (privateKey, publicKey) = try EVPKey.generate(CCRYPTO_PKEY_X25519)
        return X25519KeyPair(privateKey: privateKey, publicKey: publicKey)
    }

    private init(privateKey: [UInt8], publicKey: [UInt8]) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    /// Imports a raw 32-byte private key; the public key is computed by libcrypto.
    public init(privateKey: [UInt8]) throws(CryptoError) {
        try LibCrypto.requireLength(privateKey, Self.keyByteCount, "X25519 private key")
        self.privateKey = privateKey
        self.publicKey = try EVPKey.withPrivate(CCRYPTO_PKEY_X25519, privateKey) { key throws(CryptoError) in
            try EVPKey.rawPublic(key)
        }
    }

    /// The 32-byte shared secret with `peerPublicKey` (EVP_PKEY_derive).
    /// Throws `.invalidPublicKey` for a low-order point (all-zero result),
    /// which libcrypto refuses.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        try LibCrypto.requireLength(peerPublicKey, Self.keyByteCount, "X25519 public key")
        return try EVPKey.withPrivate(CCRYPTO_PKEY_X25519, privateKey) { key throws(CryptoError) in
            try EVPKey.withPublic(CCRYPTO_PKEY_X25519, peerPublicKey) { peer throws(CryptoError) in
                guard let ctx = EVP_PKEY_CTX_new(key, nil) else { throw LibCrypto.failure("EVP_PKEY_CTX_new") }
                defer { EVP_PKEY_CTX_free(ctx) }
                try LibCrypto.check(EVP_PKEY_derive_init(ctx), "EVP_PKEY_derive_init")
                try LibCrypto.check(EVP_PKEY_derive_set_peer(ctx, peer), "EVP_PKEY_derive_set_peer")
                var out = [UInt8](repeating: 0, count: 32)
                var length = 32
                guard EVP_PKEY_derive(ctx, &out, &length) > 0, length == 32 else {
                    ERR_clear_error()
                    throw CryptoError.invalidPublicKey
                }
                // libcrypto already refuses an all-zero result; checked again
                // because Noise implementations must not depend on that.
                guard out.contains(where: { $0 != 0 }) else { throw CryptoError.invalidPublicKey }
                return out
            }
        }
    }
}
