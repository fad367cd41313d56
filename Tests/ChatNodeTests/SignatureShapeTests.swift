import Foundation
import Testing
@testable import ChatNode

/// The cheap check a live public message's signature passes before it is
/// stored (verified only before relaying): standard, canonical base64 of
/// exactly 64 bytes, without decoding it.
@Suite struct SignatureShapeTests {
    @Test func base64Of64BytesIsSignatureShaped() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let bytes = (0..<64).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = Data(bytes).base64EncodedString()
            #expect(ChatNode.isSignatureShaped(text), "\(text)")
        }
    }

    @Test func anythingElseIsNot() {
        let good = Data(repeating: 0xAB, count: 64).base64EncodedString()
        #expect(ChatNode.isSignatureShaped(good))
        let wrong = [
            Data(repeating: 0xAB, count: 63).base64EncodedString(),  // 63 bytes
            Data(repeating: 0xAB, count: 65).base64EncodedString(),  // 65 bytes
            String(good.dropLast()),                                  // one "=" short
            "!" + good.dropFirst(),                                   // outside the alphabet
            good.replacingOccurrences(of: "+", with: "-"),            // base64url is not base64
            String(good.prefix(85)) + "B==",                          // non-canonical: unused bits set
            String(repeating: "=", count: 88),
            "",
        ]
        for text in wrong where text != good {
            #expect(!ChatNode.isSignatureShaped(text), "\(text)")
        }
    }
}
