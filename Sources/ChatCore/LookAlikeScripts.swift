/// Scripts.txt as `LookAlike.isMixedScript` reads it: the script of each
/// range of code points (about 750), built once on first use (a node's
/// start checks its own name) and never changed.
struct LookAlikeScripts: Sendable {
    // Immutable constant data, shared as the Unicode tables of the
    // standard library are.
    static let shared = LookAlikeScripts(LookAlikeData.scripts)

    private let rangeStarts: [UInt32]
    private let ranges: [(end: UInt32, script: String)]

    /// Parses `START-END=SCRIPT` items in hex, sorted and disjoint,
    /// separated by spaces or newlines.
    init(_ text: String) {
        var starts: [UInt32] = []
        var ranges: [(end: UInt32, script: String)] = []
        for item in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = item.split(whereSeparator: { $0 == "-" || $0 == "=" })
            guard parts.count == 3, let start = UInt32(parts[0], radix: 16), let end = UInt32(parts[1], radix: 16) else { continue }
            starts.append(start)
            ranges.append((end, String(parts[2])))
        }
        rangeStarts = starts
        self.ranges = ranges
    }

    /// The script of a code point; nil for Common, Inherited and unassigned.
    func script(of value: UInt32) -> String? {
        // ASCII letters are Latin; the rest of ASCII is Common.
        if value < 0x80 {
            return (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) ? "Latin" : nil
        }
        var low = 0, high = rangeStarts.count
        while low < high {
            let middle = (low + high) / 2
            if rangeStarts[middle] <= value { low = middle + 1 } else { high = middle }
        }
        guard low > 0, value <= ranges[low - 1].end else { return nil }
        return ranges[low - 1].script
    }
}
