import ChatCore

/// Splits a byte stream into newline-terminated lines, with a hard maximum
/// line length enforced as bytes arrive, so a peer that never sends "\n"
/// cannot make us buffer more than `maxLineLength` bytes.
///
/// A line's length excludes its "\n" (and one "\r" before it, tolerated).
/// Empty lines are skipped. Once `append` throws, the stream is unusable:
/// the caller closes the link.
public struct LineFrameDecoder: Sendable {
    public let maxLineLength: Int
    private var buffer: [UInt8] = []
    /// Start of the first undelivered byte in `buffer`.
    private var readIndex = 0
    /// Bytes of the unterminated line at the end of `buffer`.
    private var partialLength = 0
    /// Complete lines waiting in `buffer`, as end indices of their "\n".
    private var lineEnds: [Int] = []
    private var lineEndsHead = 0

    public init(maxLineLength: Int) {
        precondition(maxLineLength > 0)
        self.maxLineLength = maxLineLength
    }

    /// Bytes held that have not been returned as lines yet.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes. Throws `.lineTooLong` if a line in them (or the
    /// unterminated rest) would exceed the limit; nothing is buffered then.
    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(FrameError) {
        // Called from other modules, this generic is not specialised: scan a
        // contiguous buffer rather than iterate the collection byte by byte
        // through its witness table (which cost more than the JSON itself).
        let failure = bytes.withContiguousStorageIfAvailable { appendContiguous($0) }
            ?? Array(bytes).withUnsafeBufferPointer { appendContiguous($0) }
        if let failure { throw failure }
    }

    /// `append` on contiguous bytes; the error is returned, not thrown.
    private mutating func appendContiguous(_ bytes: UnsafeBufferPointer<UInt8>) -> FrameError? {
        // Scan first, so an over-long line is refused before it is stored.
        var newlineOffsets: [Int] = []
        var run = partialLength
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            if byte == 0x0A {
                newlineOffsets.append(offset)
                run = 0
            } else {
                run += 1
                // One "\r" past the limit may still be the start of "\r\n",
                // which does not count; any other byte there is too many.
                if run > maxLineLength && !(run == maxLineLength + 1 && byte == 0x0D) {
                    return .lineTooLong(limit: maxLineLength)
                }
            }
        }
        compactIfWorthIt()
        let base = buffer.count
        buffer.append(contentsOf: bytes)
        for newline in newlineOffsets { lineEnds.append(base + newline) }
        partialLength = run
        return nil
    }

    /// The next complete line without its terminator, or nil when more
    /// bytes are needed.
    public mutating func nextLine() -> ArraySlice<UInt8>? {
        while lineEndsHead < lineEnds.count {
            let end = lineEnds[lineEndsHead]
            lineEndsHead += 1
            var lineEnd = end
            if lineEnd > readIndex, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = buffer[readIndex..<lineEnd]
            readIndex = end + 1
            if !line.isEmpty { return line }
        }
        return nil
    }

    /// Drops delivered bytes once they are at least half the buffer, so
    /// copying stays amortised O(1) per byte.
    private mutating func compactIfWorthIt() {
        if lineEndsHead == lineEnds.count {
            lineEnds.removeAll(keepingCapacity: true)
            lineEndsHead = 0
        }
        guard readIndex > 0, readIndex * 2 >= buffer.count else { return }
        lineEnds.removeFirst(lineEndsHead)
        lineEndsHead = 0
        buffer.removeSubrange(0..<readIndex)
        for index in lineEnds.indices { lineEnds[index] -= readIndex }
        readIndex = 0
    }
}
