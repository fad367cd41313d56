/// Noise SymmetricState (spec rev 34, section 5.2) for SHA-256: the
/// chaining key, the handshake hash and the current CipherState.
struct SymmetricState: Sendable {
    private(set) var chainingKey: [UInt8]
    private(set) var handshakeHash: [UInt8]
    private(set) var cipher = CipherState()

    init(protocolName: String) {
        let name = Array(protocolName.utf8)
        // Names up to HASHLEN bytes are zero-padded, longer ones hashed.
        handshakeHash = name.count <= SHA256.byteCount
            ? name + [UInt8](repeating: 0, count: SHA256.byteCount - name.count)
            : SHA256.hash(name)
        chainingKey = handshakeHash
    }

    mutating func mixKey(_ inputKeyMaterial: [UInt8]) {
        let outputs = NoiseHKDF.derive(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputs: 2)
        chainingKey = outputs[0]
        cipher.initializeKey(outputs[1])
    }

    mutating func mixHash(_ data: [UInt8]) {
        handshakeHash = SHA256.hash(handshakeHash + data)
    }

    mutating func mixKeyAndHash(_ inputKeyMaterial: [UInt8]) {
        let outputs = NoiseHKDF.derive(chainingKey: chainingKey, inputKeyMaterial: inputKeyMaterial, outputs: 3)
        chainingKey = outputs[0]
        mixHash(outputs[1])
        cipher.initializeKey(outputs[2])
    }

    mutating func encryptAndHash(_ plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        let ciphertext = try cipher.encryptWithAd(handshakeHash, plaintext)
        mixHash(ciphertext)
        return ciphertext
    }

    mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        let plaintext = try cipher.decryptWithAd(handshakeHash, ciphertext)
        mixHash(ciphertext)
        return plaintext
    }

    var hasKey: Bool { cipher.hasKey }

    /// The two transport keys: first for initiator -> responder.
    func split() -> (initiatorToResponder: [UInt8], responderToInitiator: [UInt8]) {
        let outputs = NoiseHKDF.derive(chainingKey: chainingKey, inputKeyMaterial: [], outputs: 2)
        return (outputs[0], outputs[1])
    }
}
