/// A panel's lines (`/help`, `/peers`, the key legend) as drawn over the
/// room: a long line wraps under its own text column, and a panel taller
/// than the room scrolls (`ScreenState.panelTop`), so the end of `/help`
/// (`/send`, `/quit`) is not cut off on a short terminal.
enum PanelLayout {
    /// The rows `lines` take in a room `width` columns wide, each ready to
    /// draw one column in from the room's edge.
    static func rows(_ lines: [String], width: Int) -> [String] {
        var rows: [String] = []
        let common = textColumn(lines, width: width)
        for (line, continuation) in paragraphs(lines, width: width) {
            let indent = continuation ?? hangingIndent(line, width: width, common: common)
            for (index, part) in TextWrap.lines(line, first: width - 2, rest: width - 2 - indent).enumerated() {
                rows.append((index == 0 ? "" : String(repeating: " ", count: indent)) + part)
            }
        }
        return rows
    }

    /// Text wrapped by hand for 80 columns, in a narrower room: a
    /// two-column line that must wrap here takes in the lines that continue
    /// its text (indented to its text column), so "show it / from / where
    /// you stopped" reads as one paragraph rather than a stub line between
    /// two. Lines that fit, entries at one indentation (`/peers`, `/rooms`)
    /// and entries under a heading (`/log`'s lines) stay as they are.
    static func paragraphs(_ lines: [String], width: Int) -> [(text: String, continuation: Int?)] {
        var out: [(text: String, continuation: Int?)] = []
        for line in lines {
            let lead = line.prefix { $0 == " " }.count
            if let last = out.last, lead < line.count, DisplayWidth.of(last.text) > width - 2,
               lead > last.text.prefix(while: { $0 == " " }).count,
               (last.continuation ?? hangingIndent(last.text, width: width)) == lead {
                out[out.count - 1] = (last.text + " " + line.dropFirst(lead), lead)
                continue
            }
            out.append((line, nil))
        }
        return out
    }

    /// Where a wrapped line goes on: under its text, so a two-column line
    /// ("  /open ROOM      switch room ...") continues under "switch",
    /// not under "/open"; otherwise under its own indentation. A text
    /// column past half the width would leave too little room: then the
    /// indentation.
    ///
    /// `common` is the panel's usual text column (`textColumn`): a command
    /// that fills its column to one space short of it
    /// ("/cancel-file ID stop ...") still continues there.
    static func hangingIndent(_ line: String, width: Int, common: Int? = nil) -> Int {
        let chars = Array(line)
        let indent = chars.prefix { $0 == " " }.count
        if let common, indent < common, common < chars.count, chars[common - 1] == " ", chars[common] != " " {
            return common
        }
        var index = indent
        while index < chars.count {
            // A run of two or more spaces after the first word(s) starts the text column.
            if chars[index] == " ", index + 1 < chars.count, chars[index + 1] == " " {
                var end = index
                while end < chars.count, chars[end] == " " { end += 1 }
                guard end < chars.count else { return indent }
                let column = DisplayWidth.of(String(chars[..<end]))
                return column <= (width - 2) / 2 ? column : indent
            }
            index += 1
        }
        return indent
    }

    /// The text column most two-column lines share (`/help`'s 18), if at
    /// least three do; nil otherwise. Counted in characters, as lines are
    /// indexed (panel text before the column is ASCII).
    static func textColumn(_ lines: [String], width: Int) -> Int? {
        var counts: [Int: Int] = [:]
        for line in lines {
            let column = hangingIndent(line, width: width)
            if column > line.prefix(while: { $0 == " " }).count { counts[column, default: 0] += 1 }
        }
        guard let (column, count) = counts.max(by: { $0.value < $1.value }), count >= 3 else { return nil }
        return column
    }

    /// Rows of the room a panel may fill: all but the last, which says how
    /// it closes (and scrolls).
    static func visibleRows(_ state: ScreenState) -> Int { max(0, state.messageRows - 1) }

    /// The panel's rows in the current room, and the highest `panelTop`
    /// (0 when it fits).
    static func extent(_ state: ScreenState) -> (rows: [String], maxTop: Int) {
        let rows = rows(state.panel ?? [], width: state.roomWidth)
        return (rows, max(0, rows.count - visibleRows(state)))
    }
}
