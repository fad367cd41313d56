import ChatCore
import Foundation
import Testing
import TestSupport
@testable import ChatStore

/// `/search` folds case in every cased script, not only ASCII, on the scan
/// path (messages not in the index yet, short text) and through the
/// trigram index, which folds case itself.
@Suite struct SearchCaseFoldTests {
    static let texts = ["Привет, МИР и всем", "ΟΔΟΣ προς τη σοφία", "École FRANÇAISE à Paris", "Ünïcödé ÆØÅ", "안녕하세요 ABC", "İSTANBUL ve KELVİN"]

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
            // İ is left as it is (the index does not fold it): found as written.
            ("İstanbul", Self.texts[5]), ("ve kelvİn", Self.texts[5]),
        ]
        for (query, expected) in cases {
            let found = try await store.search(SearchQuery(query)).messages.map(\.content)
            #expect(found == [expected], "\(query) (indexed: \(indexed))")
        }
        // Folding is not a looser match: accents and letters still count.
        for query in ["ecole", "francaise", "привeт", "σοφια", "istanbul"] {
            #expect(try await store.search(SearchQuery(query)).hits.isEmpty, "\(query) (indexed: \(indexed))")
        }
    }

    @Test func theFoldKeepsOneScalarForEachSoTrigramsStayAligned() throws {
        let query = try SearchQuery("ÀÉÎ ПРИВЕТ ΣΟΦΊΑ ς İ ABC 한글 😀")
        #expect(query.folded == "àéî привет σοφία σ İ abc 한글 😀")
        for value in UInt32(0)...0x1FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let folded = SearchQuery.fold(scalar)
            // Folding twice changes nothing, and a letter folds to its
            // small form or stays (never to something else).
            #expect(SearchQuery.fold(folded) == folded, "U+\(String(value, radix: 16))")
            let small = value == 0x3C2 ? "\u{3C3}" : scalar.properties.lowercaseMapping.unicodeScalars.first!
            #expect(folded == small || folded == scalar, "U+\(String(value, radix: 16))")
        }
    }

    /// Whatever the fold makes equal, the trigram index (this SQLite's own
    /// case table) makes equal too: each folded letter, searched for, finds
    /// the row holding its capital. Otherwise the index path would miss
    /// what the scan path finds.
    @Test func theIndexFoldsEveryLetterTheFoldFolds() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        try database.execute("CREATE VIRTUAL TABLE letters USING fts5(text, tokenize = 'trigram')")
        var folded: [(UInt32, Unicode.Scalar)] = []
        for value in UInt32(0x80)...0x1FFFF {
            guard let scalar = Unicode.Scalar(value), SearchQuery.fold(scalar) != scalar else { continue }
            folded.append((value, SearchQuery.fold(scalar)))
            try database.withStatement("INSERT INTO letters (rowid, text) VALUES (?1, ?2)") { statement throws(StoreError) in
                try statement.bind(Int64(value), at: 1)
                try statement.bind(String(scalar) + "zq", at: 2)
                _ = try statement.step()
            }
        }
        #expect(folded.count > 900, "Latin, Greek, Cyrillic, Armenian, Georgian...: \(folded.count)")
        for (value, small) in folded {
            let found = try database.withStatement("SELECT rowid FROM letters WHERE letters MATCH ?1") { statement throws(StoreError) -> [Int64] in
                try statement.bind("\"" + String(small) + "zq\"", at: 1)
                var rows: [Int64] = []
                while try statement.step() { rows.append(statement.int64(0)) }
                return rows
            }
            #expect(found.contains(Int64(value)), "U+\(String(value, radix: 16)) folds to U+\(String(small.value, radix: 16)); the index does not")
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
