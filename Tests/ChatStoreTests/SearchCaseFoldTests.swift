import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// `/search` folds case in every cased script, not only ASCII, on the scan
/// path (messages not in the index yet, short text) and through the
/// trigram index, which folds case itself.
@Suite struct SearchCaseFoldTests {
    static let texts = ["Привет, МИР и всем", "ΟΔΟΣ προς τη σοφία", "École FRANÇAISE à Paris", "Ünïcödé ÆØÅ", "안녕하세요 ABC"]

    static func store(indexed: Bool) async throws -> ChatStore {
        let store = try ChatStore(path: nil, localNumber: Fixtures.me)
        try await store.insert(contentsOf: texts.enumerated().map { index, text in
            Fixtures.message(at: Fixtures.base + Int64(index), idBits: UInt64(index + 1), text: text)
        })
        if indexed {
            await store.foldSearchIndex(all: true)
            #expect(try await store.indexedUpTo() == Int64(texts.count), "every message in the index")
        } else {
            #expect(try await store.indexedUpTo() == 0, "every message waiting for the index")
        }
        return store
    }

    @Test(arguments: [false, true])
    func lettersOfEveryCasedScriptMatchInEitherCase(indexed: Bool) async throws {
        let store = try await Self.store(indexed: indexed)
        let cases: [(String, String)] = [
            ("привет", Self.texts[0]), ("ПРИВЕТ", Self.texts[0]), ("мир", Self.texts[0]), ("Ми", Self.texts[0]), ("вСЕм", Self.texts[0]),
            ("οδος", Self.texts[1]), ("ΣΟΦΊΑ", Self.texts[1]), ("Οδ", Self.texts[1]),
            ("école", Self.texts[2]), ("française", Self.texts[2]), ("À PARIS", Self.texts[2]), ("çA", Self.texts[2]),
            ("üNÏCÖDÉ", Self.texts[3]), ("æøå", Self.texts[3]),
            ("안녕", Self.texts[4]), ("하세요 abc", Self.texts[4]),
        ]
        for (query, expected) in cases {
            let found = try await store.search(SearchQuery(query)).messages.map(\.content)
            #expect(found == [expected], "\(query) (indexed: \(indexed))")
        }
        // Folding is not a looser match: accents and letters still count.
        for query in ["ecole", "francaise", "привeт", "σοφια"] {
            #expect(try await store.search(SearchQuery(query)).hits.isEmpty, "\(query) (indexed: \(indexed))")
        }
    }

    @Test func theFoldKeepsOneScalarForEachSoTrigramsStayAligned() throws {
        let query = try SearchQuery("ÀÉÎ ПРИВЕТ ΣΟΦΊΑ ς İ ABC 한글 😀")
        #expect(query.folded == "àéî привет σοφία σ i abc 한글 😀")
        for value in UInt32(0)...0x1FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let folded = SearchQuery.fold(scalar)
            // Folding twice changes nothing, and the shortcuts give what
            // Unicode's lowercase mapping gives (its first scalar).
            #expect(SearchQuery.fold(folded) == folded, "U+\(String(value, radix: 16))")
            let reference = value == 0x3C2 ? "\u{3C3}" : scalar.properties.lowercaseMapping.unicodeScalars.first!
            #expect(folded == reference, "U+\(String(value, radix: 16))")
        }
    }

    @Test func theSQLFunctionReadsAnyBytes() {
        func contains(_ text: [UInt8], _ needle: String) -> Bool {
            text.withUnsafeBufferPointer { text in
                Array(needle.utf8).withUnsafeBufferPointer { SQLiteDatabase.folded(text, contains: $0) }
            }
        }
        #expect(contains(Array("ПРИВЕТ".utf8), "вет"))
        #expect(contains(Array("ab".utf8), ""))
        #expect(!contains(Array("ab".utf8), "abc"))
        // Invalid UTF-8 reads as U+FFFD, and what follows is still found.
        #expect(contains([0xFF, 0xC3, 0x41, 0x42, 0x43], "abc"))
        #expect(!contains([0xE2, 0x82], "a"))
        // ASCII text: folded byte by byte, and a needle from another script is not in it.
        #expect(contains(Array("Meet at NOON".utf8), "t at noon"))
        #expect(!contains(Array("Meet at NOON".utf8), "noonx"))
        #expect(!contains(Array("Meet at NOON".utf8), "é"))
        #expect(contains(Array("[Z]@`{".utf8), "[z]@`{"))
    }
}
