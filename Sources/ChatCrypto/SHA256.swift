import CCrypto

/// SHA-256 and HMAC-SHA256 through libcrypto (EVP_Digest, EVP_MAC).
///
/// Both algorithms are fetched once: libcrypto 3.0 otherwise looks them up
/// by name in the provider store on every call (`EVP_sha256()` is fetched
/// again at each digest init, `HMAC()` fetches the MAC and the digest), and
/// a Noise handshake makes dozens of these calls on small inputs. A fetched
/// EVP_MD and a context only ever copied are safe to share across threads.
public enum SHA256 {
    public static let byteCount = 32

    nonisolated(unsafe) private static let digest: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256()
    nonisolated(unsafe) private static let hmacTemplate: OpaquePointer? = ccrypto_hmac_sha256_template()

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = data.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, digest, nil) }
        }
        // SHA-256 of bytes in memory cannot fail short of memory exhaustion.
        precondition(result == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return out
    }

    public static func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        var length = 0
        // HMAC of bytes in memory cannot fail short of memory exhaustion.
        guard let ctx = EVP_MAC_CTX_dup(hmacTemplate) else { preconditionFailure("EVP_MAC_CTX_dup(HMAC-SHA256) failed") }
        defer { EVP_MAC_CTX_free(ctx) }
        // Empty inputs still need valid pointers; the counts say 0.
        let result = (key.isEmpty ? [0] : key).withUnsafeBufferPointer { k in
            (data.isEmpty ? [0] : data).withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    EVP_MAC_init(ctx, k.baseAddress, key.count, nil) == 1
                        && EVP_MAC_update(ctx, d.baseAddress, data.count) == 1
                        && EVP_MAC_final(ctx, o.baseAddress, &length, byteCount) == 1
                }
            }
        }
        precondition(result && length == 32, "HMAC(SHA-256) failed")
        return out
    }

    /// Checks an HMAC in constant time.
    public static func verifyHMAC(_ tag: [UInt8], key: [UInt8], _ data: [UInt8]) -> Bool {
        LibCrypto.constantTimeEqual(tag, hmac(key: key, data))
    }
}

/// HKDF exactly as the Noise spec (rev 34, section 4.3) defines it from
/// HMAC-SHA256: outputs 2 or 3 blocks of 32 bytes.
public enum NoiseHKDF {
    public static func derive(chainingKey: [UInt8], inputKeyMaterial: [UInt8], outputs: Int) -> [[UInt8]] {
        precondition(outputs == 2 || outputs == 3)
        let tempKey = SHA256.hmac(key: chainingKey, inputKeyMaterial)
        let output1 = SHA256.hmac(key: tempKey, [0x01])
        let output2 = SHA256.hmac(key: tempKey, output1 + [0x02])
        guard outputs == 3 else { return [output1, output2] }
        let output3 = SHA256.hmac(key: tempKey, output2 + [0x03])
        return [output1, output2, output3]
    }
}
