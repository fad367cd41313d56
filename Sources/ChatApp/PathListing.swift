import Foundation

/// Tab completion of a path being typed (`/send NAME PATH`): the entries
/// of the typed directory that start with the typed name, as typed (a
/// leading `~/` stays), directories with a trailing "/". Hidden entries
/// only when the name starts with a dot; at most 200.
enum PathListing {
    static func candidates(for word: String) -> [String] {
        let slash = word.lastIndex(of: "/")
        let typedDirectory = slash.map { String(word[...$0]) } ?? ""
        let stem = slash.map { String(word[word.index(after: $0)...]) } ?? word
        let directory = typedDirectory.isEmpty ? "." : CommandExecutor.expandingTilde(typedDirectory)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasPrefix(stem) && (stem.hasPrefix(".") || !$0.hasPrefix(".")) }
            .sorted().prefix(200)
            .map { name in
                var isDirectory: ObjCBool = false
                let full = (directory as NSString).appendingPathComponent(name)
                let isDir = FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) && isDirectory.boolValue
                return typedDirectory + name + (isDir ? "/" : "")
            }
    }
}
