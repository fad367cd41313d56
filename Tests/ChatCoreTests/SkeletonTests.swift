import ChatCore
import Testing

/// UTS #39 look-alikes: skeletons from the pinned confusables data, the
/// mixed-script rule, and what the peer directory does with both.
@Suite struct SkeletonTests {
    /// UTS #39's own examples (section 4) and single mappings read from
    /// confusables.txt 13.0.0.
    @Test(arguments: [
        ("paypal", "pаypаl"),  // Cyrillic а (U+0430), UTS #39 section 4
        ("scope", "ѕсоре"),  // all Cyrillic: U+0455 U+0441 U+043E U+0440 U+0435
        ("alice", "аlice"),
        ("alice", "ɑlice"),  // Latin alpha U+0251
        ("l", "1"),  // 0031 → 006C
        ("l", "I"),  // 0049 → 006C
        ("rn", "m"),  // 006D → 0072 006E
        ("O", "0"),  // 0030 → 004F
        ("x", "х"),  // Cyrillic ha U+0445
        ("P", "Ρ"),  // Greek capital rho U+03A1
    ] as [(String, String)])
    func confusablePairsShareASkeleton(plain: String, lookAlike: String) {
        #expect(plain != lookAlike)
        #expect(LookAlike.skeleton(plain) == LookAlike.skeleton(lookAlike))
    }

    /// `key` takes a shortcut (one normalization fewer, names with nothing
    /// to map returned as they are); it must still be exactly the skeleton
    /// of the clash key.
    @Test func theKeyIsTheSkeletonOfTheClashKey() {
        let names = ["alice", "ALICE", "ａｌｉｃｅ", "аlice", "Zoë", "Zoe\u{308}", "김철수", "오늘은맑음", "가", "dave 👩‍💻", "ΑΝΝΑ",
                     "σίσυφος", "ß", "ﬁle", "Å", "Å", "ｶﾀｶﾅ", "①②", "Straße", "İstanbul", "ǅ", "ℌ", "𝔞𝔩𝔦𝔠𝔢", "rn", "m", "l0g1n",
                     "ρωμη", "ψυχη", "ἀγάπη", "привет", "ПРИВЕТ", "ѕсоре", "e\u{301}\u{323}", "ự", "ǖ", "अनुच्छेद", "مرحبا", "日本語", "ｱｲｳ", "ㄱㄴ", "ᄀ", "ⅷ", "ꞵ"]
        for name in names {
            #expect(LookAlike.key(name) == LookAlike.skeleton(NodeName.clashKey(name)), "\(name)")
        }
    }

    @Test func differentNamesKeepDifferentSkeletons() {
        #expect(LookAlike.skeleton("alice") != LookAlike.skeleton("alicf"))
        #expect(LookAlike.skeleton("bob") != LookAlike.skeleton("rob"))
        #expect(LookAlike.skeleton("안녕") != LookAlike.skeleton("안녀"))
    }

    @Test func keysFoldCaseWidthAndLookAlikes() {
        let key = LookAlike.key("alice")
        for name in ["ALICE", "ａｌｉｃｅ", "аlice", "Аlice", "ɑlice"] {
            #expect(LookAlike.key(name) == key, "\(name)")
        }
        #expect(LookAlike.key("alicf") != key)
    }

    @Test(arguments: [
        ("alice", false), ("앨리스", false), ("日本語かな", false), ("カタカナ漢字", false), ("한국漢字", false),
        ("alice😀", false), ("alice2", false), ("Zoë", false), ("ㄅ漢", false), ("ѕсоре", false), ("Ωμέγα", false),
        ("аlice", true), ("Ωmega", true), ("alice안녕", true), ("かな한국", true), ("scοpe", true),
    ] as [(String, Bool)])
    func mixedScriptsAreFound(name: String, mixed: Bool) {
        #expect(LookAlike.isMixedScript(name) == mixed, "\(name): \(LookAlike.scripts(in: name))")
    }

    @Test func aMixedNicknameIsRefusedLocallyWithTheScriptsNamed() throws {
        #expect(throws: NameValidationError.mixedScripts(["Cyrillic", "Latin"])) { try NodeName.validatedNickname("аlice") }
        #expect(NameValidationError.mixedScripts(["Cyrillic", "Latin"]).description.contains("Cyrillic and Latin"))
        // Received names are not refused (older peers), only flagged.
        #expect(try NodeName.validated("аlice") == "аlice")
        #expect(try NodeName.validatedNickname("ѕсоре") == "ѕсоре", "one script, even if it looks like Latin")
    }

    @Test func lookAlikesBothShowTheirTagAndSayWhomTheyResemble() throws {
        var directory = PeerDirectory()
        let alice = NodeNumber(rawValue: 0xA11CE)!, impostor = NodeNumber(rawValue: 0xBAD)!, bob = NodeNumber(rawValue: 0xB0B)!
        directory.upsert(PeerInfo(number: alice, nickname: "alice", instanceId: "a", address: "10.0.0.1"))
        directory.upsert(PeerInfo(number: bob, nickname: "bob", instanceId: "b", address: "10.0.0.2"))
        #expect(directory.displayName(for: alice, nickname: "alice") == "alice")
        directory.upsert(PeerInfo(number: impostor, nickname: "ѕсоре", instanceId: "m", address: "10.0.0.3"))
        #expect(directory.looksLike(impostor) == nil)
        directory.upsert(PeerInfo(number: impostor, nickname: "аlice", instanceId: "m", address: "10.0.0.3"))
        #expect(directory.displayName(for: alice, nickname: "alice") == "alice#\(alice.shortTag)")
        #expect(directory.displayName(for: impostor, nickname: "аlice") == "аlice#\(impostor.shortTag)")
        #expect(directory.looksLike(impostor) == "alice")
        #expect(directory.looksLike(alice) == "аlice")
        #expect(directory.looksLike(bob) == nil)
        #expect(directory.displayName(for: bob, nickname: "bob") == "bob")
        // "/dm alice" no longer guesses between them.
        #expect(throws: PeerLookupError.self) { try directory.resolve("alice") }
        #expect(try directory.resolve("alice#\(alice.shortTag)").number == alice)
    }

    @Test func aMixedNameFromAPeerAlwaysShowsItsTag() {
        var directory = PeerDirectory()
        let mallory = NodeNumber(rawValue: 0xBAD)!
        directory.upsert(PeerInfo(number: mallory, nickname: "Ωmega", instanceId: "m", address: "10.0.0.3"))
        #expect(directory.displayName(for: mallory, nickname: "Ωmega") == "Ωmega#\(mallory.shortTag)")
    }

    @Test func theLocalNameCountsToo() {
        var directory = PeerDirectory()
        let me = NodeIdentity(number: NodeNumber(rawValue: 0xA11CE)!, nickname: "alice")
        let impostor = NodeNumber(rawValue: 0xBAD)!
        directory.upsert(PeerInfo(number: impostor, nickname: "аlice", instanceId: "m", address: "10.0.0.3"))
        #expect(directory.displayName(for: impostor, nickname: "аlice", localIdentity: me) == "аlice#\(impostor.shortTag)")
        #expect(directory.looksLike(impostor, localIdentity: me) == "alice")
    }

    @Test func theDataIsThePinnedVersion() {
        #expect(LookAlike.dataVersions == (confusables: "13.0.0", scripts: "15.0.0"))
    }
}
