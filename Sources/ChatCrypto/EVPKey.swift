import CCrypto

/// An owned EVP_PKEY made from raw key bytes, freed when done. Used only
/// inside one call, never stored, so key material lives in libcrypto as
/// briefly as possible.
enum EVPKey {
    static func withPrivate<R>(_ type: Int32, _ raw: [UInt8], _ body: (OpaquePointer) throws(CryptoError) -> R) throws(CryptoError) -> R {
        let key = raw.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(type, nil, $0.baseAddress, $0.count) }
        guard let key else { throw LibCrypto.failure("EVP_PKEY_new_raw_private_key") }
        defer { EVP_PKEY_free(key) }
        return try body(key)
    }

    static func withPublic<R>(_ type: Int32, _ raw: [UInt8], _ body: (OpaquePointer) throws(CryptoError) -> R) throws(CryptoError) -> R {
        let key = raw.withUnsafeBufferPointer { EVP_PKEY_new_raw_public_key(type, nil, $0.baseAddress, $0.count) }
        guard let key else { throw LibCrypto.failure("EVP_PKEY_new_raw_public_key") }
        defer { EVP_PKEY_free(key) }
        return try body(key)
    }

    /// Generates a key of `type` with EVP_PKEY_keygen; returns raw (private, public).
    static func generate(_ type: Int32) throws(CryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) {
        guard let ctx = EVP_PKEY_CTX_new_id(type, nil) else { throw LibCrypto.failure("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try LibCrypto.check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
        var key: OpaquePointer?
        try LibCrypto.check(EVP_PKEY_keygen(ctx, &key), "EVP_PKEY_keygen")
        guard let key else { throw LibCrypto.failure("EVP_PKEY_keygen") }
        defer { EVP_PKEY_free(key) }
        return (try rawPrivate(key), try rawPublic(key))
    }

    static func rawPrivate(_ key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length = 32
        try LibCrypto.check(EVP_PKEY_get_raw_private_key(key, &out, &length), "EVP_PKEY_get_raw_private_key")
        return Array(out.prefix(length))
    }

    static func rawPublic(_ key: OpaquePointer) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length = 32
        try LibCrypto.check(EVP_PKEY_get_raw_public_key(key, &out, &length), "EVP_PKEY_get_raw_public_key")
        return Array(out.prefix(length))
    }
}
