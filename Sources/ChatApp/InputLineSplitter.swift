/// Splits standard input into lines of at most `maxLineBytes` bytes. A
/// longer line is skipped to its newline and reported by its length, so
/// input that never ends a line (a binary file, `/dev/zero`) holds at most
/// the limit in memory; `readLine` held it all (2 GB in 6 s from
/// `/dev/zero`). A line ends at "\n" (one "\r" before it is dropped) or
/// at the end of input, as with `readLine`. Invalid UTF-8 is replaced, not refused.
struct InputLineSplitter {
    let maxLineBytes: Int
    /// The current line's bytes, while it is within the limit.
    private var pending: [UInt8] = []
    /// The current line's length so far once it passed the limit (its bytes
    /// are dropped); nil while it is kept.
    private var skipped: Int?
    /// Whether the last byte skipped was "\r" (not part of the length).
    private var skippedCarriageReturn = false

    init(maxLineBytes: Int) {
        precondition(maxLineBytes > 0)
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes held for the unfinished line (at most `maxLineBytes + 1`: one
    /// "\r" past the limit may still end the line).
    var heldBytes: Int { pending.count }

    /// The lines `bytes` completes, in order.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [EnteredLine] {
        var lines: [EnteredLine] = []
        var start = 0
        while start < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
            let newline = rest.firstIndex(of: 0x0A)
            let chunk = UnsafeRawBufferPointer(rebasing: rest[..<(newline ?? rest.count)])
            take(chunk)
            guard let newline else { break }
            lines.append(endLine(atNewline: true))
            start += newline + 1
        }
        return lines
    }

    /// The unterminated last line at end of input, if any bytes of it came.
    mutating func finish() -> EnteredLine? {
        guard skipped != nil || !pending.isEmpty else { return nil }
        return endLine(atNewline: false)
    }

    private mutating func take(_ chunk: UnsafeRawBufferPointer) {
        if let count = skipped {
            skipped = count + chunk.count
        } else if pending.count + chunk.count > maxLineBytes + 1 {
            skipped = pending.count + chunk.count
            pending = []
        } else {
            pending.append(contentsOf: chunk)
            return
        }
        if let last = chunk.last { skippedCarriageReturn = last == 0x0D }
    }

    /// The line ended by a newline or, `atNewline` false, by the end of
    /// input (which keeps a last "\r", as `readLine` does).
    private mutating func endLine(atNewline: Bool) -> EnteredLine {
        defer {
            pending.removeAll(keepingCapacity: pending.count <= 4_096)
            skipped = nil
            skippedCarriageReturn = false
        }
        if let count = skipped { return .tooLong(bytes: skippedCarriageReturn && atNewline ? count - 1 : count) }
        if atNewline, pending.last == 0x0D { pending.removeLast() }
        guard pending.count <= maxLineBytes else { return .tooLong(bytes: pending.count) }
        return .line(String(decoding: pending, as: UTF8.self))
    }
}
