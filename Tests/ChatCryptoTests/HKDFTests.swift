import ChatCrypto
import Testing

/// HKDF-SHA256 through libcrypto gives RFC 5869's published outputs.
@Suite struct HKDFTests {
    private func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    @Test func rfc5869TestCase1() throws {
        let okm = try HKDF.sha256(ikm: [UInt8](repeating: 0x0B, count: 22), salt: bytes("000102030405060708090a0b0c"),
                                  info: bytes("f0f1f2f3f4f5f6f7f8f9"), length: 42)
        #expect(okm == bytes("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    @Test func rfc5869TestCase3EmptySaltAndInfo() throws {
        let okm = try HKDF.sha256(ikm: [UInt8](repeating: 0x0B, count: 22), info: [], length: 42)
        #expect(okm == bytes("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    }

    @Test func aLengthOutOfRangeIsRefused() {
        #expect(throws: CryptoError.self) { try HKDF.sha256(ikm: [1], info: [], length: 0) }
    }
}
