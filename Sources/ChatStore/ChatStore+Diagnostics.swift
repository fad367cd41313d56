import CSQLite
import Dispatch

/// Internal looks at the connection, for tests that check the store keeps
/// its promises (index use, pragmas) rather than trusting the SQL text.
extension ChatStore {
    /// `EXPLAIN QUERY PLAN` details for `sql` (parameters left unbound).
    func queryPlan(_ sql: String) throws(StoreError) -> [String] {
        try db().withStatement("EXPLAIN QUERY PLAN " + sql) { statement throws(StoreError) in
            var details: [String] = []
            while try statement.step() { details.append(statement.string(3) ?? "") }
            return details
        }
    }

    /// The value of a read-only pragma on this connection, e.g. "journal_mode".
    func pragma(_ name: String) throws(StoreError) -> String? {
        try db().withStatement("PRAGMA " + name) { statement throws(StoreError) in
            try statement.step() ? statement.string(0) : nil
        }
    }

    /// Virtual-machine steps `sql`'s cached statement has run so far: the
    /// work a query did, counted rather than timed.
    func virtualMachineSteps(of sql: String) throws(StoreError) -> Int {
        try db().virtualMachineSteps(of: sql)
    }

    /// Whether this call runs on the store's own dispatch queue (a file
    /// store) rather than on the cooperative pool (an in-memory one).
    func runsOnItsOwnQueue() -> Bool {
        DispatchQueue.getSpecific(key: StoreQueue.marker) != nil
    }

    /// Whether SQLite keeps memory statistics in this process (they cost
    /// every allocation a global mutex; `SQLiteDatabase` turns them off).
    static var keepsMemoryStatistics: Bool { sqlite3_memory_used() != 0 }
}
