import CCrypto

/// SHA-256 and HMAC-SHA256 through libcrypto (EVP_Digest, HMAC).
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = data.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_sha256(), nil) }
        }
        // SHA-256 of bytes in memory cannot fail short of memory exhaustion.
        precondition(result == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return out
    }

    public static func hmac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { k in
            data.withUnsafeBytes { d in
                out.withUnsafeMutableBufferPointer {
                    HMAC(EVP_sha256(), k.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(k.count),
                         d.baseAddress?.assumingMemoryBound(to: UInt8.self), d.count, $0.baseAddress, &length)
                }
            }
        }
        precondition(result != nil && length == 32, "HMAC(SHA-256) failed")
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
