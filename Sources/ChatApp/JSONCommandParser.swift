import Foundation

/// Parses one `--json` input line into a command. Every mistake is a
/// `UsageError` the session reports as an error event; none ends the session.
///
///     {"cmd":"send","text":"hi"}            {"cmd":"dm","to":"bob","text":"hi"}
///     {"cmd":"accept","peer":"bob"}         {"cmd":"open","room":"public"}
///     {"cmd":"search","text":"안녕"}         {"cmd":"search","text":"안녕","before":1234}
///
/// An optional "id" (string or number) is echoed back as "re" in the reply;
/// "tag" does the same and wins, for the file commands whose "id" names a
/// transfer (a script can then tell two requests on one transfer apart).
public enum JSONCommandParser {
    public struct Parsed {
        public var command: ControlCommand
        public var requestID: String?
    }

    public static func parse(_ line: String) throws(UsageError) -> Parsed {
        guard let data = line.data(using: .utf8),
              let any = try? JSONSerialization.jsonObject(with: data),
              let object = any as? [String: Any] else {
            throw UsageError("not a JSON object")
        }
        func tag(_ value: Any?) -> String? {
            switch value {
            case let text as String: text
            case let number as NSNumber: number.stringValue
            default: nil
            }
        }
        let requestID = tag(object["tag"]) ?? tag(object["id"])
        guard let verb = object["cmd"] as? String else { throw UsageError("missing string field \"cmd\"") }
        func string(_ key: String) throws(UsageError) -> String {
            guard let value = object[key] as? String else { throw UsageError("\(verb): missing string field \"\(key)\"") }
            return value
        }
        func peer(_ key: String) throws(UsageError) -> String {
            if let number = object[key] as? NSNumber, isNotBoolean(number) { return number.stringValue }
            return try string(key)
        }
        func integer(_ key: String) throws(UsageError) -> Int64? {
            guard let value = object[key] else { return nil }
            guard let number = value as? NSNumber, isNotBoolean(number), let exact = Int64(exactly: number.doubleValue) else {
                throw UsageError("\(verb): \"\(key)\" is a whole number")
            }
            return exact
        }
        let automatic = (object["automatic"] as? Bool) ?? false
        let command: ControlCommand
        switch verb {
        case "send", "say": command = .say(try string("text"), room: object["room"] as? String, automatic: automatic)
        case "dm": command = .dm(to: try peer("to"), text: try string("text"), automatic: automatic)
        case "accept": command = .accept(try peer("peer"))
        case "decline": command = .decline(try peer("peer"))
        case "open": command = .open(try string("room"))
        case "peers": command = .peers
        case "whois": command = .whois(try peer(object["name"] != nil ? "name" : "peer"))
        case "verify":
            // "accept" is the same as "confirm".
            let confirm = (object["confirm"] as? Bool) ?? (object["accept"] as? Bool) ?? false
            command = .verify(try peer(object["name"] != nil ? "name" : "peer"), confirm: confirm)
        case "discard": command = .discard(try peer(object["name"] != nil ? "name" : "peer"))
        case "rooms": command = .rooms
        case "unread": command = .unread
        case "nick": command = .nick(try string("nickname"))
        case "history": command = .history(object["room"] as? String)
        case "more":
            switch (object["direction"] as? String) ?? "up" {
            case "up", "older": command = .more(older: true)
            case "down", "newer": command = .more(older: false)
            default: throw UsageError("more: \"direction\" is \"up\" or \"down\"")
            }
        case "read": command = .read
        case "filter": command = .filter(object["filter"] as? String)
        case "search":
            command = .search(try string("text"), before: try integer("before"), limit: try integer("limit").map { Int(clamping: $0) })
        case "jump":
            guard let number = try integer("result"), number >= 1 else { throw UsageError("jump: \"result\" is a number from 1") }
            command = .jump(Int(number))
        case "stats": command = .stats
        case "sendFile": command = .sendFile(to: try peer("to"), path: try string("path"))
        case "acceptFile": command = .acceptFile(try string("id"))
        case "declineFile": command = .declineFile(try string("id"))
        case "cancelFile": command = .cancelFile(try string("id"))
        case "files": command = .files
        case "help": command = .help
        case "quit": command = .quit
        default: throw UsageError("unknown cmd \"\(verb.prefix(40))\"")
        }
        return Parsed(command: command, requestID: requestID)
    }

    /// NSNumber also bridges booleans; a peer is never `true`.
    private static func isNotBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) != "c"
    }
}
