import Foundation

/// The documents that tests hold to the code, by name: the limits tables of
/// docs/OPERATIONS.md, and the examples, vectors and signed example of
/// docs/PROTOCOL.md. A document that moves changes here only; one that is
/// missing, or a table that is gone, fails the test that reads it.
public enum ProjectDocument: String, Sendable {
    case operations = "docs/OPERATIONS.md"
    case wireProtocol = "docs/PROTOCOL.md"

    /// The package root (this file is Tests/TestSupport/ProjectDocument.swift).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The document's text.
    public func text() throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(rawValue), encoding: .utf8)
    }

    /// The body rows (header and separator dropped), trimmed, of the table
    /// that follows the line `<!-- limits: NAME -->` in docs/OPERATIONS.md.
    public static func limitRows(_ name: String) throws -> [String] {
        let lines = try operations.text().split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let marker = lines.firstIndex(of: "<!-- limits: \(name) -->") else {
            throw MissingTable(name: name, document: operations.rawValue)
        }
        let table = lines[(marker + 1)...].prefix { $0.hasPrefix("|") }
        return Array(table.dropFirst(2))
    }

    /// A limits table a test looked for is not in its document.
    public struct MissingTable: Error, CustomStringConvertible {
        public let name: String
        public let document: String
        public var description: String { "no line `<!-- limits: \(name) -->` in \(document)" }
    }
}
