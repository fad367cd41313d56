import ChatCore
import Foundation

/// A message ready to draw: sanitized once on arrival, with its day and
/// time worked out, so a frame costs no calendar or sanitizing work.
public struct ShownMessage: Hashable, Sendable {
    public var message: Message
    public var name: String
    public var text: String
    /// "HH:mm" in the screen's time zone.
    public var time: String
    /// yyyymmdd, to draw a day header where it changes.
    public var day: Int
    public var isOwn: Bool
    /// "name: text", what the room wraps, and its display width.
    public var body: String
    public var bodyWidth: Int
    /// It names the reader (`AttentionRule`): drawn highlighted.
    public var highlight = false

    public init(_ message: Message, name: String, isOwn: Bool, calendar: Calendar) {
        self.message = message
        self.name = TerminalText.sanitize(name)
        text = TerminalText.sanitize(message.content)
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: message.sentAt)
        day = (parts.year ?? 0) * 10_000 + (parts.month ?? 0) * 100 + (parts.day ?? 0)
        time = Self.twoDigits(parts.hour ?? 0) + ":" + Self.twoDigits(parts.minute ?? 0)
        self.isOwn = isOwn
        body = self.name + ": " + text
        bodyWidth = DisplayWidth.of(body)
    }

    public var cursor: HistoryCursor { message.cursor }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The day header's text: "23 November 2026" or "2026년 11월 23일".
    public static func dayTitle(_ day: Int, language: ChatListGrouping.Language) -> String {
        let year = day / 10_000, month = day / 100 % 100, date = day % 100
        switch language {
        case .english: return "\(date) \(ChatListPeriod.month(year: year, month: month).title(in: .english)) \(year)"
        case .korean: return "\(year)년 \(month)월 \(date)일"
        }
    }
}
