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
        let handle = try generateHandle(type)
        return (try rawPrivate(handle.key), try rawPublic(handle.key))
    }

    static func generateHandle(_ type: Int32) throws(CryptoError) -> EVPKeyHandle {
        guard let ctx = EVP_PKEY_CTX_new_id(type, nil) else { throw LibCrypto.failure("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try LibCrypto.check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
        var key: OpaquePointer?
        try LibCrypto.check(EVP_PKEY_keygen(ctx, &key), "EVP_PKEY_keygen")
        guard let key else { throw LibCrypto.failure("EVP_PKEY_keygen") }
        return EVPKeyHandle(key)
    }

    static func privateHandle(_ type: Int32, _ raw: [UInt8]) throws(CryptoError) -> EVPKeyHandle {
        let key = raw.withUnsafeBufferPointer { EVP_PKEY_new_raw_private_key(type, nil, $0.baseAddress, $0.count) }
        guard let key else { throw LibCrypto.failure("EVP_PKEY_new_raw_private_key") }
        return EVPKeyHandle(key)
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

/// An EVP_PKEY kept for the life of a key pair, so each operation does not
/// import (and recompute the public half of) the private key again.
/// `@unchecked Sendable`: the key is never modified after creation, and
/// libcrypto allows one EVP_PKEY to be used by several threads at once for
/// derive/sign (each operation makes its own context).
final class EVPKeyHandle: @unchecked Sendable {
    let key: OpaquePointer
    init(_ key: OpaquePointer) { self.key = key }
    deinit { EVP_PKEY_free(key) }
}
