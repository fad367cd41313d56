import CCrypto

/// HKDF-SHA256 (RFC 5869) through libcrypto's EVP_KDF; RFC 5869's test
/// case 1 is in `HKDFTests`.
public enum HKDF {
    /// `length` bytes (at most 255 × 32) from `ikm`. An empty `salt` means
    /// RFC 5869's default (32 zero bytes), as in other implementations.
    public static func sha256(ikm: [UInt8], salt: [UInt8] = [], info: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        guard (1...(255 * 32)).contains(length) else { throw .invalidLength(what: "HKDF output", expected: 32, got: length) }
        var out = [UInt8](repeating: 0, count: length)
        let result = salt.withUnsafeBufferPointer { salt in
            ikm.withUnsafeBufferPointer { ikm in
                info.withUnsafeBufferPointer { info in
                    out.withUnsafeMutableBufferPointer { out in
                        ccrypto_hkdf_sha256(salt.baseAddress, salt.count, ikm.baseAddress, ikm.count,
                                            info.baseAddress, info.count, out.baseAddress, out.count)
                    }
                }
            }
        }
        try LibCrypto.check(result, "EVP_KDF_derive HKDF-SHA256")
        return out
    }
}
