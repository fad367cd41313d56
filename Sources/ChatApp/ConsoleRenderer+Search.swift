import ChatCore
import ChatStore
import Foundation

/// Lines for `/search` results: one a message, newest stored first,
/// numbered for `/jump N`, the matched text in bold.
extension ConsoleRenderer {
    /// `first` numbers the first line; `room` labels a room (#public,
    /// @name), `name` gives a sender's display name.
    public func searchResults(_ results: SearchResults, first: Int, room: (RoomID) -> String, name: (Message) -> String) -> [String] {
        var lines: [String] = []
        if results.hits.isEmpty {
            lines.append(notice(first == 1 ? "nothing found for \"\(safe(results.query.text))\"" : "no more results for \"\(safe(results.query.text))\""))
        }
        for (offset, hit) in results.hits.enumerated() {
            let message = hit.message
            let number = dim(String(format: "%3d", first + offset))
            lines.append("\(number) \(dim(dateTime(message.timestamp))) \(dim(room(message.room))) \(bold(safe(name(message)))): "
                + highlighted(message.content, query: results.query))
        }
        if results.continueBefore != nil {
            let scanned = results.scanned > 0 ? " (looked at \(results.scanned) messages; short text is searched a stretch at a time)" : ""
            lines.append(dim("   more: /search with no words\(scanned) · /jump N opens a result"))
        } else if !results.hits.isEmpty {
            lines.append(dim("   /jump N opens a result"))
        }
        return lines
    }

    /// `text` made safe, each match of the query in bold (Latin letters in
    /// either case, as the search matched them).
    func highlighted(_ text: String, query: SearchQuery) -> String {
        let safeText = safe(text)
        guard useColor else { return safeText }
        var result = ""
        var rest = safeText[...]
        while let range = rest.range(of: query.text, options: [.caseInsensitive]) {
            result += rest[..<range.lowerBound] + bold(String(rest[range]))
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    /// "2024-11-21 14:03" in the renderer's time zone.
    public func dateTime(_ millis: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: Timestamp.date(fromMillis: millis))
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }
}
