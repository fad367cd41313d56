import ChatCore

/// The file's health, as SQLite checks it.
extension ChatStore {
    /// Runs SQLite's full integrity check; logs each problem and returns
    /// false if there is any. Reads the whole file: not for every start.
    public func integrityCheck() throws(StoreError) -> Bool {
        let problems = try db().withStatement("PRAGMA integrity_check") { statement throws(StoreError) -> [String] in
            var rows: [String] = []
            while try statement.step() { rows.append(statement.string(0) ?? "") }
            return rows
        }
        if problems == ["ok"] { return true }
        for problem in problems { logger.error("integrity check: \(problem)") }
        return false
    }
}
