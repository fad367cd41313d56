import Testing
@testable import ChatCrypto

/// The key stays loaded in one libcrypto context per CipherState; each
/// record sets only the nonce. These check that this gives exactly the
/// bytes a fresh context per record gives, in both directions, across
/// copies, and for the framed form a link writes.
@Suite struct CipherContextTests {
    static let key = (0..<32).map { UInt8($0 &* 7 &+ 3) }

    @Test func stackNonceMatchesTheArrayNonce() throws {
        for counter: UInt64 in [0, 1, 255, 256, 0xFFFF_FFFF, 0x1_0000_0000, 0x0102_0304_0506_0708, .max - 1] {
            let bytes = try ChaChaPoly.withNonce(counter: counter) { Array($0) }
            #expect(bytes == ChaChaPoly.nonce(counter: counter))
        }
    }

    @Test func reusedContextSealsWhatOneShotSeals() throws {
        var state = CipherState(key: Self.key)
        for counter in 0..<UInt64(40) {
            let ad = counter % 3 == 0 ? [] : Array("ad \(counter)".utf8)
            let plaintext = (0..<Int(counter * 37 % 300)).map { UInt8(truncatingIfNeeded: $0 &+ Int(counter)) }
            let sealed = try state.encryptWithAd(ad, plaintext)
            #expect(sealed == (try ChaChaPoly.seal(key: Self.key, counter: counter, associatedData: ad, plaintext: plaintext)))
        }
        #expect(state.nonce == 40)
    }

    @Test func oneStateSwitchesDirectionAsAHandshakeDoes() throws {
        // A handshake's CipherState may seal and open with one key: the
        // loaded context must follow the direction of each call.
        var state = CipherState(key: Self.key)
        for counter in 0..<UInt64(12) {
            let text = Array("message \(counter)".utf8)
            let ad: [UInt8] = [UInt8(counter), 1]
            let reference = try ChaChaPoly.seal(key: Self.key, counter: counter, associatedData: ad, plaintext: text)
            if counter % 3 == 0 {
                #expect(try state.encryptWithAd(ad, text) == reference)
            } else {
                #expect(try state.decryptWithAd(ad, reference) == text)
            }
        }
    }

    @Test func failedOpenLeavesTheContextUsable() throws {
        var sender = CipherState(key: Self.key)
        var receiver = CipherState(key: Self.key)
        var record = try sender.encryptWithAd([], Array("meet at 5".utf8))
        record[3] ^= 1
        #expect(throws: CryptoError.authenticationFailed) { try receiver.decryptWithAd([], record) }
        #expect(receiver.nonce == 0)
        record[3] ^= 1
        #expect(try receiver.decryptWithAd([], record) == Array("meet at 5".utf8))
    }

    @Test func copiesAreIndependentValues() throws {
        var original = CipherState(key: Self.key)
        _ = try original.encryptWithAd([], [1])
        var copy = original
        let fromCopy = try copy.encryptWithAd([], [2, 3])
        let fromOriginal = try original.encryptWithAd([], [2, 3])
        #expect(fromCopy == fromOriginal)
        #expect(copy.nonce == 2 && original.nonce == 2)
        // Each goes on on its own.
        _ = try copy.encryptWithAd([], [4])
        #expect(copy.nonce == 3 && original.nonce == 2)
    }

    @Test func copiesUsedOnSeveralThreadsAtOnce() async throws {
        let base = CipherState(key: Self.key)
        let expected = try (0..<UInt64(200)).map { try ChaChaPoly.seal(key: Self.key, counter: $0, associatedData: [], plaintext: [7, 7]) }
        try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var mine = base
                    return try (0..<200).map { _ in try mine.encryptWithAd([], [7, 7]) }
                }
            }
            for try await records in group { #expect(records == expected) }
        }
    }

    @Test func framedSealAppendsHeaderAndRecord() throws {
        var (a, b) = try RecordCipherTests.transports()
        var output: [UInt8] = [0xAA]
        let texts = [[UInt8](), Array("hello".utf8), [UInt8](repeating: 9, count: 300)]
        for text in texts {
            try text.withUnsafeBytes { try a.sealFramed($0, appendingTo: &output) }
        }
        #expect(output.first == 0xAA)
        var decoder = RecordFrameDecoder()
        try decoder.append(output.dropFirst())
        for text in texts {
            let record = try #require(try decoder.decode())
            #expect(record.count == text.count + ChaChaPoly.tagByteCount)
            #expect(try b.open(record) == text)
        }
        #expect(try decoder.decode() == nil)
        #expect(a.sender.recordCount == 3)
    }

    @Test func framedSealRefusesOversizeAndAppendsNothing() throws {
        var (a, b) = try RecordCipherTests.transports()
        var output: [UInt8] = [1, 2]
        let tooLong = [UInt8](repeating: 0, count: RecordCipher.maxPlaintextLength + 1)
        #expect(throws: CryptoError.messageTooLarge(limit: RecordCipher.maxPlaintextLength, got: tooLong.count)) {
            try tooLong.withUnsafeBytes { try a.sealFramed($0, appendingTo: &output) }
        }
        #expect(output == [1, 2])
        // Refused before sealing: the nonce did not move, the cipher still works.
        try [UInt8]([5]).withUnsafeBytes { try a.sealFramed($0, appendingTo: &output) }
        #expect(output.count == 2 + 2 + 17)
        #expect(a.sender.recordCount == 1)
        #expect(try b.open(Array(output.dropFirst(4))) == [5])
    }
}
