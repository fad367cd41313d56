/// Splits a byte stream into length-prefixed frames: each is a 2-byte
/// big-endian length followed by that many bytes (a Noise handshake message
/// or an encrypted record), as the Noise spec suggests for TCP.
///
///     00 22  <34 bytes>     one frame of 34 bytes
///
/// A frame shorter than `minFrameLength` (16, an AEAD tag) or longer than
/// `maxFrameLength` (at most 65535) is malformed; the limit is checked from
/// the 2-byte header before the body is buffered. `decode` returns nil when
/// more bytes are needed. Once it throws, the stream is unusable.
public struct RecordFrameDecoder: Sendable {
    public static let headerLength = 2
    public static let minFrameLength = ChaChaPoly.tagByteCount

    public let maxFrameLength: Int
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var failed = false

    public init(maxFrameLength: Int = RecordCipher.maxRecordLength) {
        precondition(maxFrameLength >= Self.minFrameLength && maxFrameLength <= RecordCipher.maxRecordLength)
        self.maxFrameLength = maxFrameLength
    }

    /// Bytes held that have not been returned as frames yet.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// The 2-byte header followed by `body`; throws if `body` is out of bounds.
    public static func frame(_ body: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard body.count <= RecordCipher.maxRecordLength else {
            throw .messageTooLarge(limit: RecordCipher.maxRecordLength, got: body.count)
        }
        return [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// Adds received bytes. Throws if a frame header already in them is out
    /// of bounds, so a bad length is refused before its body is held.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(CryptoError) {
        guard !failed else { throw .malformedRecord("the stream already failed") }
        compactIfWorthIt()
        buffer.append(contentsOf: bytes)
        try checkHeaders()
    }

    /// The next complete frame body, or nil when more bytes are needed.
    public mutating func decode() throws(CryptoError) -> [UInt8]? {
        try withNextFrame { Array($0) }
    }

    /// The next complete frame body lent to `body` without a copy (valid
    /// only inside it), or nil when more bytes are needed. A link opens
    /// each record straight from here: one array and one copy fewer per
    /// received record than `decode`.
    public mutating func withNextFrame<R>(_ body: (UnsafeRawBufferPointer) -> R) throws(CryptoError) -> R? {
        guard !failed else { throw .malformedRecord("the stream already failed") }
        guard bufferedByteCount >= Self.headerLength else { return nil }
        let length = try frameLength(at: readIndex)
        guard bufferedByteCount >= Self.headerLength + length else { return nil }
        let start = readIndex + Self.headerLength
        readIndex = start + length
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<start + length])) }
    }

    /// Validates every complete header in the buffer (cheap: one per frame).
    private mutating func checkHeaders() throws(CryptoError) {
        var index = readIndex
        while buffer.count - index >= Self.headerLength {
            index += Self.headerLength + (try frameLength(at: index))
        }
    }

    private mutating func frameLength(at index: Int) throws(CryptoError) -> Int {
        let length = Int(buffer[index]) << 8 | Int(buffer[index + 1])
        guard length >= Self.minFrameLength else {
            failed = true
            throw .malformedRecord("frame of \(length) bytes is shorter than \(Self.minFrameLength)")
        }
        guard length <= maxFrameLength else {
            failed = true
            throw .malformedRecord("frame of \(length) bytes is over the \(maxFrameLength)-byte limit")
        }
        return length
    }

    /// Drops delivered bytes once they are at least half the buffer.
    private mutating func compactIfWorthIt() {
        guard readIndex > 0, readIndex * 2 >= buffer.count else { return }
        buffer.removeFirst(readIndex)
        readIndex = 0
    }
}
