import ChatCore
@testable import ChatCrypto
import Foundation
import Testing
import TestSupport

/// Safety numbers: docs/PROTOCOL.md's vector (also checked by
/// scripts/conformance.py with hashlib), the same string from both sides,
/// and SHA-512 itself against FIPS 180-2's example.
@Suite struct SafetyNumberTests {
    struct Vector: Decodable {
        var keys: [String]
        var numbers: [UInt64]
        var halves: [String]
        var safetyNumber: String
    }

    static func documentedVector() throws -> Vector {
        let text = try ProjectDocument.wireProtocol.text()
        let section = try #require(text.components(separatedBy: "<!-- lanchat-safety-number-vector:begin -->").dropFirst().first?
            .components(separatedBy: "<!-- lanchat-safety-number-vector:end -->").first)
        let json = try #require(section.components(separatedBy: "```text\n").dropFirst().first?.components(separatedBy: "```").first)
        return try JSONDecoder().decode(Vector.self, from: Data(json.utf8))
    }

    @Test func sha512MatchesTheFIPSExample() {
        #expect(hexString(SHA512.hash(Array("abc".utf8))) ==
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    @Test func theDocumentedVectorIsWhatTheCodeComputes() throws {
        let vector = try Self.documentedVector()
        let keys = try vector.keys.map { try IdentityKey.Public(rawValue: hex($0)) }
        #expect(keys.map(\.nodeNumber.rawValue) == vector.numbers)
        #expect(keys.map { SafetyNumber.half(key: $0) } == vector.halves)
        #expect(SafetyNumber.compute(keys[0], keys[1]) == vector.safetyNumber)
        #expect(SafetyNumber.compute(keys[1], keys[0]) == vector.safetyNumber, "the same on both screens")
        let encoded = keys.map { Data($0.rawValue).base64EncodedString() }
        #expect(SafetyNumber.compute(encoded: encoded[1], encoded[0]) == vector.safetyNumber)
    }

    @Test func sixtyDigitsInTwelveGroupsAndAnotherKeyChangesThem() throws {
        let a = try IdentityKey.generate().publicKey, b = try IdentityKey.generate().publicKey, c = try IdentityKey.generate().publicKey
        let number = SafetyNumber.compute(a, b)
        let groups = number.split(separator: " ")
        #expect(groups.count == 12 && groups.allSatisfy { $0.count == 5 && $0.allSatisfy(\.isNumber) })
        #expect(SafetyNumber.compute(a, c) != number)
        #expect(SafetyNumber.compute(encoded: "not base64", Data(a.rawValue).base64EncodedString()) == nil)
    }
}
