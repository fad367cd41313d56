import ChatCore
@testable import ChatCrypto
import ChatWire
import Testing
import TestSupport

/// Frames on a link as protocol v2 carries them: each one sealed into a
/// record, the records length-prefixed (`RecordFrameDecoder`), and read
/// back the way `P2PService.readFrames` does (split, open, decode), fed
/// whole, byte by byte and in random chunks.
@Suite struct FrameStreamTests {
    typealias F = Fixtures
    static let samples = FrameCodecRoundTripTests.samples
    static let key = [UInt8](repeating: 0x5A, count: 32)

    /// The bytes a sender writes for `payloads`: one record per frame.
    static func stream(_ payloads: [P2PPayload]) throws -> [UInt8] {
        var sender = RecordCipher(key: key)
        var bytes: [UInt8] = []
        for payload in payloads {
            let record = try sender.seal(Array(P2PFrameCodec.encode(payload).dropLast()))
            bytes += try RecordFrameDecoder.frame(record)
        }
        return bytes
    }

    /// The reading side of one link.
    struct Reader {
        var records = RecordFrameDecoder()
        var cipher = RecordCipher(key: FrameStreamTests.key)

        mutating func append(_ bytes: some Collection<UInt8>) throws { try records.append(bytes) }

        mutating func next() throws -> P2PPayload? {
            guard let record = try records.decode() else { return nil }
            return try P2PFrameCodec.decode(try cipher.open(record))
        }

        mutating func drain() throws -> [P2PPayload] {
            var frames: [P2PPayload] = []
            while let frame = try next() { frames.append(frame) }
            return frames
        }
    }

    @Test func manyFramesInOneChunk() throws {
        var reader = Reader()
        try reader.append(try Self.stream(Self.samples))
        #expect(try reader.drain() == Self.samples)
        #expect(reader.records.bufferedByteCount == 0)
    }

    @Test func oneByteAtATime() throws {
        let bytes = try Self.stream(Self.samples)
        var reader = Reader()
        var frames: [P2PPayload] = []
        for byte in bytes {
            try reader.append(CollectionOfOne(byte))
            frames += try reader.drain()
        }
        #expect(frames == Self.samples)
        #expect(reader.records.bufferedByteCount == 0)
    }

    @Test(arguments: [1, 2, 3, 42, 1_000, 65_537])
    func randomChunking(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let bytes = try Self.stream(Self.samples)
        var reader = Reader()
        var frames: [P2PPayload] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...max(1, Int.random(in: 1...400, using: &rng)), using: &rng))
            try reader.append(bytes[start..<end])
            frames += try reader.drain()
            start = end
        }
        #expect(frames == Self.samples)
    }

    @Test func randomChunkingOfALongStream() throws {
        // 2,000 frames, taken a few at a time while more bytes arrive.
        var rng = SeededRandom(seed: 99)
        var ids = MessageIDGenerator()
        let payloads = (0..<2_000).map { n in
            var frame = Self.samples[n % Self.samples.count]
            frame.messageId = ids.next(millis: F.t0, using: &rng)
            return frame
        }
        let bytes = try Self.stream(payloads)
        var reader = Reader()
        var decoded: [P2PPayload] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...3_000, using: &rng))
            try reader.append(bytes[start..<end])
            for _ in 0..<Int.random(in: 0...3, using: &rng) {
                guard let frame = try reader.next() else { break }
                decoded.append(frame)
            }
            start = end
        }
        decoded += try reader.drain()
        #expect(decoded == payloads)
    }

    @Test func aMalformedFrameInARecordIsNamedAndTheNextStillReads() throws {
        // A record that opens to bad JSON: the codec names it; the records
        // after it are unaffected (P2PService counts and tolerates a few).
        var sender = RecordCipher(key: Self.key)
        let good = Array(P2PFrameCodec.encode(Self.samples[1]).dropLast())
        var bytes = try RecordFrameDecoder.frame(try sender.seal(Array(#"{"version":2,"#.utf8)))
        bytes += try RecordFrameDecoder.frame(try sender.seal(good))
        var reader = Reader()
        try reader.append(bytes)
        #expect(throws: FrameError.notJSON) { try reader.next() }
        #expect(try reader.next() == Self.samples[1])
    }
}
