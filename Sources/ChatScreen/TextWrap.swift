/// Breaks text into lines of at most a given display width, at a space
/// when one is near, else mid-word (a long URL still wraps).
enum TextWrap {
    static func lines(_ text: String, first: Int, rest: Int) -> [Substring] {
        var lines: [Substring] = []
        var start = text.startIndex
        var limit = max(1, first)
        while start < text.endIndex {
            var width = 0
            var index = start
            var lastSpace: String.Index?
            while index < text.endIndex {
                let w = DisplayWidth.of(text[index])
                if width + w > limit { break }
                if text[index] == " " { lastSpace = index }
                width += w
                index = text.index(after: index)
            }
            if index == start { index = text.index(after: index) }  // one cluster wider than the line
            if index < text.endIndex, let lastSpace, lastSpace > start, text[index] != " " {
                lines.append(text[start..<lastSpace])
                start = text.index(after: lastSpace)
            } else {
                lines.append(text[start..<index])
                start = index
                if start < text.endIndex, text[start] == " " { start = text.index(after: start) }
            }
            limit = max(1, rest)
        }
        return lines.isEmpty ? [""] : lines
    }
}
