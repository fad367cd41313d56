// Writes ChatCore's `LookAlikeData.swift` from the pinned data files
// (Sources/ChatCore/Unicode), so the data is compiled into every binary
// that links ChatCore and no resource bundle has to travel beside it (a
// binary copied into a container image alone still has its look-alikes).
// Run by LookAlikeDataPlugin at build time; scripts/fuzz.sh runs it too.
//
//   LookAlikeDataGenerator CONFUSABLES SCRIPTS OUTPUT
import Foundation

/// A data file's entries: its lines without comments, split at `;`.
struct DataFile {
    let version: String
    let entries: [[String]]

    init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var version: String?
        var entries: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# Version: ") {
                version = String(line.dropFirst("# Version: ".count)).trimmingCharacters(in: .whitespaces)
            }
            let data = line.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            if data.isEmpty { continue }
            entries.append(data.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        guard let version else { throw GeneratorError("\(path): no '# Version:' line") }
        self.version = version
        self.entries = entries
    }
}

struct GeneratorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Items joined by spaces into lines of at most `width` characters.
func packed(_ items: [String], width: Int = 118) -> [String] {
    var lines: [String] = []
    var line = ""
    for item in items {
        if !line.isEmpty, line.count + 1 + item.count > width {
            lines.append(line)
            line = item
        } else {
            line = line.isEmpty ? item : line + " " + item
        }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
}

/// `SOURCE>TARGET[,TARGET...]`, the form `LookAlikePrototypes` parses,
/// with `~` for `>` where the prototype is not plain: not all starters
/// that NFD leaves alone, so a skeleton that uses it is normalized again.
/// Worked out here, once, rather than at every start of a node.
func confusableItems(_ file: DataFile) throws -> [String] {
    try file.entries.map { fields in
        guard fields.count == 2, !fields[0].isEmpty, !fields[1].isEmpty else {
            throw GeneratorError("confusables: not 'SOURCE ; PROTOTYPE': \(fields)")
        }
        let targets = fields[1].split(separator: " ")
        let scalars = targets.compactMap { UInt32($0, radix: 16).flatMap(Unicode.Scalar.init) }
        guard scalars.count == targets.count else { throw GeneratorError("confusables: not a scalar in \(fields)") }
        let text = String(String.UnicodeScalarView(scalars))
        let plain = scalars.allSatisfy { $0.properties.canonicalCombiningClass == .notReordered }
            && text.decomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(scalars)
        return "\(fields[0])\(plain ? ">" : "~")\(targets.joined(separator: ","))"
    }
}

/// `START-END=SCRIPT` in hex without leading zeros.
func scriptItems(_ file: DataFile) throws -> [String] {
    try file.entries.map { fields in
        let points = fields.first?.split(separator: ".", omittingEmptySubsequences: true) ?? []
        guard fields.count == 2, let start = points.first.flatMap({ UInt32($0, radix: 16) }),
              let end = points.last.flatMap({ UInt32($0, radix: 16) }) else {
            throw GeneratorError("scripts: not 'START..END ; SCRIPT': \(fields)")
        }
        return "\(String(start, radix: 16, uppercase: true))-\(String(end, radix: 16, uppercase: true))=\(fields[1])"
    }
}

func generate(confusablesPath: String, scriptsPath: String) throws -> String {
    let confusables = try DataFile(path: confusablesPath)
    let scripts = try DataFile(path: scriptsPath)
    var lines = [
        "// Generated at build time by LookAlikeDataGenerator from Sources/ChatCore/Unicode",
        "// (confusables.txt: UTS #39 \(confusables.version); scripts.txt: Unicode \(scripts.version)). Do not edit.",
        "",
        "enum LookAlikeData {",
        "    static let confusablesVersion = \"\(confusables.version)\"",
        "    static let scriptsVersion = \"\(scripts.version)\"",
        "    /// `SOURCE>TARGET[,TARGET...]` in hex (`~`: not plain), separated by spaces.",
        "    static let confusables = \"\"\"",
    ]
    lines += packed(try confusableItems(confusables))
    lines += ["\"\"\"", "", "    /// `START-END=SCRIPT` in hex, sorted and disjoint, separated by spaces.", "    static let scripts = \"\"\""]
    lines += packed(try scriptItems(scripts))
    lines += ["\"\"\"", "}", ""]
    return lines.joined(separator: "\n")
}

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: LookAlikeDataGenerator CONFUSABLES SCRIPTS OUTPUT\n".utf8))
    exit(2)
}
do {
    let source = try generate(confusablesPath: arguments[1], scriptsPath: arguments[2])
    // Rewritten only when it changes, so an unchanged file does not
    // recompile ChatCore.
    if (try? String(contentsOfFile: arguments[3], encoding: .utf8)) != source {
        try source.write(toFile: arguments[3], atomically: true, encoding: .utf8)
    }
} catch {
    FileHandle.standardError.write(Data("LookAlikeDataGenerator: \(error)\n".utf8))
    exit(1)
}
