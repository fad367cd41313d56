import ChatCore
import Testing
@testable import ChatCrypto

@Suite struct IdentityKeyTests {
    @Test func fileRoundTrip() throws {
        let key = try IdentityKey.generate()
        #expect(key.fileContents.count == 32)
        let loaded = try IdentityKey(fileContents: key.fileContents)
        #expect(loaded.publicKey == key.publicKey)
        #expect(loaded.nodeNumber == key.nodeNumber)
        #expect(throws: CryptoError.self) { try IdentityKey(fileContents: key.fileContents + [0]) }
        #expect(throws: CryptoError.self) { try IdentityKey(fileContents: []) }
    }

    @Test func signaturesVerifyOnlyForTheirKeyAndMessage() throws {
        let key = try IdentityKey.generate()
        let other = try IdentityKey.generate()
        let signature = try key.sign([1, 2, 3])
        #expect(key.publicKey.isValidSignature(signature, for: [1, 2, 3]))
        #expect(!key.publicKey.isValidSignature(signature, for: [1, 2, 4]))
        #expect(!other.publicKey.isValidSignature(signature, for: [1, 2, 3]))
    }

    @Test func nodeNumberFollowsTheDocumentedDerivation() throws {
        // RFC 8032 TEST 1 key: pinned so the derivation cannot drift.
        let key = try IdentityKey(seed: hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        #expect(hexString(key.publicKey.rawValue) == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let digest = SHA256.hash(Array("lanchat node number".utf8) + key.publicKey.rawValue)
        let expected = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } & ((1 << 53) - 1)
        #expect(key.nodeNumber.rawValue == expected)
        #expect(key.nodeNumber.shortTag == String(expected & 0xFFFF, radix: 16).leftPadded(to: 4))
    }

    @Test func nodeNumbersStayInRange() throws {
        for _ in 0..<200 {
            let number = try IdentityKey.generate().nodeNumber
            #expect(NodeNumber.validRange.contains(number.rawValue))
        }
    }

    @Test func fingerprintIsEightGroupsOfHex() throws {
        let key = try IdentityKey(seed: [UInt8](repeating: 3, count: 32))
        let fingerprint = key.publicKey.fingerprint
        let groups = fingerprint.split(separator: " ")
        #expect(groups.count == 8 && groups.allSatisfy { $0.count == 4 })
        #expect(fingerprint.replacingOccurrences(of: " ", with: "") == hexString(Array(SHA256.hash(key.publicKey.rawValue).prefix(16))))
    }

    @Test func publicKeyNeeds32Bytes() {
        #expect(throws: CryptoError.self) { try IdentityKey.Public(rawValue: [1]) }
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
