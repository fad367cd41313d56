import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// `/search`: substrings in any script through the trigram index, short
/// text through the bounded scan, literal text, limits and paging, and an
/// index that follows the table (commits, rollbacks, trims, upgrades).
@Suite struct ChatStoreSearchTests {
    static func query(_ text: String) throws -> SearchQuery { try SearchQuery(text) }

    static func texts(_ results: SearchResults) -> [String] { results.messages.map(\.content) }

    @Test func aKoreanWordInsideASentenceIsFound() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: [
            Fixtures.message(at: Fixtures.base, idBits: 1, text: "오늘 다들 안녕하셨어요? 저는 잘 지냈어요"),
            Fixtures.message(at: Fixtures.base + 1, idBits: 2, text: "nothing Korean here"),
            Fixtures.message(at: Fixtures.base + 2, idBits: 3, room: .direct(Fixtures.bob), text: "그럼 안녕히 가세요"),
        ])
        // Two syllables: the scan path.
        #expect(Self.texts(try await store.search(Self.query("안녕"))) == ["그럼 안녕히 가세요", "오늘 다들 안녕하셨어요? 저는 잘 지냈어요"])
        // Three or more: the index.
        #expect(try Self.query("안녕하셨").usesIndex)
        #expect(Self.texts(try await store.search(Self.query("안녕하셨"))) == ["오늘 다들 안녕하셨어요? 저는 잘 지냈어요"])
        #expect(Self.texts(try await store.search(Self.query("녕히 가"))) == ["그럼 안녕히 가세요"])
        #expect(try await store.search(Self.query("안녕하세요")).hits.isEmpty)
    }

    @Test func latinLettersMatchInEitherCaseOnBothPaths() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: [
            Fixtures.message(at: Fixtures.base, idBits: 1, text: "Meet at the LIBRARY at Noon"),
            Fixtures.message(at: Fixtures.base + 1, idBits: 2, text: "ok"),
        ])
        for text in ["library", "Library", "LIBRARY", "t the lib", "NOON"] {
            #expect(Self.texts(try await store.search(Self.query(text))) == ["Meet at the LIBRARY at Noon"], "\(text)")
        }
        #expect(Self.texts(try await store.search(Self.query("OK"))) == ["ok"])
        #expect(Self.texts(try await store.search(Self.query("No"))) == ["Meet at the LIBRARY at Noon"])
        #expect(Self.texts(try await store.search(Self.query("y"))) == ["Meet at the LIBRARY at Noon"])
    }

    @Test func publicAndDirectRoomsAreSearchedNewestStoredFirst() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let messages = [
            Fixtures.message(at: Fixtures.base, idBits: 1, text: "lunch plans?"),
            Fixtures.message(at: Fixtures.base + 1, idBits: 2, room: .direct(Fixtures.bob), text: "lunch with me"),
            Fixtures.message(at: Fixtures.base + 2, idBits: 3, room: .direct(Fixtures.carol), from: Fixtures.carol, text: "no lunch today"),
            Fixtures.message(at: Fixtures.base + 3, idBits: 4, room: .direct(Fixtures.carol), from: Fixtures.me, text: "dinner then"),
        ]
        for message in messages { try await store.insert(message) }
        let results = try await store.search(Self.query("lunch"))
        #expect(results.messages.map(\.room) == [.direct(Fixtures.carol), .direct(Fixtures.bob), .publicRoom])
        #expect(results.continueBefore == nil)
        #expect(results.hits.map(\.seq) == [3, 2, 1])
    }

    @Test func specialCharactersAreLiteral() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let texts = ["say \"hi\" NEAR(me)", "a*b OR c", "col:on ^caret -minus +plus", "(paren) AND {brace}", "plain NEAR text", "50% off_now"]
        for (index, text) in texts.enumerated() {
            try await store.insert(Fixtures.message(at: Fixtures.base + Int64(index), idBits: UInt64(index), text: text))
        }
        let cases: [(String, [String])] = [
            ("\"hi\"", ["say \"hi\" NEAR(me)"]), ("\"", ["say \"hi\" NEAR(me)"]), ("NEAR(", ["say \"hi\" NEAR(me)"]),
            ("NEAR", ["plain NEAR text", "say \"hi\" NEAR(me)"]), ("a*b", ["a*b OR c"]), ("*", ["a*b OR c"]),
            ("OR c", ["a*b OR c"]), ("col:on", ["col:on ^caret -minus +plus"]), ("^caret", ["col:on ^caret -minus +plus"]),
            ("-minus", ["col:on ^caret -minus +plus"]), ("AND {", ["(paren) AND {brace}"]), (")", ["(paren) AND {brace}", "say \"hi\" NEAR(me)"]),
            ("%", ["50% off_now"]), ("_", ["50% off_now"]), ("% o", ["50% off_now"]), ("a%b", []), ("o_n", []),
        ]
        for (text, expected) in cases {
            #expect(Self.texts(try await store.search(Self.query(text))) == expected, "\(text)")
        }
    }

    @Test func oddTextIsSearchedWithoutSQLiteErrors() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        let long = String(repeating: "가나다라", count: ChatLimits.maxMessageCharacters / 4)
        let texts = ["\u{1}\u{2}\u{3} bell\u{7}", "👨‍👩‍👧‍👦 family 🇰🇷", long, "tab\there"]
        for (index, text) in texts.enumerated() {
            try await store.insert(Fixtures.message(at: Fixtures.base + Int64(index), idBits: UInt64(index), text: text))
        }
        for (query, expected) in [("\u{1}\u{2}\u{3}", [texts[0]]), ("\u{7}", [texts[0]]), ("👨‍👩‍👧‍👦", [texts[1]]), ("🇰🇷", [texts[1]]),
                                  (long, [long]), ("라가나다라", [long]), ("b\there", [texts[3]]), ("x\there", []), ("AND OR NOT", [])] {
            #expect(Self.texts(try await store.search(Self.query(query))) == expected, "\(query.debugDescription)")
        }
    }

    @Test func badTextIsAClearError() throws {
        for text in ["", "   ", "\n\t"] {
            #expect(throws: ChatError.invalidSearch(reason: "nothing to search for: /search WORDS")) { try SearchQuery(text) }
        }
        #expect(throws: ChatError.self) { try SearchQuery(String(repeating: "가", count: ChatLimits.maxMessageCharacters + 1)) }
        #expect(throws: ChatError.self) { try SearchQuery("a\u{0}b") }
        #expect(try SearchQuery("  padded  ").text == "padded")
        #expect(try SearchQuery(String(repeating: "가", count: ChatLimits.maxMessageCharacters)).usesIndex)
        #expect(try !SearchQuery("👋🏽").usesIndex)  // two scalars
        #expect(try SearchQuery("a\"bc").ftsTrigrams == #""a""b" AND """bc""#)
        #expect(try SearchQuery("ababa").ftsTrigrams == #""aba" AND "bab""#, "each trigram once")
        #expect(try SearchQuery("ab").ftsTrigrams == "")
    }

    @Test func pagesAreLimitedAndContinueWhereTheyStopped() async throws {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: (0..<120).map { Fixtures.message(at: Fixtures.base + Int64($0), idBits: UInt64($0), text: "hit \($0)") })
        for text in ["hit", "hi"] {  // the index and the scan
            var seen: [String] = []
            var before: Int64?
            var pages = 0
            repeat {
                let results = try await store.search(Self.query(text), before: before, limit: 50)
                #expect(results.hits.count <= 50)
                seen += Self.texts(results)
                before = results.continueBefore
                pages += 1
            } while before != nil && pages < 10
            #expect(seen == (0..<120).reversed().map { "hit \($0)" }, "\(text)")
            #expect(pages == 3)
        }
        #expect(try await store.search(Self.query("hit"), limit: 0).hits.isEmpty)
        let empty = try ChatStore(path: nil, localNumber: Fixtures.me)
        for text in ["hit", "hi"] {
            let none = try await empty.search(Self.query(text))
            #expect(none.hits.isEmpty && none.continueBefore == nil, "an empty store: \(text)")
        }
        #expect(try await store.search(Self.query("hit"), limit: 5000).hits.count == 120)
        #expect(try await store.search(Self.query("hit 11"), limit: 1).continueBefore != nil)
    }

    @Test func theScanStopsAtItsBudgetAndSaysWhereToGoOn() async throws {
        try await Fixtures.withTemporaryDirectory { directory in
        // A file: an in-memory store would trim the room to its window.
        let store = try ChatStore(path: directory.appendingPathComponent("h.sqlite").path, localNumber: Fixtures.me, durability: .normal)
        let count = ChatStore.searchScanBudget + 10
        var all = (0..<count).map { Fixtures.message(at: Fixtures.base + Int64($0), idBits: UInt64($0), room: .direct(Fixtures.bob), text: "x\($0)") }
        all[3].content = "안녕 old"
        var next = 0
        while next < count {
            try await store.insert(contentsOf: Array(all[next..<min(next + 5000, count)]))
            next += 5000
        }
        let first = try await store.search(Self.query("안녕"))
        #expect(first.hits.isEmpty)
        #expect(first.scanned == ChatStore.searchScanBudget)
        let floor = try #require(first.continueBefore)
        let second = try await store.search(Self.query("안녕"), before: floor)
        #expect(Self.texts(second) == ["안녕 old"])
        #expect(second.continueBefore == nil)
        }
    }
}
