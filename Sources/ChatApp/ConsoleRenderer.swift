import ChatCore
import ChatNode
import Foundation

/// Formats node events and command results as terminal lines. Every piece
/// of text a peer wrote (nicknames, content, reasons) passes through
/// `TerminalText.sanitize` here, the only way it reaches the terminal.
public struct ConsoleRenderer: Sendable {
    public var useColor: Bool
    public var timeZone: TimeZone

    public init(useColor: Bool, timeZone: TimeZone = .current) {
        self.useColor = useColor
        self.timeZone = timeZone
    }

    /// Whether to color: stdout is a terminal and NO_COLOR is unset or empty.
    public static func wantsColor(environment: [String: String], isTerminal: Bool) -> Bool {
        isTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// One line for a message; `name` is the sender's display name,
    /// `conversation` the DM peer's display name (nil for public), `state`
    /// an own message's delivery state (queued, sent, ...).
    public func message(_ message: Message, name: String, conversation: String?, state: String? = nil) -> String {
        let time = clockTime(message.timestamp)
        let room = conversation.map { "@" + safe($0) } ?? "#public"
        let bot = message.automatic ? " [bot]" : ""
        let delivery = state.map { dim("  · \($0)") } ?? ""
        return "\(dim(time)) \(dim(room)) \(bold(safe(name)))\(bot): \(safe(message.content))\(delivery)"
    }

    public func notice(_ text: String) -> String { dim("-- ") + text }

    public func error(_ text: String) -> String { (useColor ? "\u{1B}[31m!\u{1B}[0m " : "! ") + safe(text) }

    /// `#public`, or `@title` for a DM room.
    public func roomLabel(_ room: RoomID, title: String) -> String {
        room.peer == nil ? "#public" : "@" + safe(title)
    }

    /// A peer linked. Join and leave lines always carry the `#tag`, so the
    /// two can be matched; `formerTag` says the nickname was last seen on
    /// another node.
    /// `keyChanged`: its key was flagged earlier this run (the notice is
    /// not said again): a short warning instead.
    public func peerJoined(_ nickname: String, tag: String, address: String, formerTag: String? = nil, linked: Int? = nil,
                           keyChanged: Bool = false) -> String {
        let who = bold(safe(nickname)) + dim("#" + tag)
        let different = keyChanged ? ": ⚠ key changed (/whois \(safe(nickname)))"
            : formerTag.map { ": a different \(safe(nickname)) (the one before was #\($0))" } ?? ""
        let count = linked.map { ", \($0) linked" } ?? ""
        return notice("\(who) joined (\(safe(address))\(count))\(different)")
    }

    public func peerJoined(_ name: String, address: String) -> String {
        notice("\(bold(safe(name))) joined (\(safe(address)))")
    }

    public func peerLeft(_ nickname: String, tag: String, reason: PeerLeaveReason) -> String {
        let how = switch reason {
        case .left: "left"
        case .timedOut: "timed out"
        case .disconnected: "was disconnected"
        case .restarted: "restarted"
        }
        return notice("\(bold(safe(nickname)))\(dim("#" + tag)) \(how)")
    }

    public func dmRequest(from name: String, text: String) -> String {
        let who = safe(name)
        return notice("\(bold(who)) wants to DM you: \"\(safe(text))\"  (/accept \(who) or /decline \(who))")
    }

    public func dmState(_ state: DMState, peer name: String) -> String? {
        let who = bold(safe(name))
        return switch state {
        case .accepted: notice("DMs with \(who) are open")
        case .declinedByPeer: notice("\(who) declined your DM request")
        case .declinedByMe: notice("you declined \(who)")
        case .outgoingRequest: notice("asked \(who) to accept your DM")
        case .incomingRequest, .none: nil
        }
    }

    /// The peer list, with honest empty states: nobody linked, or nobody
    /// the filter lets through. Linked peers first; then the peers only
    /// heard of (beacons: most of a LAN above the overlay's threshold),
    /// under a line that says so, their names as their beacons said them.
    public func peers(_ listings: [PeerListing], filter: ChatFilter = .all, linked: Int? = nil) -> [String] {
        guard !listings.isEmpty else {
            if let linked, linked > 0 {
                return [notice("no peers match filter \(safe(filter.description)) (\(linked) linked; /filter all shows them)")]
            }
            return [notice("no peers linked yet")]
        }
        var lines = listings.filter(\.linked).map { listing in
            let stage = listing.info.stage.map { " [\(safe($0))]" } ?? ""
            let changed = listing.trust?.state == .changed ? "  ⚠ key changed: /verify \(safe(listing.displayName))" : ""
            return "  \(bold(safe(Self.marked(listing.displayName, listing.trust))))\(stage)  \(dim(safe(listing.info.address)))\(changed)"
        }
        let heard = listings.filter { !$0.linked }
        guard !heard.isEmpty else { return lines }
        if lines.isEmpty {
            lines.append(notice(linked.map { $0 > 0 } == true ? "no linked peers match filter \(safe(filter.description))"
                                                                 : "no peers linked yet"))
        }
        lines.append(notice("\(heard.count) more heard on the LAN, not linked (names as their beacons say):"))
        return lines + heard.map { listing in
            let stage = listing.info.stage.map { " [\(safe($0))]" } ?? ""
            return "  \(safe(listing.displayName))\(stage)  \(dim(safe(listing.info.address)))"
        }
    }

    /// `/whois`: who a name is, and the key to compare out of band.
    public func whois(_ whois: Whois) -> [String] {
        var lines = ["  \(bold(safe(Self.marked(whois.displayName, whois.trust))))  node \(whois.number)"]
        if let peer = whois.linked {
            let stage = peer.stage.map { " [\(safe($0))]" } ?? ""
            lines[0] += "  linked at \(dim(safe(peer.address)))\(stage)"
            if let fingerprint = peer.fingerprint {
                lines.append("  key \(safe(fingerprint))  (compare with what \(safe(peer.nickname))'s own node shows)")
            }
        } else {
            lines[0] += "  not linked now (its key is shown while it is linked)"
        }
        if let other = whois.looksLike {
            lines.append("  looks like \(safe(other)) but is another name: check the key before trusting it")
        }
        if let trust = whois.trust { lines.append("  " + trustLine(trust)) }
        return lines
    }

    public func rooms(_ rooms: [RoomOverview], emptyText: String) -> [String] {
        guard !rooms.isEmpty else { return [notice(emptyText)] }
        return rooms.map { room in
            let name = room.room == .publicRoom ? "#public" : "@" + safe(room.title)
            let unread = room.unread > 0 ? bold(" (\(room.unread) unread)") : ""
            let state = room.dmState.map { $0 == .accepted ? "" : " [\($0.rawValue)]" } ?? ""
            let last = room.last.map { "  " + dim(clockTime($0.timestamp)) + " " + safe(String($0.content.prefix(40))) } ?? ""
            return "  \(name)\(unread)\(state)\(last)"
        }
    }

    /// "HH:mm" in the renderer's time zone.
    public func clockTime(_ millis: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: Timestamp.date(fromMillis: millis))
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    func safe(_ text: String) -> String { TerminalText.sanitize(text) }
    func bold(_ text: String) -> String { useColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { useColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
}
