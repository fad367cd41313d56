import CSQLite
import ChatCore
import Foundation

/// A prepared statement: bind by 1-based index, step, read columns by
/// 0-based index. Owned by `SQLiteDatabase`'s cache and reused; not Sendable
/// for the same reason as its database.
final class Statement {
    let sql: String
    private let handle: OpaquePointer
    private let path: String

    init(handle: OpaquePointer, sql: String, path: String) {
        self.handle = handle
        self.sql = sql
        self.path = path
    }

    deinit { sqlite3_finalize(handle) }

    /// Virtual-machine steps this statement has run, all runs together:
    /// how much work a query does, without a clock (tests).
    var virtualMachineSteps: Int { Int(sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_VM_STEP, 0)) }

    /// Advances to the next row: true if there is one, false when done.
    func step() throws(StoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let db = sqlite3_db_handle(handle)
            throw .from(code: sqlite3_extended_errcode(db), message: String(cString: sqlite3_errmsg(db)), path: path, sql: sql)
        }
    }

    /// Steps to the end, for statements whose rows are not wanted.
    func run() throws(StoreError) {
        while try step() {}
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding (1-based)

    func bind(_ value: Int64?, at index: Int32) throws(StoreError) {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ value: Int, at index: Int32) throws(StoreError) { try bind(Int64(value), at: index) }

    func bind(_ value: String?, at index: Int32) throws(StoreError) {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        // An explicit byte length: text is stored byte-exact, NUL included
        // (-1 would stop at the first NUL).
        var text = value
        let code = text.withUTF8 { bytes -> Int32 in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, Self.transient)  // empty, not NULL
            }
            return sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                                     Int32(bytes.count), Self.transient)
        }
        try check(code)
    }

    /// Binds a message id as its 16 big-endian bytes, so SQLite's memcmp
    /// order of the blobs is `MessageID`'s order.
    func bind(_ id: MessageID?, at index: Int32) throws(StoreError) {
        guard let id else { return try check(sqlite3_bind_null(handle, index)) }
        let code = withUnsafeBytes(of: id.uuid.uuid) { sqlite3_bind_blob(handle, index, $0.baseAddress, 16, Self.transient) }
        try check(code)
    }

    /// Binds a cursor's timestamp and id at `index` and `index + 1`.
    func bind(_ cursor: HistoryCursor, at index: Int32) throws(StoreError) {
        try bind(cursor.timestamp, at: index)
        try bind(cursor.id, at: index + 1)
    }

    // MARK: Reading (0-based)

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A blob column's bytes (empty for NULL).
    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    func messageID(_ column: Int32) -> MessageID? {
        guard sqlite3_column_bytes(handle, column) == 16, let bytes = sqlite3_column_blob(handle, column) else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: 16)) }
        return MessageID(uuid: UUID(uuid: uuid))
    }

    /// A cursor from a timestamp column and the id column after it.
    func cursor(_ column: Int32) -> HistoryCursor? {
        guard !isNull(column), let id = messageID(column + 1) else { return nil }
        return HistoryCursor(timestamp: int64(column), id: id)
    }

    private func check(_ code: Int32) throws(StoreError) {
        guard code != SQLITE_OK else { return }
        let db = sqlite3_db_handle(handle)
        throw .from(code: code, message: String(cString: sqlite3_errmsg(db)), path: path, sql: sql)
    }

    /// SQLITE_TRANSIENT (the C macro does not import): SQLite copies the
    /// bytes before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
