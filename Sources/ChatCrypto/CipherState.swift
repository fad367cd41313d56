/// Noise CipherState (spec rev 34, section 5.1): a key (or none) and a
/// 64-bit nonce counter that only moves forward. The key stays loaded in
/// one libcrypto context for as long as it is the key (a link's transport
/// ciphers use one key for their whole life); each record sets only the
/// nonce. A copy shares the context until either side uses it, which then
/// loads the key into a context of its own (copy on write).
public struct CipherState: Sendable {
    /// Past this the key is used up; 2^64-1 is reserved by the spec.
    static let maxNonce = UInt64.max

    private var context: ChaChaPolyContext?
    /// Set when the key could not be loaded (libcrypto out of memory):
    /// thrown by the next use, as a per-record failure would have been.
    private var loadFailure: CryptoError?
    private(set) var nonce: UInt64 = 0

    init(key: [UInt8]? = nil) {
        if let key { load(key) }
    }

    var key: [UInt8]? { context?.key }
    var hasKey: Bool { context != nil || loadFailure != nil }

    mutating func initializeKey(_ key: [UInt8]) {
        load(key)
        nonce = 0
    }

    private mutating func load(_ key: [UInt8]) {
        do throws(CryptoError) {
            context = try ChaChaPolyContext(key: key)
            loadFailure = nil
        } catch {
            context = nil
            loadFailure = error
        }
    }

    /// The context to use now, this value's own (copied if shared).
    private mutating func ownContext() throws(CryptoError) -> ChaChaPolyContext? {
        if let loadFailure { throw loadFailure }
        guard context != nil else { return nil }
        if !isKnownUniquelyReferenced(&context!) { context = try context!.copy() }
        return context
    }

    /// Without a key, the plaintext is returned as is (as the spec says).
    mutating func encryptWithAd(_ ad: [UInt8], _ plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(plaintext.count + ChaChaPoly.tagByteCount)
        // Array's withUnsafeBytes only rethrows untyped errors: carry ours in a Result.
        let keyed = plaintext.withUnsafeBytes { plaintext in
            Result { () throws(CryptoError) -> Bool in try encryptWithAd(ad, plaintext, appendingTo: &out) }
        }
        return try keyed.get() ? out : plaintext
    }

    /// Appends ciphertext || tag to `output`; false (nothing appended)
    /// when there is no key, so the caller uses the plaintext as is.
    mutating func encryptWithAd(_ ad: [UInt8], _ plaintext: UnsafeRawBufferPointer,
                                appendingTo output: inout [UInt8]) throws(CryptoError) -> Bool {
        guard let context = try ownContext() else { return false }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        try ChaChaPoly.withNonce(counter: nonce) { (nonce) throws(CryptoError) in
            try ad.withUnsafeBytes { ad in
                Result { () throws(CryptoError) in
                    try context.seal(nonce: nonce, associatedData: ad, plaintext: plaintext, appendingTo: &output)
                }
            }.get()
        }
        nonce += 1
        return true
    }

    /// On failure the nonce does not advance (the spec's rule); callers
    /// abandon the session anyway.
    mutating func decryptWithAd(_ ad: [UInt8], _ ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try ciphertext.withUnsafeBytes { ciphertext in Result { () throws(CryptoError) in try decryptWithAd(ad, ciphertext) } }.get()
    }

    /// `decryptWithAd` on bytes lent by the caller (a decoder's buffer).
    mutating func decryptWithAd(_ ad: [UInt8], _ ciphertext: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        guard let context = try ownContext() else { return Array(ciphertext) }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        let plaintext = try ChaChaPoly.withNonce(counter: nonce) { (nonce) throws(CryptoError) -> [UInt8] in
            try ad.withUnsafeBytes { ad in
                Result { () throws(CryptoError) -> [UInt8] in try context.open(nonce: nonce, associatedData: ad, ciphertext: ciphertext) }
            }.get()
        }
        nonce += 1
        return plaintext
    }

    /// `decryptWithAd` with no associated data into the caller's buffer
    /// (`ChaChaPolyContext.open(nonce:ciphertext:into:)`): the plaintext's length.
    mutating func decrypt(_ ciphertext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Int {
        guard let context = try ownContext() else {
            guard output.count >= ciphertext.count else { throw .invalidLength(what: "plaintext room", expected: ciphertext.count, got: output.count) }
            if ciphertext.count > 0 { output.baseAddress!.copyMemory(from: ciphertext.baseAddress!, byteCount: ciphertext.count) }
            return ciphertext.count
        }
        guard nonce < Self.maxNonce else { throw .nonceExhausted }
        let count = try ChaChaPoly.withNonce(counter: nonce) { (nonce) throws(CryptoError) -> Int in
            try context.open(nonce: nonce, ciphertext: ciphertext, into: output)
        }
        nonce += 1
        return count
    }
}
