import CCrypto

/// Small helpers for calling libcrypto: error capture and pointer plumbing.
enum LibCrypto {
    /// Throws `.libcrypto` with OpenSSL's queued error string when `result`
    /// is not positive (EVP calls return 1 on success, <= 0 on failure).
    static func check(_ result: Int32, _ operation: String) throws(CryptoError) {
        guard result > 0 else { throw failure(operation) }
    }

    static func failure(_ operation: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return .libcrypto(operation: operation, reason: "") }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .libcrypto(operation: operation, reason: reason)
    }

    static func requireLength(_ bytes: [UInt8], _ expected: Int, _ what: String) throws(CryptoError) {
        guard bytes.count == expected else {
            throw .invalidLength(what: what, expected: expected, got: bytes.count)
        }
    }

    /// Constant-time comparison (CRYPTO_memcmp), for tags and MACs.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }
}
