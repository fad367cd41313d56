/// The key that seals a private group's beacons (PROTOCOL.md 2.6), so that
/// only members read who is at an address: ChaChaPoly (RFC 8439) with a
/// random 12-byte nonce per beacon, under
///
///     seal key = HKDF-SHA256(ikm = beacon key, salt = "", info = "lanchat sealed beacon v2", 32 bytes)
///
/// where the beacon key is `GroupSecret`'s (SHA-256("lanchat group beacon" || C)).
/// A key of its own, apart from the psk: a beacon reveals nothing about it.
public struct BeaconSealKey: Sendable {
    public static let info = Array("lanchat sealed beacon v2".utf8)
    public static let nonceByteCount = 12

    let key: [UInt8]

    public init(_ secret: GroupSecret) throws(CryptoError) {
        key = try HKDF.sha256(ikm: secret.beaconKey, info: Self.info, length: ChaChaPoly.keyByteCount)
    }

    /// Ciphertext || 16-byte tag.
    public func seal(nonce: [UInt8], associatedData: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try LibCrypto.requireLength(nonce, Self.nonceByteCount, "beacon nonce")
        return try ChaChaPoly.seal(key: key, nonce: nonce, associatedData: associatedData, plaintext: plaintext)
    }

    /// Throws `.authenticationFailed` for another group's key, a changed
    /// byte, or other associated data (a beacon sent again from elsewhere).
    public func open(nonce: [UInt8], associatedData: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try LibCrypto.requireLength(nonce, Self.nonceByteCount, "beacon nonce")
        return try ChaChaPoly.open(key: key, nonce: nonce, associatedData: associatedData, ciphertext: ciphertext)
    }
}
