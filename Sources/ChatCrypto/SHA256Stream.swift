import CCrypto

/// SHA-256 of a stream of bytes fed piece by piece (a file read or received
/// in records), through libcrypto's EVP digest context. One owner at a
/// time: not Sendable, the context is mutable C state.
public final class SHA256Stream {
    private let context: OpaquePointer

    public init() {
        // Allocation or init failing means libcrypto is out of memory or
        // broken; nothing sensible is left to do.
        guard let context = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new failed") }
        self.context = context
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(SHA-256) failed")
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "EVP_DigestUpdate failed")
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest; the stream is spent afterwards.
    public func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        let result = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(result == 1 && length == 32, "EVP_DigestFinal_ex failed")
        return out
    }

    /// Lowercase hex of a digest.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
