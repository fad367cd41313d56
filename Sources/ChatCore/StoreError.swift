/// Why the history store failed. Every case that comes from SQLite carries
/// its extended result code (`code`, see https://sqlite.org/rescode.html) and
/// `sqlite3_errmsg` text, captured at the call that failed. Beside the
/// `ChatStoring` port so the node can name it without linking SQLite; the
/// store classifies SQLite's codes into it (StoreError+SQLite.swift).
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database file could not be opened or created: a missing
    /// directory, no permission, a directory in the way (SQLITE_CANTOPEN,
    /// SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH).
    case cannotOpen(path: String, code: Int32, message: String)
    /// The file is not a SQLite database, or its pages are damaged
    /// (SQLITE_NOTADB, SQLITE_CORRUPT). The file is left as it is.
    case corrupt(path: String, code: Int32, message: String)
    /// Another connection kept the database locked past the busy timeout
    /// (SQLITE_BUSY, SQLITE_LOCKED): most likely two nodes share one data
    /// directory.
    case busy(path: String, code: Int32, message: String)
    /// The disk is full or failing (SQLITE_FULL, SQLITE_IOERR): the write
    /// was rolled back.
    case io(path: String, code: Int32, message: String)
    /// Any other SQLite failure, with the statement that failed.
    case sqlite(code: Int32, message: String, sql: String)
    /// The file was written by a newer lanchat whose schema this build does
    /// not know; it is not touched.
    case newerSchema(found: Int32, supported: Int32)
    /// A stored row this build cannot read (e.g. an id that is not 16 bytes,
    /// a room name that is not `public` or `dm:<n>`).
    case malformedRow(table: String, reason: String)
    /// The store was closed; open a new one.
    case closed

    /// The SQLite extended result code, for the cases that have one.
    public var code: Int32? {
        switch self {
        case .cannotOpen(_, let code, _), .corrupt(_, let code, _), .busy(_, let code, _), .io(_, let code, _),
             .sqlite(let code, _, _):
            code
        case .newerSchema, .malformedRow, .closed:
            nil
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code, let message):
            "cannot open history database \(path): \(message) (SQLite code \(code))"
        case .corrupt(let path, let code, let message):
            "history database \(path) is not a database or is damaged: \(message) (SQLite code \(code))"
        case .busy(let path, let code, let message):
            "history database \(path) is locked by another process (another node using the same data directory?): \(message) (SQLite code \(code))"
        case .io(let path, let code, let message):
            "cannot write history database \(path): \(message) (SQLite code \(code))"
        case .sqlite(let code, let message, let sql):
            "SQLite error \(code): \(message) in \(sql.prefix(120))"
        case .newerSchema(let found, let supported):
            "history database has schema version \(found); this build knows up to \(supported)"
        case .malformedRow(let table, let reason):
            "unreadable row in \(table): \(reason)"
        case .closed:
            "history store is closed"
        }
    }
}
