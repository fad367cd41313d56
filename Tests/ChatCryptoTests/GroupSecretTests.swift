import Testing
@testable import ChatCrypto

@Suite struct GroupSecretTests {
    @Test func pskFollowsTheDocumentedDerivation() throws {
        let secret = try GroupSecret(fileContents: Array("correct horse\n".utf8))
        #expect(secret.psk == SHA256.hash(Array("lanchat group psk".utf8) + Array("correct horse".utf8)))
        #expect(secret.psk.count == 32)
    }

    @Test func trailingNewlineIsIgnoredButNothingElse() throws {
        let plain = try GroupSecret(fileContents: Array("word".utf8))
        #expect(try GroupSecret(fileContents: Array("word\n".utf8)).psk == plain.psk)
        #expect(try GroupSecret(fileContents: Array("word\r\n".utf8)).psk == plain.psk)
        #expect(try GroupSecret(fileContents: Array("word ".utf8)).psk != plain.psk)
        #expect(try GroupSecret(fileContents: Array("Word".utf8)).psk != plain.psk)
    }

    @Test func emptyOrHugeFilesAreRefused() {
        #expect(throws: CryptoError.self) { try GroupSecret(fileContents: []) }
        #expect(throws: CryptoError.self) { try GroupSecret(fileContents: [0x0A]) }
        #expect(throws: CryptoError.self) { try GroupSecret(fileContents: [UInt8](repeating: 1, count: 64 * 1024 + 1)) }
    }

    @Test func beaconTagsVerifyOnlyForTheSameSecretAndDatagram() throws {
        let group = try GroupSecret(fileContents: Array("ours".utf8))
        let outsider = try GroupSecret(fileContents: Array("theirs".utf8))
        let datagram = Array(#"{"v":2,"number":7}"#.utf8)
        let tag = group.beaconTag(datagram)
        #expect(tag.count == 32)
        #expect(tag != group.psk)
        #expect(group.isValidBeaconTag(tag, for: datagram))
        #expect(!group.isValidBeaconTag(tag, for: datagram + [0x20]))
        #expect(!outsider.isValidBeaconTag(tag, for: datagram))
        #expect(!group.isValidBeaconTag(Array(tag.prefix(31)), for: datagram))
    }
}
