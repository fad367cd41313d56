import ChatCore
import Foundation
import Testing

/// `MessageID(String)` parses by hand (no sscanf). It accepts exactly the
/// form docs/PROTOCOL.md gives (8-4-4-4-12 hex digits, either case), where it
/// agrees with `UUID(uuidString:)`; Foundation's sscanf also lets through
/// a few non-canonical strings (" 1934c04-…", "+1934c04-…"), which are
/// refused here.
@Suite struct MessageIDParsingTests {
    static let canonical = "01934c04-c009-7a00-9b00-000000000008"

    /// The documented form, checked independently of both parsers.
    static func isCanonical(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        return bytes.enumerated().allSatisfy { position, byte in
            [8, 13, 18, 23].contains(position) ? byte == UInt8(ascii: "-")
                : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }

    static func check(_ text: String) {
        if isCanonical(text) {
            #expect(MessageID(text) != nil && MessageID(text)?.uuid == UUID(uuidString: text), "\(text)")
        } else {
            #expect(MessageID(text) == nil, "\(text)")
        }
    }

    @Test(arguments: [
        canonical, canonical.uppercased(), "01934C04-c009-7A00-9b00-00000000000F", "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "00000000-0000-0000-0000-000000000000",
        // Refused: wrong length, hyphens moved or missing, non-hex, signs,
        // spaces, NUL, non-ASCII, braces.
        "", String(canonical.dropLast()), canonical + "0", canonical.replacingOccurrences(of: "-", with: ""),
        "01934c04c-009-7a00-9b00-000000000008", "01934c04-c009-7a00-9b00-00000000000g",
        "+1934c04-c009-7a00-9b00-000000000008", " 1934c04-c009-7a00-9b00-000000000008",
        "01934c04-c009-7a00-9b00-00000000000\u{0}", "01934c04-c009-7a00-9b00-0000000000é",
        "{1934c04-c009-7a00-9b00-00000000000}", "0x934c04-c009-7a00-9b00-000000000008",
        "01934c04_c009_7a00_9b00_000000000008",
    ])
    func acceptsExactlyTheCanonicalForm(_ text: String) {
        Self.check(text)
    }

    /// Random ids round-trip through their description, in either case.
    @Test func randomIDsRoundTrip() {
        var ids = MessageIDGenerator()
        for step in 0..<2000 {
            let id = ids.next(millis: 1_732_147_200_000 + Int64(step))
            #expect(MessageID(id.description) == id)
            #expect(MessageID(id.description.uppercased()) == id)
            #expect(MessageID(id.description)?.uuid == UUID(uuidString: id.description))
        }
    }

    /// One character changed to every ASCII value: accepted exactly when
    /// still canonical.
    @Test func everySingleByteChange() {
        let base = Array(Self.canonical.utf8)
        for position in [0, 7, 8, 13, 20, 35] {
            for byte in UInt8(0x01)...UInt8(0x7F) {
                var changed = base
                changed[position] = byte
                let text = String(decoding: changed, as: UTF8.self)
                Self.check(text)
            }
        }
    }
}
