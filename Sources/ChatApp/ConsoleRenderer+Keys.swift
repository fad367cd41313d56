import ChatCore
import ChatNode
import Foundation

/// Key continuity in words: the key-change warning, `/verify`, and the
/// trust lines of `/whois`. Peer text is sanitized here, as everywhere in
/// the renderer.
extension ConsoleRenderer {
    /// What follows a verified peer's name, in every front end.
    public static let verifiedMark = "✓"

    /// `name` with the verified mark when `trust` says so.
    public static func marked(_ name: String, _ trust: PeerTrust?) -> String {
        trust?.isVerified == true ? name + " " + verifiedMark : name
    }

    /// The warning for a changed key, plain text (sanitized): "alice's key
    /// is not the one you have seen since 5 March 2026 (…). If you did not
    /// expect this, it may be someone else: /verify alice".
    ///
    /// The one notice for an impostor: it names the node the name belongs
    /// to by its `#tag` (what the console's join line said as "a different
    /// alice" before), and says so when the new name only looks like it.
    public func keyChangedText(_ change: KeyChange, name: String) -> String {
        let who = safe(name)
        let since = change.previousFirstSeen.map { " since " + day($0) } ?? " before"
        let before = shortFingerprint(change.previousFingerprint), now = shortFingerprint(change.fingerprint)
        let keys = change.previousNumber.map { "(before: #\($0.shortTag), key \(before); now: #\(change.peer.number.shortTag), key \(now))" }
            ?? "(before: \(before), now: \(now))"
        // Another spelling of the name (case, width, script): say what it looks like.
        let subject = change.previousNickname.flatMap { $0 == change.peer.nickname ? nil : "\(who) looks like \(safe($0)), and its key" }
            ?? "\(who)'s key"
        if change.previousVerified {
            return "\(subject) is not the one you verified \(keys). It may be someone else: DMs to \(who) are held until you compare safety numbers (/verify \(who)) and confirm (/verify \(who) ok)"
        }
        return "\(subject) is not the one you have seen\(since) \(keys). If you did not expect this, it may be someone else: /verify \(who)"
    }

    /// The console line for a changed key, in the person's conversation.
    public func keyChanged(_ change: KeyChange, name: String) -> String {
        (useColor ? "\u{1B}[33m⚠\u{1B}[0m " : "⚠ ") + dim("@" + safe(name) + " ") + keyChangedText(change, name: name)
    }

    /// `/verify NAME [ok]`.
    public func verification(_ result: KeyVerification, name: String) -> [String] {
        let who = safe(name)
        var lines = ["  \(bold(who))  key \(safe(result.fingerprint))"]
        if let number = result.safetyNumber {
            lines.append("  safety number (the same on both screens):")
            let groups = number.split(separator: " ")
            stride(from: 0, to: groups.count, by: 6).forEach { start in
                lines.append("    " + groups[start..<min(start + 6, groups.count)].joined(separator: " "))
            }
        } else {
            lines.append("  no safety number: this node has no identity key")
        }
        if result.confirmed {
            lines.append("  \(who) is verified \(Self.verifiedMark)" + (result.released > 0 ? "; \(result.released) held DM\(result.released == 1 ? "" : "s") sent" : ""))
        } else {
            lines.append("  " + trustLine(result.trust))
            lines.append("  compare it with \(who) in person or on a call; if it matches: /verify \(who) ok")
        }
        if result.held > 0 { lines.append("  \(result.held) DM\(result.held == 1 ? "" : "s") held until you confirm") }
        return lines
    }

    /// `/discard NAME`: what was dropped (plain text, sanitized).
    public func plainDiscarded(_ count: Int, name: String) -> String {
        count == 0 ? "no DMs are held for \(safe(name))"
            : "\(count) held DM\(count == 1 ? "" : "s") to \(safe(name)) discarded: never sent, kept in the conversation"
    }

    /// How a peer's key stands, for `/whois` and `/verify`.
    public func trustLine(_ trust: PeerTrust) -> String {
        let seen = trust.firstSeen.map { ", first seen " + day($0) } ?? ""
        switch trust.state {
        case .verified: return "trust: verified \(Self.verifiedMark)" + (trust.verifiedAt.map { " on " + day($0) } ?? "") + seen
        case .known: return "trust: known" + seen
        case .new: return "trust: new (not verified)" + seen
        case .changed:
            let before = trust.previousFirstSeen.map { " seen since " + day($0) } ?? ""
            return "trust: CHANGED: its nickname belongs to another key\(before)" + (trust.previousVerified ? ", which you verified" : "") + seen
        }
    }

    /// "3f2a 9c01…": enough to tell two keys apart at a glance.
    func shortFingerprint(_ fingerprint: String) -> String {
        safe(String(fingerprint.prefix(9))) + "…"
    }

    /// "5 March 2026" in the renderer's time zone.
    func day(_ millis: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: Timestamp.date(fromMillis: millis))
        let month = ChatListPeriod.month(year: parts.year ?? 1970, month: parts.month ?? 1).title(in: .english)
        return "\(parts.day ?? 1) \(month) \(parts.year ?? 1970)"
    }
}
