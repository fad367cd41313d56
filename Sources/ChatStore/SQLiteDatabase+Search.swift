import ChatCore
import CSQLite

/// `lanchat_contains(text, folded)`: 1 when `text`, folded scalar by
/// scalar with `SearchQuery.fold`, contains `folded` (the query folded the
/// same way, `SearchQuery.folded`), else 0. SQLite's `lower()` folds only
/// ASCII; this folds every cased script (Cyrillic, Greek, accented Latin)
/// one scalar to one, as the trigram tokenizer folds the index
/// (`case_sensitive` 0), so the index's candidates and the check on the
/// text agree. Nothing is allocated per row: the text is folded into a
/// temporary buffer.
extension SQLiteDatabase {
    static let containsFunction = "lanchat_contains"

    /// Registered once per connection, before any statement is prepared
    /// (registering a function expires prepared statements).
    func registerSearchFunctions() throws(StoreError) {
        guard let db = rawHandle else { throw .closed }
        let code = sqlite3_create_function_v2(db, Self.containsFunction, 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, lanchatContains, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw .from(code: code, message: String(cString: sqlite3_errmsg(db)), path: path, sql: "create function \(Self.containsFunction)")
        }
    }

    /// Whether UTF-8 `text`, folded, contains the already folded `needle`.
    static func folded(_ text: UnsafeBufferPointer<UInt8>, contains needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needle.isEmpty else { return true }
        // ASCII text (most messages) folds byte by byte, with no decoding;
        // it folds to ASCII, so a needle with anything else is not in it.
        if !text.contains(where: { $0 >= 0x80 }) {
            guard needle.count <= text.count, !needle.contains(where: { $0 >= 0x80 }) else { return false }
            return find(needle, in: text) { byte in byte &- 0x41 < 26 ? byte | 0x20 : byte }
        }
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: needle.count) { wanted in
            let wantedCount = scalars(of: needle, folding: false, into: wanted)
            return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: text.count) { haystack in
                let count = scalars(of: text, folding: true, into: haystack)
                return find(UnsafeBufferPointer(rebasing: wanted[..<wantedCount]), in: UnsafeBufferPointer(rebasing: haystack[..<count])) { $0 }
            }
        }
    }

    /// Whether `needle` occurs in `haystack` with `fold` applied to the
    /// haystack's elements (plain search: both are at most a message long).
    @inline(__always)
    private static func find<Element: Equatable>(_ needle: UnsafeBufferPointer<Element>, in haystack: UnsafeBufferPointer<Element>, fold: (Element) -> Element) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        search: for start in 0...(haystack.count - needle.count) where fold(haystack[start]) == first {
            for offset in 1..<needle.count where fold(haystack[start + offset]) != needle[offset] { continue search }
            return true
        }
        return false
    }

    /// Decodes UTF-8 into scalar values (invalid bytes as U+FFFD), folded
    /// when asked; returns how many. `buffer` holds one per byte at least.
    private static func scalars(of bytes: UnsafeBufferPointer<UInt8>, folding: Bool, into buffer: UnsafeMutableBufferPointer<UInt32>) -> Int {
        var count = 0
        _ = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: false) { value in
            buffer[count] = folding ? SearchQuery.fold(Unicode.Scalar(value) ?? "\u{FFFD}").value : value
            count += 1
        }
        return count
    }
}

/// The C entry point SQLite calls for `lanchat_contains(text, folded)`;
/// NULL text contains nothing.
private func lanchatContains(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard count == 2, let values, let text = sqlite3_value_text(values[0]), let needle = sqlite3_value_text(values[1]) else {
        sqlite3_result_int(context, 0)
        return
    }
    let found = SQLiteDatabase.folded(UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(values[0]))),
                                      contains: UnsafeBufferPointer(start: needle, count: Int(sqlite3_value_bytes(values[1]))))
    sqlite3_result_int(context, found ? 1 : 0)
}
