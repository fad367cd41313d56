import Testing
@testable import ChatCrypto

@Suite struct RecordCipherTests {
    static func transports() throws -> (NoiseTransport, NoiseTransport) {
        var i = try NoiseHandshake(pattern: .XX, role: .initiator, staticKey: .generate())
        var r = try NoiseHandshake(pattern: .XX, role: .responder, staticKey: .generate())
        _ = try r.readMessage(try i.writeMessage())
        _ = try i.readMessage(try r.writeMessage())
        _ = try r.readMessage(try i.writeMessage())
        return (try i.split(), try r.split())
    }

    @Test func recordsRoundTripInOrder() throws {
        var (a, b) = try Self.transports()
        for size in [0, 1, 15, 16, 240, 4096, RecordCipher.maxPlaintextLength] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let record = try a.seal(plaintext)
            #expect(record.count == size + 16)
            #expect(try b.open(record) == plaintext)
        }
        #expect(a.sender.recordCount == 7 && b.receiver.recordCount == 7)
    }

    @Test func sameTextGivesDifferentRecords() throws {
        var (a, _) = try Self.transports()
        #expect(try a.seal([1, 2, 3]) != a.seal([1, 2, 3]))
    }

    @Test func tamperedRecordFailsAndPoisonsTheCipher() throws {
        var (a, b) = try Self.transports()
        var record = try a.seal(Array("meet at 5".utf8))
        record[8] ^= 0x0C
        #expect(throws: CryptoError.authenticationFailed) { try b.open(record) }
        record[8] ^= 0x0C
        // Even the genuine record is refused now: the link must close.
        #expect(throws: CryptoError.cipherFailed) { try b.open(record) }
    }

    @Test func replayedRecordFails() throws {
        var (a, b) = try Self.transports()
        let record = try a.seal([1])
        #expect(try b.open(record) == [1])
        #expect(throws: CryptoError.authenticationFailed) { try b.open(record) }
    }

    @Test func reorderedOrDroppedRecordFails() throws {
        var (a, b) = try Self.transports()
        let first = try a.seal([1])
        let second = try a.seal([2])
        var copy = b
        #expect(throws: CryptoError.authenticationFailed) { try copy.open(second) }
        #expect(try b.open(first) == [1])
        #expect(try b.open(second) == [2])
    }

    @Test func ownRecordsAndOtherDirectionFail() throws {
        var (a, _) = try Self.transports()
        let record = try a.seal([1])
        #expect(throws: CryptoError.authenticationFailed) { try a.open(record) }
    }

    @Test func recordFromAnotherSessionFails() throws {
        var (a, _) = try Self.transports()
        var (_, d) = try Self.transports()
        #expect(throws: CryptoError.authenticationFailed) { try d.open(try a.seal([1])) }
    }

    @Test func oversizeAndUndersizeRecords() throws {
        var (a, b) = try Self.transports()
        #expect(throws: CryptoError.messageTooLarge(limit: 65_519, got: 65_520)) { try a.seal([UInt8](repeating: 0, count: 65_520)) }
        var copy = b
        #expect(throws: CryptoError.authenticationFailed) { try copy.open([UInt8](repeating: 0, count: 15)) }
        #expect(throws: CryptoError.messageTooLarge(limit: 65_535, got: 65_536)) { try b.open([UInt8](repeating: 0, count: 65_536)) }
    }

    /// `open(_:into:)`, as a transfer link uses it: into another buffer or
    /// in place, the same plaintext as `open`; a tampered record fails and
    /// poisons the cipher there too.
    @Test func openingIntoABufferMatchesOpen() throws {
        var (a, b) = try Self.transports()
        let room = UnsafeMutableRawBufferPointer.allocate(byteCount: RecordCipher.maxPlaintextLength, alignment: 16)
        defer { room.deallocate() }
        for size in [0, 1, 17, 4096, RecordCipher.maxPlaintextLength] {
            let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let record = try a.seal(plaintext)
            let count = try record.withUnsafeBytes { try b.open($0, into: room) }
            #expect(Array(room[0..<count]) == plaintext)
        }
        var inPlace = try a.seal([9, 8, 7])
        let count = try inPlace.withUnsafeMutableBytes { try b.open(UnsafeRawBufferPointer($0), into: $0) }
        #expect(Array(inPlace[0..<count]) == [9, 8, 7])
        var tampered = try a.seal([1, 2, 3])
        tampered[1] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try tampered.withUnsafeBytes { try b.open($0, into: room) } }
        #expect(throws: CryptoError.cipherFailed) { try a.seal([4]).withUnsafeBytes { try b.open($0, into: room) } }
        var (c, d) = try Self.transports()
        #expect(throws: CryptoError.invalidLength(what: "plaintext room", expected: 3, got: 2)) {
            try c.seal([1, 2, 3]).withUnsafeBytes { try d.open($0, into: UnsafeMutableRawBufferPointer(rebasing: room[0..<2])) }
        }
    }
}
