import ChatCore
import Testing
import TestSupport
@testable import ChatCrypto

@Suite struct RecordFrameDecoderTests {
    static let bodies: [[UInt8]] = [16, 17, 100, 255, 256, 4096, 65_535].map { size in
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) }
    }

    static func drain(_ decoder: inout RecordFrameDecoder) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let frame = try decoder.decode() { out.append(frame) }
        return out
    }

    @Test func frameHasBigEndianLength() throws {
        let frame = try RecordFrameDecoder.frame([UInt8](repeating: 0xAA, count: 0x0122))
        #expect(Array(frame.prefix(2)) == [0x01, 0x22])
        #expect(frame.count == 0x0124)
        #expect(throws: CryptoError.self) { try RecordFrameDecoder.frame([UInt8](repeating: 0, count: 65_536)) }
    }

    @Test func manyFramesInOneChunk() throws {
        var decoder = RecordFrameDecoder()
        try decoder.append(Self.bodies.flatMap { try RecordFrameDecoder.frame($0) })
        #expect(try Self.drain(&decoder) == Self.bodies)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func oneByteAtATime() throws {
        var decoder = RecordFrameDecoder()
        var out: [[UInt8]] = []
        for byte in try Self.bodies.prefix(5).flatMap({ try RecordFrameDecoder.frame($0) }) {
            try decoder.append([byte])
            out += try Self.drain(&decoder)
        }
        #expect(out == Array(Self.bodies.prefix(5)))
    }

    @Test(arguments: 1...20)
    func randomChunking(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed))
        let stream = try Self.bodies.flatMap { try RecordFrameDecoder.frame($0) }
        var decoder = RecordFrameDecoder()
        var out: [[UInt8]] = []
        var index = 0
        while index < stream.count {
            let end = min(stream.count, index + Int.random(in: 1...9000, using: &random))
            try decoder.append(stream[index..<end])
            out += try Self.drain(&decoder)
            index = end
        }
        #expect(out == Self.bodies)
    }

    /// Frames lent by `withNextFrame` (the link's path) are the ones
    /// `decode` copies out, under any chunking and with the two mixed.
    @Test(arguments: 1...10)
    func lentFramesMatchDecodedOnes(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &+ 100)
        let stream = try Self.bodies.flatMap { try RecordFrameDecoder.frame($0) }
        var decoder = RecordFrameDecoder()
        var out: [[UInt8]] = []
        var index = 0
        var lend = true
        while index < stream.count {
            let end = min(stream.count, index + Int.random(in: 1...9000, using: &random))
            try decoder.append(stream[index..<end])
            while true {
                let frame: [UInt8]? = lend ? try decoder.withNextFrame { Array($0) } : try decoder.decode()
                guard let frame else { break }
                out.append(frame)
                lend.toggle()
            }
            index = end
        }
        #expect(out == Self.bodies)
        #expect(decoder.bufferedByteCount == 0)
        // A bad header throws from the lending path too.
        var broken = RecordFrameDecoder()
        #expect(throws: CryptoError.self) { try broken.append([0x00, 0x05, 1, 2, 3, 4, 5]) }
        #expect(throws: CryptoError.self) { _ = try broken.withNextFrame { $0.count } }
    }

    @Test func truncatedFrameNeedsMore() throws {
        var decoder = RecordFrameDecoder()
        let frame = try RecordFrameDecoder.frame([UInt8](repeating: 1, count: 40))
        try decoder.append(frame.dropLast())
        #expect(try decoder.decode() == nil)
        try decoder.append([0])
        #expect(try decoder.decode() == Array(repeating: 1, count: 39) + [0])
        try decoder.append([0x00])
        #expect(try decoder.decode() == nil)
    }

    @Test func undersizeFrameIsMalformed() throws {
        var decoder = RecordFrameDecoder()
        #expect(throws: CryptoError.self) { try decoder.append([0x00, 0x0F]) }
        #expect(throws: CryptoError.self) { try decoder.decode() }
        var empty = RecordFrameDecoder()
        #expect(throws: CryptoError.self) { try empty.append([0x00, 0x00]) }
    }

    @Test func oversizeFrameIsRefusedFromItsHeader() throws {
        var decoder = RecordFrameDecoder(maxFrameLength: 1024)
        // Only the header has arrived: refused before any body is held.
        #expect(throws: CryptoError.malformedRecord("frame of 1025 bytes is over the 1024-byte limit")) {
            try decoder.append([0x04, 0x01])
        }
        var later = RecordFrameDecoder(maxFrameLength: 1024)
        try later.append(try RecordFrameDecoder.frame([UInt8](repeating: 0, count: 20)) + [0xFF])
        #expect(throws: CryptoError.self) { try later.append([0xFF]) }
    }
}
