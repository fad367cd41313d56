/// One direction of an encrypted link after the Noise handshake: a
/// ChaCha20-Poly1305 key and a nonce counter that moves up by one per
/// record. Records carry no nonce on the wire, so a replayed, reordered,
/// dropped or tampered record fails to open; after any failure the cipher
/// refuses all further use and the link must close.
public struct RecordCipher: Sendable {
    /// Largest record (ciphertext plus tag) Noise allows.
    public static let maxRecordLength = NoiseHandshake.maxMessageLength
    /// Largest plaintext one record can carry.
    public static let maxPlaintextLength = maxRecordLength - ChaChaPoly.tagByteCount

    private var state: CipherState
    private var failed = false

    init(key: [UInt8]) { state = CipherState(key: key) }

    /// Records sealed or opened so far (the next nonce).
    public var recordCount: UInt64 { state.nonce }

    /// Encrypts one record (ciphertext || 16-byte tag, no length prefix).
    public mutating func seal(_ plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard !failed else { throw .cipherFailed }
        guard plaintext.count <= Self.maxPlaintextLength else {
            throw .messageTooLarge(limit: Self.maxPlaintextLength, got: plaintext.count)
        }
        do throws(CryptoError) {
            return try state.encryptWithAd([], plaintext)
        } catch {
            failed = true
            throw error
        }
    }

    /// Seals one record and appends it to `output` with its 2-byte length
    /// header (`RecordFrameDecoder`'s framing): the bytes a link writes,
    /// with no array per record. On error nothing is appended.
    public mutating func sealFramed(_ plaintext: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) throws(CryptoError) {
        guard !failed else { throw .cipherFailed }
        guard plaintext.count <= Self.maxPlaintextLength else {
            throw .messageTooLarge(limit: Self.maxPlaintextLength, got: plaintext.count)
        }
        let recordLength = plaintext.count + ChaChaPoly.tagByteCount
        output.append(UInt8(recordLength >> 8))
        output.append(UInt8(recordLength & 0xFF))
        do throws(CryptoError) {
            _ = try state.encryptWithAd([], plaintext, appendingTo: &output)
        } catch {
            output.removeLast(RecordFrameDecoder.headerLength)
            failed = true
            throw error
        }
    }

    /// Decrypts the next record; throws `.authenticationFailed` for anything
    /// but the exact next record of the peer's sender.
    public mutating func open(_ record: [UInt8]) throws(CryptoError) -> [UInt8] {
        try record.withUnsafeBytes { record in Result { () throws(CryptoError) in try open(record) } }.get()
    }

    /// `open` on bytes lent by the caller (`RecordFrameDecoder.withNextFrame`).
    public mutating func open(_ record: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        guard !failed else { throw .cipherFailed }
        do throws(CryptoError) {
            guard record.count <= Self.maxRecordLength else {
                throw CryptoError.messageTooLarge(limit: Self.maxRecordLength, got: record.count)
            }
            return try state.decryptWithAd([], record)
        } catch {
            failed = true
            throw error
        }
    }

    /// `open` into the caller's buffer (at least the record's length less
    /// the tag; may be the record's own bytes): the plaintext's length.
    /// No array per record, for a reader that keeps its buffers.
    public mutating func open(_ record: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Int {
        guard !failed else { throw .cipherFailed }
        do throws(CryptoError) {
            guard record.count <= Self.maxRecordLength else {
                throw CryptoError.messageTooLarge(limit: Self.maxRecordLength, got: record.count)
            }
            return try state.decrypt(record, into: output)
        } catch {
            failed = true
            throw error
        }
    }
}

/// The two record ciphers of a finished handshake, oriented for this side.
public struct NoiseTransport: Sendable {
    public var sender: RecordCipher
    public var receiver: RecordCipher
    /// The handshake hash: the same on both sides, unique per session.
    public let handshakeHash: [UInt8]

    public mutating func seal(_ plaintext: [UInt8]) throws(CryptoError) -> [UInt8] { try sender.seal(plaintext) }
    public mutating func open(_ record: [UInt8]) throws(CryptoError) -> [UInt8] { try receiver.open(record) }
    public mutating func open(_ record: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] { try receiver.open(record) }
    public mutating func open(_ record: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(CryptoError) -> Int {
        try receiver.open(record, into: output)
    }
    /// Seals one record with its length header onto `output` (see `RecordCipher.sealFramed`).
    public mutating func sealFramed(_ plaintext: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) throws(CryptoError) {
        try sender.sealFramed(plaintext, appendingTo: &output)
    }
}
