import ChatCore
import Testing

/// Look-alike names: invisible code points refused at every edge, clashes
/// found after NFKC and case folding, and the name history that says "a
/// different alice".
@Suite struct LookAlikeNameTests {
    @Test(arguments: [
        ("ali\u{200B}ce", 0x200B),  // zero-width space
        ("ali\u{200D}ce", 0x200D),  // zero-width joiner between letters
        ("ali\u{200C}ce", 0x200C),  // zero-width non-joiner
        ("\u{2060}alice", 0x2060),  // word joiner, first
        ("alice\u{FEFF}", 0xFEFF),  // byte order mark, last (not trimmed as whitespace)
        ("ali\u{202E}ec", 0x202E),  // right-to-left override
        ("\u{2066}alice\u{2069}", 0x2066),  // isolate
        ("alice\u{200F}x", 0x200F),  // right-to-left mark
        ("a\u{00AD}lice", 0x00AD),  // soft hyphen
        ("\u{3164}", 0x3164),  // Hangul filler: an "empty" name
        ("al\u{115F}ice", 0x115F),  // Hangul choseong filler
        ("alice\u{FE0F}", 0xFE0F),  // variation selector after a letter
        ("1\u{200D}2", 0x200D),  // joiner between digits (emoji-capable, but ASCII)
        ("👍\u{200D}", 0x200D),  // joiner with nothing after it
        ("\u{200D}👍", 0x200D),  // joiner with nothing before it
        ("a\u{E0061}", 0xE0061),  // tag character
    ] as [(String, UInt32)])
    func invisibleCodePointsAreRefused(name: String, codePoint: UInt32) {
        #expect(throws: NameValidationError.invisibleCharacters(codePoint: codePoint)) { try NodeName.validated(name) }
    }

    @Test(arguments: ["alice", "앨리스", "👩‍💻", "❤️", "👍🏽", "👨‍👩‍👧", "🏳️‍🌈", "a-b", "ａｌｉｃｅ", "Zoë"])
    func visibleNamesPass(name: String) throws {
        #expect(try NodeName.validated(name) == name)
        #expect(try NodeName.validatedNickname(name) == name)
    }

    @Test func invisibleCharacterErrorNamesTheCodePoint() {
        #expect(NameValidationError.invisibleCharacters(codePoint: 0x200B).description.contains("U+200B"))
        #expect(NameValidationError.invisibleCharacters(codePoint: 0xE0061).description.contains("U+E0061"))
    }

    @Test func nicknamesHaveNoSpacesButPeersNamesMay() throws {
        #expect(throws: NameValidationError.whitespace) { try NodeName.validatedNickname("a b") }
        #expect(throws: NameValidationError.whitespace) { try NodeName.validatedNickname("a\u{3000}b") }  // ideographic space
        #expect(try NodeName.validatedNickname("  ab  ") == "ab", "trimmed first")
        #expect(try NodeName.validated("a b") == "a b", "received names keep spaces (older peers); #tag names them")
        #expect(NameValidationError.whitespace.description.contains("space"))
    }

    @Test func clashKeysFoldCaseAndWidth() {
        let key = NodeName.clashKey("alice")
        #expect(NodeName.clashKey("ALICE") == key)
        #expect(NodeName.clashKey("ａｌｉｃｅ") == key)  // fullwidth
        #expect(NodeName.clashKey("Ａｌｉｃｅ") == key)
        #expect(NodeName.clashKey("STRASSE") == NodeName.clashKey("straße"))
        #expect(NodeName.clashKey("ﬁ") == NodeName.clashKey("fi"))  // ligature
        #expect(NodeName.clashKey("e\u{301}") == NodeName.clashKey("é"))  // composed or not
        #expect(NodeName.clashKey("alicf") != key)
        #expect(NodeName.clashKey("аlice") != key, "Cyrillic а is another letter: told apart by the #tag only when it clashes")
    }

    static func peer(_ number: UInt64, _ nickname: String) -> PeerInfo {
        PeerInfo(number: NodeNumber(rawValue: number)!, nickname: nickname, instanceId: "i\(number)", address: "127.0.0.1:\(number)")
    }

    @Test func lookAlikeNicknamesBothGetTheirTag() throws {
        var directory = PeerDirectory()
        let plain = Self.peer(0x1111, "alice"), wide = Self.peer(0x2222, "ａｌｉｃｅ")
        directory.upsert(plain)
        #expect(directory.displayName(for: plain.number, nickname: "alice") == "alice")
        directory.upsert(wide)
        #expect(directory.displayName(for: plain.number, nickname: "alice") == "alice#1111")
        #expect(directory.displayName(for: wide.number, nickname: "ａｌｉｃｅ") == "ａｌｉｃｅ#2222")
        #expect(throws: PeerLookupError.ambiguous("ALICE", candidates: ["alice#1111", "ａｌｉｃｅ#2222"])) { try directory.resolve("ALICE") }
        #expect(try directory.resolve("alice#2222") == wide)
        #expect(try directory.resolve("#1111") == plain)
        // A rename away from the clash drops the tags.
        directory.upsert(Self.peer(0x2222, "bob"))
        #expect(directory.displayName(for: plain.number, nickname: "alice") == "alice")
        directory.remove(wide.number)
        #expect(try directory.resolve("Ａlice") == plain)
    }

    @Test func aPeerClashingWithTheLocalNameIsTagged() {
        var directory = PeerDirectory()
        let me = NodeIdentity(number: NodeNumber(rawValue: 0x9999)!, nickname: "Alice")
        directory.upsert(Self.peer(0x1111, "ａｌｉｃｅ"))
        #expect(directory.displayName(for: NodeNumber(rawValue: 0x1111)!, nickname: "ａｌｉｃｅ", localIdentity: me) == "ａｌｉｃｅ#1111")
    }

    @Test func aNameSeenWithAnotherNumberIsADifferentPeer() {
        var holders = NameHolders(capacity: 2)
        let first = NodeNumber(rawValue: 1)!, second = NodeNumber(rawValue: 2)!
        #expect(holders.record("alice", number: first) == nil, "first sighting")
        #expect(holders.record("ALICE", number: first) == nil, "same node, same name")
        #expect(holders.record("ａｌｉｃｅ", number: second) == first, "a different alice")
        #expect(holders.holder(of: "alice") == second)
        holders.record("bob", number: first)
        holders.record("carol", number: first)
        #expect(holders.count == 2, "bounded: the least recently seen name is forgotten")
        #expect(holders.holder(of: "alice") == nil)
        #expect(holders.record("alice", number: first) == nil, "forgotten names start over")
    }
}
