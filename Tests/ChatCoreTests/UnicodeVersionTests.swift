import ChatCore
import Testing

/// docs/PROTOCOL.md 4.6 names the Unicode version characters are counted in and
/// lists the whitespace trimmed; both come from the toolchain's standard
/// library, so a toolchain update that changes them fails here first.
@Suite struct UnicodeVersionTests {
    @Test func theStandardLibraryCarriesUnicode17() {
        var newest = (major: 0, minor: 0)
        for value in UInt32(0)...0x10FFFF {
            guard let age = Unicode.Scalar(value)?.properties.age else { continue }
            if age.major > newest.major || (age.major == newest.major && age.minor > newest.minor) { newest = age }
        }
        #expect(newest.major == 17 && newest.minor == 0, "update docs/PROTOCOL.md 4.6 and section 7 to Unicode \(newest.major).\(newest.minor)")
    }

    @Test func trimmedWhitespaceIsTheDocumentedSet() {
        let documented: [ClosedRange<UInt32>] = [
            0x09...0x0D, 0x20...0x20, 0x85...0x85, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
            0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000,
        ]
        let listedValues = Set(documented.joined())
        // `trimmingWhitespace` trims exactly the `White_Space` scalars...
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let listed = listedValues.contains(value)
            if listed != scalar.properties.isWhitespace {
                Issue.record("U+\(String(value, radix: 16, uppercase: true)): listed \(listed), White_Space \(!listed)")
            }
        }
        // ...from both ends only, each of them.
        for value in documented.joined() {
            let space = String(Unicode.Scalar(value)!)
            #expect((space + "a" + space + "b" + space).trimmingWhitespace() == "a" + space + "b")
        }
        #expect("\u{200B}a\u{200B}".trimmingWhitespace() == "\u{200B}a\u{200B}", "zero-width space is not White_Space")
    }

    /// Clusters of several code points count as one character.
    @Test func graphemesFollowTheDocumentedRules() {
        #expect("\u{1100}\u{1161}\u{11A8}".count == 1, "Hangul jamo L V T")
        #expect("👩‍💻".count == 1)
        #expect("🇰🇷".count == 1)
        #expect("e\u{301}\u{302}".count == 1)
        #expect("\u{915}\u{94D}\u{937}".count == 1, "Devanagari conjunct (GB9c, Unicode 15.1+)")
    }
}
