import ChatCore
import ChatNode
import ChatStore
import Foundation

/// Lines for history pages, the grouped room list, delivery and counters.
extension ConsoleRenderer {
    /// A page with a header line per day; `names` gives display names.
    /// `conversation` is the DM peer's display name (nil for public).
    /// `states`: own DMs' delivery states, shown after them.
    public func history(_ page: HistoryPage, sections: [DaySection], locale: Locale, conversation: String?,
                        states: [MessageID: DeliveryState] = [:], name: (Message) -> String) -> [String] {
        var lines: [String] = []
        if page.messages.isEmpty {
            lines.append(notice(page.hasMoreBefore || page.hasMoreAfter ? "no more in that direction" : "no messages yet"))
            return lines
        }
        if page.hasMoreBefore { lines.append(dim("   ↑ older: /more up")) }
        var index = 0
        let unreadIndex = page.firstUnreadIndex
        for section in sections {
            lines.append(bold("── \(dayTitle(section.start, locale: locale)) ──"))
            for message in page.messages[index..<(index + section.messageCount)] {
                if index == unreadIndex { lines.append(dim("   ── unread ──")) }
                lines.append(self.message(message, name: name(message), conversation: conversation, state: states[message.id]?.rawValue))
                index += 1
            }
        }
        if page.hasMoreAfter { lines.append(dim("   ↓ newer: /more down")) }
        return lines
    }

    /// "Saturday, November 21, 2026" or "2026년 11월 21일 토요일".
    public func dayTitle(_ date: Date, locale: Locale) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.timeZone = timeZone
        formatter.dateStyle = .full
        formatter.timeStyle = .none
        return formatter.string(from: date)
    }

    public func roomGroups(_ groups: [ChatListGroup<RoomSummary>]) -> [String] {
        guard !groups.isEmpty else { return [notice("no conversations yet")] }
        var lines: [String] = []
        for group in groups {
            lines.append(bold(group.title))
            for room in group.items {
                let name = room.room == .publicRoom ? "#public" : "@" + safe(room.peerNickname ?? room.room.description)
                let unread = room.unreadCount > 0 ? bold(" (\(room.unreadCount) unread)") : ""
                let state = room.dmState.map { $0 == .accepted || $0 == .none ? "" : " [\($0.rawValue)]" } ?? ""
                let last = room.lastPreview.map { "  " + safe(String($0.prefix(40))) } ?? ""
                lines.append("  \(name)\(unread)\(state)\(last)")
            }
        }
        return lines
    }

    /// An own DM moved on; `preview` quotes its start when known.
    public func delivery(_ state: DeliveryState, peer name: String, preview: String? = nil) -> String? {
        let quote = preview.map { ": \"\(safe($0))\"" } ?? ""
        return switch state {
        case .delivered: dim("   ✓ delivered to \(safe(name))\(quote)")
        case .sent: dim("   → sent to \(safe(name))\(quote)")
        case .failed: error("not delivered to \(safe(name))\(quote): the conversation was declined")
        case .discarded: dim("   ✗ discarded, never sent to \(safe(name))\(quote)")
        // Held: the command's own answer says why and what to do.
        case .queued, .held: nil
        }
    }

    public func stats(_ counters: NodeCounters, transport: [String: Int]) -> [String] {
        let types = counters.receivedByType.sorted { $0.key < $1.key }.map { "\(safe($0.key)) \($0.value)" }.joined(separator: ", ")
        return [
            notice("frames received: \(types.isEmpty ? "none" : types); messages stored \(counters.stored)"),
            notice("rejected \(counters.rejected), unknown type \(counters.unknownType), duplicates \(counters.duplicates), "
                + "clamped timestamps \(counters.clampedTimestamps)"),
            notice("acks sent \(counters.acksSent), DM retries \(counters.dmRetries), "
                + "catch-up deferred \(counters.catchUpDeferred), refused \(counters.catchUpRefused), invalid catch-up frames \(counters.catchUpInvalid)"),
            notice("signatures refused: \(Self.verdicts(counters.signatureRefusals)), not relayed: \(Self.verdicts(counters.relayRefusals)), "
                + "relayed as mine \(counters.relayedClaimingSelf), unsolicited history replies \(counters.catchUpUnsolicited)"),
            notice("backpressure \(counters.backpressure), commit failures \(counters.commitFailures), events dropped \(counters.eventsDropped), "
                + "refused over a peer's quota \(counters.quotaRefused), aged out of the shared pool \(counters.agedOut), catch-up timeouts \(counters.catchUpTimeouts)"),
            notice("transport: " + transport.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")),
        ]
    }

    /// Refusal counts by verdict name, sorted, or "none".
    private static func verdicts(_ counts: [String: Int]) -> String {
        counts.isEmpty ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}
