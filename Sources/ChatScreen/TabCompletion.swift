/// Tab completion of the word before the cursor, as weechat does it: a
/// `/command` at the start of the line, otherwise a nickname (with ": "
/// after it when it starts the line, to address that person). Tab again
/// cycles through the other matches; any other key keeps the choice.
public struct TabCompletion: Hashable, Sendable {
    /// The matches, in the order Tab offers them.
    public private(set) var candidates: [String]
    public private(set) var index = 0
    /// Graphemes before the word being completed.
    let start: Int
    /// What the line is once this completion is in: a Tab on anything else
    /// starts over.
    var result: InputLine

    /// The commands `/help` lists (the console's parser knows them, the
    /// session `/log`; a ChatApp test keeps the lists the same).
    public static let commands = [
        "/accept", "/accept-file", "/cancel-file", "/decline", "/decline-file", "/discard", "/dm", "/files", "/filter", "/help",
        "/history", "/jump", "/log", "/more", "/nick", "/open", "/peers", "/quit", "/read", "/rooms", "/search", "/send",
        "/stats", "/unread", "/verify", "/whois",
    ]

    /// Starts completing `line` at its cursor; nil when nothing matches.
    /// `names` come most relevant first (recent speakers, then the list);
    /// `offers` and `transfers` are the open conversation's file ids
    /// (waiting offers; every transfer), newest first.
    public static func begin(_ line: InputLine, names: [String], stages: [String] = [], commands: [String] = commands,
                             offers: [String] = [], transfers: [String] = [],
                             paths: (String) -> [String] = { _ in [] }) -> TabCompletion? {
        let chars = Array(line.text)
        var start = line.cursor
        while start > 0, !chars[start - 1].isWhitespace { start -= 1 }
        let word = String(chars[start..<line.cursor])
        let firstWord = chars.prefix { !$0.isWhitespace }
        let pool: [String]
        if start == 0, word.hasPrefix("/") {
            pool = commands
        } else if firstWord.first == "/" {
            // An argument: peers, a room, or a filter.
            switch String(firstWord) {
            case "/filter": pool = ["all", "none"] + stages
            case "/open", "/history": pool = ["public"] + names
            case "/more": pool = ["up", "down"]
            case "/accept-file", "/decline-file": pool = offers
            case "/cancel-file": pool = transfers
            case "/send" where chars[..<start].split(whereSeparator: \.isWhitespace).count >= 2:
                // `/send NAME PATH`: the path, from the file system.
                pool = paths(word)
            default: pool = names
            }
        } else {
            pool = names
        }
        guard !word.isEmpty || firstWord.first == "/" else { return nil }
        var seen = Set<String>()
        let matches = pool.filter { $0.lowercased().hasPrefix(word.lowercased()) && seen.insert($0).inserted }
        guard !matches.isEmpty else { return nil }
        var completion = TabCompletion(candidates: matches, start: start, result: line)
        completion.result = completion.applied(to: line, replacing: start..<line.cursor)
        return completion
    }

    /// Continues on `line` if it is the one this completion left.
    public func continues(_ line: InputLine) -> Bool { line == result }

    /// The next (or previous) match in place of the current one.
    public mutating func cycle(by step: Int) {
        let insertedEnd = result.cursor
        index = ((index + step) % candidates.count + candidates.count) % candidates.count
        result = applied(to: result, replacing: start..<insertedEnd)
    }

    /// `line` with `range` replaced by the current match and its separator.
    private func applied(to line: InputLine, replacing range: Range<Int>) -> InputLine {
        let candidate = candidates[index]
        let isCommand = candidate.hasPrefix("/")
        // A directory ("docs/") goes on being typed into.
        let separator = candidate.hasSuffix("/") ? "" : start == 0 && !isCommand ? ": " : " "
        var next = line
        // Not past the limit: then the line stays as it was.
        next.replace(range, with: candidate + separator)
        return next
    }
}
