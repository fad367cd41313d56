import Foundation

/// Reads README.md's generated-by-hand, checked-by-test tables.
public enum ReadmeTable {
    /// The body rows (header and separator dropped) of the table that
    /// follows the line `<!-- limits: NAME -->` in README.md, trimmed.
    public static func limitRows(_ name: String) throws -> [String] {
        // Tests/TestSupport/ReadmeTable.swift -> the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let marker = lines.firstIndex(of: "<!-- limits: \(name) -->") else { return [] }
        let table = lines[(marker + 1)...].prefix { $0.hasPrefix("|") }
        return Array(table.dropFirst(2))
    }
}
