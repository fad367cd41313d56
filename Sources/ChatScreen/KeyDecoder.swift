/// Turns bytes read from a terminal in raw mode into keys: UTF-8 text
/// (Korean included, split across reads or not), control keys, and the
/// escape sequences of arrows, PgUp/PgDn, Home/End and Shift-Tab.
///
/// Like a frame decoder: bytes that may start a longer sequence stay
/// buffered until the rest arrives; `flush()` turns a lone ESC (a real
/// Escape press) into a key when no more bytes came.
public struct KeyDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// An unfinished sequence longer than this is junk and is dropped.
    static let maxSequence = 16

    public init() {}

    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [ScreenKey] {
        buffer.append(contentsOf: bytes)
        var keys: [ScreenKey] = []
        var text: [UInt8] = []
        func flushText() {
            if !text.isEmpty { keys.append(.text(String(decoding: text, as: UTF8.self))); text = [] }
        }
        var index = 0
        while index < buffer.count {
            let byte = buffer[index]
            switch byte {
            case 0x1B:
                guard let (key, length) = Self.escape(buffer[index...]) else {
                    // Incomplete: wait for more, unless it is hopeless.
                    if buffer.count - index > Self.maxSequence { index = buffer.count; continue }
                    flushText()
                    buffer.removeFirst(index)
                    return keys
                }
                flushText()
                if let key { keys.append(key) }
                index += length
            case 0x0D, 0x0A: flushText(); keys.append(.enter); index += 1
            case 0x09: flushText(); keys.append(.tab); index += 1
            case 0x7F, 0x08: flushText(); keys.append(.backspace); index += 1
            case 0x01...0x1A: flushText(); keys.append(.control(Character(Unicode.Scalar(byte + 0x60)))); index += 1
            case 0x00, 0x1C...0x1F: index += 1
            case 0x80...0xFF:
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if index + length > buffer.count { flushText(); buffer.removeFirst(index); return keys }
                text.append(contentsOf: buffer[index..<(index + length)])
                index += length
            default:
                text.append(byte)
                index += 1
            }
        }
        flushText()
        buffer.removeAll(keepingCapacity: true)
        return keys
    }

    /// A lone ESC left in the buffer once input paused: the Escape key.
    public mutating func flush() -> [ScreenKey] {
        defer { buffer.removeAll() }
        return buffer == [0x1B] ? [.escape] : []
    }

    /// The key an escape sequence means and its length; nil when more bytes
    /// are needed; a nil key for a complete sequence we do not use.
    static func escape(_ bytes: ArraySlice<UInt8>) -> (ScreenKey?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let second = bytes[start + 1]
        guard second == UInt8(ascii: "[") || second == UInt8(ascii: "O") else {
            if second == 0x1B { return (.escape, 1) }
            return (nil, 2)  // Alt+key: ignored
        }
        var end = start + 2
        while end < bytes.endIndex, (0x30...0x3F).contains(bytes[end]) { end += 1 }
        guard end < bytes.endIndex else { return nil }
        let final = bytes[end]
        let parameter = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
        let length = end - start + 1
        switch (final, parameter) {
        case (UInt8(ascii: "A"), _): return (.up, length)
        case (UInt8(ascii: "B"), _): return (.down, length)
        case (UInt8(ascii: "C"), _): return (.right, length)
        case (UInt8(ascii: "D"), _): return (.left, length)
        case (UInt8(ascii: "H"), _): return (.home, length)
        case (UInt8(ascii: "F"), _): return (.end, length)
        case (UInt8(ascii: "Z"), _): return (.backTab, length)
        case (UInt8(ascii: "~"), "5"): return (.pageUp, length)
        case (UInt8(ascii: "~"), "6"): return (.pageDown, length)
        case (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): return (.home, length)
        case (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): return (.end, length)
        default: return (nil, length)
        }
    }
}
