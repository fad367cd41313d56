/// Noise CipherState (spec rev 34, section 5.1): a key (or none) and a
/// 64-bit nonce counter that only moves forward.
public struct CipherState: Sendable {
    /// Past this the key is used up; 2^64-1 is reserved by the spec.
    static let maxNonce = UInt64.max

    private(set) var key: [UInt8]?
    private(set) var nonce: UInt64 = 0

    init(key: [UInt8]? = nil) { self.key = key }

    var hasKey: Bool { key != nil }

    mutating func initializeKey(_ key: [UInt8]) {
        self.key = key
        nonce = 0
    }

    /// Without a key, the plaintext is returned as is (as the spec says).
    mutating func encryptWithAd(_ ad: [UInt8], _ plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let key else { return plaintext }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        let ciphertext = try ChaChaPoly.seal(key: key, counter: nonce, associatedData: ad, plaintext: plaintext)
        nonce += 1
        return ciphertext
    }

    /// On failure the nonce does not advance (the spec's rule); callers
    /// abandon the session anyway.
    mutating func decryptWithAd(_ ad: [UInt8], _ ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let key else { return ciphertext }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        let plaintext = try ChaChaPoly.open(key: key, counter: nonce, associatedData: ad, ciphertext: ciphertext)
        nonce += 1
        return plaintext
    }
}
