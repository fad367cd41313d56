import CCrypto

/// SHA-512 through libcrypto (EVP_Digest), fetched once as `SHA256` is.
/// Used by safety numbers (`SafetyNumber`), which iterate it thousands of times.
public enum SHA512 {
    public static let byteCount = 64

    nonisolated(unsafe) private static let digest: OpaquePointer? = EVP_MD_fetch(nil, "SHA512", nil) ?? EVP_sha512()

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = data.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, digest, nil) }
        }
        // SHA-512 of bytes in memory cannot fail short of memory exhaustion.
        precondition(result == 1 && length == 64, "EVP_Digest(SHA-512) failed")
        return out
    }
}
