import CSQLite
import ChatCore

extension StoreError {
    /// Classifies a failed SQLite call by its primary result code.
    static func from(code: Int32, message: String, path: String, sql: String) -> StoreError {
        switch code & 0xFF {
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH:
            .cannotOpen(path: path, code: code, message: message)
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            .corrupt(path: path, code: code, message: message)
        case SQLITE_BUSY, SQLITE_LOCKED:
            .busy(path: path, code: code, message: message)
        case SQLITE_FULL, SQLITE_IOERR:
            .io(path: path, code: code, message: message)
        default:
            .sqlite(code: code, message: message, sql: sql)
        }
    }
}
