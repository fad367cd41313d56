import CCrypto

/// Random bytes from libcrypto's CSPRNG (RAND_bytes).
public enum SecureRandom {
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let result = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        try LibCrypto.check(result, "RAND_bytes")
        return out
    }
}
