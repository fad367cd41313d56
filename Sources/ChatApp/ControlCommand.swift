import ChatCore

/// A request from the user, whichever front end it came from: a console
/// line (`/dm bob hi`) or a JSON line (`{"cmd":"dm","to":"bob","text":"hi"}`).
public enum ControlCommand: Hashable, Sendable {
    /// Text for a room; nil room = the open room (public at start).
    case say(String, room: String?, automatic: Bool)
    case dm(to: String, text: String, automatic: Bool)
    case accept(String)
    case decline(String)
    case open(String)
    case peers
    /// A peer's number, key fingerprint and address.
    case whois(String)
    /// A peer's safety number; `confirm` marks its key verified (`/verify NAME ok`).
    case verify(String, confirm: Bool)
    /// Drop the DMs held for a peer's key change (`/discard NAME`).
    case discard(String)
    case rooms
    case unread
    case nick(String)
    /// Open a room's history around its read marker (nil: the open room).
    case history(String?)
    /// Page the open history older (up) or newer (down).
    case more(older: Bool)
    /// Mark the open room read up to the newest message shown.
    case read
    /// Show or set the filter: "all", "none" (no stage), or a stage.
    case filter(String?)
    /// Search every room's history for text (nil: the next page of the
    /// last search); `before` continues from a result page's cursor.
    case search(String?, before: Int64?, limit: Int?)
    /// Open the history around result N (from 1) of the last search.
    case jump(Int)
    case stats
    /// Offer a file to a peer; accept, decline or cancel a transfer by id
    /// (or a unique start or end of it); list transfers.
    case sendFile(to: String, path: String)
    case acceptFile(String)
    case declineFile(String)
    case cancelFile(String)
    case files
    case help
    case quit

    /// The command's name as scripts spell it.
    public var name: String {
        switch self {
        case .say: "send"
        case .dm: "dm"
        case .accept: "accept"
        case .decline: "decline"
        case .open: "open"
        case .peers: "peers"
        case .whois: "whois"
        case .verify: "verify"
        case .discard: "discard"
        case .rooms: "rooms"
        case .unread: "unread"
        case .nick: "nick"
        case .history: "history"
        case .more: "more"
        case .read: "read"
        case .filter: "filter"
        case .search: "search"
        case .jump: "jump"
        case .stats: "stats"
        case .sendFile: "sendFile"
        case .acceptFile: "acceptFile"
        case .declineFile: "declineFile"
        case .cancelFile: "cancelFile"
        case .files: "files"
        case .help: "help"
        case .quit: "quit"
        }
    }
}

/// Parses a console line. Plain text is a message for the open room; a
/// line starting with "/" is a command ("//" sends a literal "/").
public enum ConsoleCommandParser {
    public static func parse(_ line: String) throws(UsageError) -> ControlCommand? {
        if line.hasPrefix("//") { return .say(String(line.dropFirst()), room: nil, automatic: false) }
        if let search = searchCommand(line) { return search }
        guard line.hasPrefix("/") else {
            return line.trimmingWhitespace().isEmpty ? nil : .say(line, room: nil, automatic: false)
        }
        let words = line.dropFirst().split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        guard let verb = words.first?.lowercased() else { throw UsageError("empty command; /help lists them") }
        func argument(_ what: String) throws(UsageError) -> String {
            guard words.count >= 2 else { throw UsageError("/\(verb) needs \(what)") }
            return words.dropFirst().joined(separator: " ")
        }
        switch verb {
        case "dm", "msg":
            // `/dm bob` alone opens the conversation, as `/open bob` does:
            // what people type first to start one.
            if words.count == 2 { return .open(words[1]) }
            guard words.count == 3 else { throw UsageError("usage: /dm NAME [TEXT]") }
            return .dm(to: words[1], text: words[2], automatic: false)
        case "accept": return .accept(try argument("a NAME"))
        case "decline": return .decline(try argument("a NAME"))
        case "open": return .open(try argument("a ROOM (public, or a peer's name)"))
        case "peers", "who": return .peers
        case "whois": return .whois(try argument("a NAME"))
        case "verify":
            // The last word "ok" confirms; a name is one word (or name#tag).
            let rest = try argument("a NAME (then /verify NAME ok to confirm)").split(separator: " ").map(String.init)
            if rest.count == 2, rest[1].lowercased() == "ok" { return .verify(rest[0], confirm: true) }
            guard rest.count == 1 else { throw UsageError("usage: /verify NAME, then /verify NAME ok") }
            return .verify(rest[0], confirm: false)
        case "discard": return .discard(try argument("a NAME (whose held DMs are dropped)"))
        case "rooms": return .rooms
        case "unread": return .unread
        case "nick": return .nick(try argument("a NAME"))
        case "history": return .history(words.count >= 2 ? words.dropFirst().joined(separator: " ") : nil)
        case "more":
            switch words.count >= 2 ? words[1].lowercased() : "up" {
            case "up", "older": return .more(older: true)
            case "down", "newer": return .more(older: false)
            default: throw UsageError("usage: /more [up|down]")
            }
        case "read": return .read
        case "filter": return .filter(words.count >= 2 ? words.dropFirst().joined(separator: " ") : nil)
        case "jump":
            guard words.count == 2, let number = Int(words[1]), number >= 1 else { throw UsageError("usage: /jump N (a /search result's number)") }
            return .jump(number)
        case "stats": return .stats
        case "send":
            guard words.count == 3 else { throw UsageError("usage: /send NAME PATH") }
            return .sendFile(to: words[1], path: words[2])
        case "accept-file": return .acceptFile(try argument("a transfer ID (/files lists them)"))
        case "decline-file": return .declineFile(try argument("a transfer ID (/files lists them)"))
        case "cancel-file": return .cancelFile(try argument("a transfer ID (/files lists them)"))
        case "files": return .files
        case "help", "?": return .help
        case "quit", "exit", "q": return .quit
        default: throw UsageError("unknown command /\(verb); /help lists them")
        }
    }

    /// `/search WORDS`: the text after the verb exactly as typed (spaces
    /// inside it count; it is literal), or nil text for the next page.
    private static func searchCommand(_ line: String) -> ControlCommand? {
        guard line.hasPrefix("/") else { return nil }
        let verb = line.dropFirst().prefix { $0 != " " && $0 != "\t" }
        guard verb.lowercased() == "search" else { return nil }
        let text = String(line.dropFirst(1 + verb.count)).trimmingWhitespace()
        return .search(text.isEmpty ? nil : text, before: nil, limit: nil)
    }
}
