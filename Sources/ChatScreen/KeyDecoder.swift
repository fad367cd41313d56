/// Turns bytes read from a terminal in raw mode into keys: UTF-8 text
/// (Korean included, split across reads or not), control keys, Alt keys,
/// the escape sequences of xterm's navigation and function keys (with their
/// Shift/Alt/Ctrl parameter), bracketed paste and SGR mouse reports.
///
/// Like a frame decoder: bytes that may start a longer sequence stay
/// buffered until the rest arrives; `flush()` turns a lone ESC (a real
/// Escape press) into a key when no more bytes came (`KeyInput` says when,
/// on the front end's clock).
public struct KeyDecoder: Sendable {
    private var buffer: [UInt8] = []
    /// Inside a bracketed paste: its bytes so far (capped at `maxPaste`).
    private var paste: [UInt8]?
    /// An unfinished sequence longer than this is junk and is dropped.
    static let maxSequence = 32
    /// A paste is kept up to this many bytes (the input holds 240
    /// characters at most anyway); the rest is read and dropped.
    static let maxPaste = 16 * 1024
    static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

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
            if paste != nil {
                guard let end = pasteEnd(from: index) else { return keys }
                index = end
                keys.append(.paste(Self.pasteText(paste!)))
                paste = nil
                continue
            }
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
                index += length
                if key == .paste("") { paste = []; continue }  // ESC[200~ opens a paste
                if let key { keys.append(key) }
            case 0x80...0xFF:
                // A stray continuation byte, an invalid lead, or a lead whose
                // sequence breaks off is dropped alone: the bytes after it
                // are read afresh, so one bad byte costs no good text.
                let length = switch byte {
                case 0xC2...0xDF: 2
                case 0xE0...0xEF: 3
                case 0xF0...0xF4: 4
                default: 0
                }
                let available = buffer[(index + 1)...].prefix(max(length - 1, 0))
                guard length > 0, available.allSatisfy({ (0x80...0xBF).contains($0) }) else { index += 1; continue }
                if index + length > buffer.count { flushText(); buffer.removeFirst(index); return keys }
                let sequence = buffer[index..<(index + length)]
                guard String(validating: sequence, as: UTF8.self) != nil else { index += 1; continue }
                text.append(contentsOf: sequence)
                index += length
            case 0x20..<0x7F:
                text.append(byte)
                index += 1
            default:
                flushText()
                if let key = Self.control(byte) { keys.append(key) }
                index += 1
            }
        }
        flushText()
        buffer.removeAll(keepingCapacity: true)
        return keys
    }

    /// Bytes are held that a pause would settle: a lone ESC (the Escape
    /// key) or the start of a sequence that never finished (dropped). A
    /// paste waits for its end marker however long it takes.
    public var waitsForPause: Bool { paste == nil && !buffer.isEmpty }

    /// A lone ESC left in the buffer once input paused: the Escape key.
    /// A paste stays open across pauses (a slow link may stall mid-paste,
    /// and ending it early would type its next line ends as Enter).
    public mutating func flush() -> [ScreenKey] {
        if paste != nil { return [] }
        defer { buffer.removeAll() }
        return buffer == [0x1B] ? [.escape] : []
    }

    /// Moves paste bytes from the buffer; returns the index after
    /// `ESC[201~`, or nil when the end has not arrived (the buffer then
    /// keeps only what might be the start of the end marker).
    private mutating func pasteEnd(from index: Int) -> Int? {
        var i = index
        while i < buffer.count {
            if buffer[i] == 0x1B {
                let available = min(Self.pasteEnd.count, buffer.count - i)
                if buffer[i..<(i + available)].elementsEqual(Self.pasteEnd[0..<available]) {
                    if available == Self.pasteEnd.count {
                        take(index..<i)
                        return i + available
                    }
                    // Maybe the end marker, split across reads.
                    take(index..<i)
                    buffer.removeFirst(i)
                    return nil
                }
            }
            i += 1
        }
        take(index..<buffer.count)
        buffer.removeAll(keepingCapacity: true)
        return nil
    }

    private mutating func take(_ range: Range<Int>) {
        let room = Self.maxPaste - paste!.count
        if room > 0 { paste!.append(contentsOf: buffer[range].prefix(room)) }
    }

    /// Line ends as "\n" (terminals send CR), a UTF-8 sequence cut by the
    /// size cap mended into U+FFFD by the decoding.
    static func pasteText(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).replacingCRLF()
    }

    static func control(_ byte: UInt8) -> ScreenKey? {
        switch byte {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x7F, 0x08: return .backspace
        case 0x01...0x1A: return .control(Character(Unicode.Scalar(byte + 0x60)))
        default: return nil  // NUL, Ctrl-\ ] ^ _
        }
    }

    /// The key an escape sequence means and its length; nil when more bytes
    /// are needed; a nil key for a complete sequence we do not use.
    /// `.paste("")` stands for the start of a bracketed paste.
    static func escape(_ bytes: ArraySlice<UInt8>) -> (ScreenKey?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let second = bytes[start + 1]
        if second == 0x1B { return (.escape, 1) }
        if second == UInt8(ascii: "O"), bytes.count >= 3 {
            // SS3: F1-F4 and the arrows of application mode.
            let key: ScreenKey? = switch bytes[start + 2] {
            case UInt8(ascii: "P"): .function(1)
            case UInt8(ascii: "Q"): .function(2)
            case UInt8(ascii: "R"): .function(3)
            case UInt8(ascii: "S"): .function(4)
            default: csiKey(final: bytes[start + 2], parameter: "")
            }
            return (key, 3)
        }
        guard second == UInt8(ascii: "[") else {
            // ESC then a key: Alt held. A UTF-8 letter is taken whole.
            if second >= 0x80 {
                let length = second >= 0xF0 ? 4 : second >= 0xE0 ? 3 : 2
                guard bytes.count >= length + 1 else { return nil }
                return (.alt(.text(String(decoding: bytes[(start + 1)...(start + length)], as: UTF8.self))), length + 1)
            }
            if second == UInt8(ascii: "O") { return nil }  // ESC O: wait for the SS3 key
            if (0x20..<0x7F).contains(second) { return (.alt(.text(String(UnicodeScalar(second)))), 2) }
            return (control(second).map { .alt($0) }, 2)
        }
        var end = start + 2
        while end < bytes.endIndex, (0x30...0x3F).contains(bytes[end]) { end += 1 }
        guard end < bytes.endIndex else { return nil }
        let final = bytes[end]
        let parameter = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
        var length = end - start + 1
        if parameter.hasPrefix("<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") {
            return (MouseEvent(sgr: String(parameter.dropFirst()), final: final).map { .mouse($0) }, length)
        }
        if parameter.isEmpty, final == UInt8(ascii: "M") {
            // An old X10 mouse report (the terminal ignored SGR mode): 3 bytes follow.
            guard bytes.count >= length + 3 else { return nil }
            length += 3
            return (nil, length)
        }
        if parameter == "200", final == UInt8(ascii: "~") { return (.paste(""), length) }
        return (csiKey(final: final, parameter: parameter), length)
    }

    /// A CSI key: `ESC [ number ; modifier final`, the modifier being
    /// 1 + (Shift 1 | Alt 2 | Ctrl 4 | Meta 8).
    static func csiKey(final: UInt8, parameter: String) -> ScreenKey? {
        let fields = parameter.split(separator: ";", omittingEmptySubsequences: false)
        let number = fields.first.map(String.init) ?? ""
        let modifier = fields.count > 1 ? (Int(fields[1]).map { $0 - 1 } ?? 0) : 0
        let key: ScreenKey?
        switch final {
        case UInt8(ascii: "A"): key = .up
        case UInt8(ascii: "B"): key = .down
        case UInt8(ascii: "C"): key = .right
        case UInt8(ascii: "D"): key = .left
        case UInt8(ascii: "H"): key = .home
        case UInt8(ascii: "F"): key = .end
        case UInt8(ascii: "Z"): key = .backTab
        case UInt8(ascii: "P") where number == "1": key = .function(1)
        case UInt8(ascii: "~"):
            switch number {
            case "1", "7": key = .home
            case "4", "8": key = .end
            case "3": key = .delete
            case "5": key = .pageUp
            case "6": key = .pageDown
            case "11", "12", "13", "14", "15": key = .function(Int(number)! - 10)
            case "17", "18", "19", "20", "21": key = .function(Int(number)! - 11)
            case "23", "24": key = .function(Int(number)! - 12)
            default: key = nil
            }
        default: key = nil
        }
        guard var result = key else { return nil }
        if modifier & 4 != 0 { result = .ctrl(result) }
        if modifier & (2 | 8) != 0 { result = .alt(result) }
        return result
    }
}

extension String {
    /// CR LF and lone CR as LF.
    func replacingCRLF() -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        var lastWasCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" { out.append("\n"); lastWasCR = true; continue }
            if scalar == "\n", lastWasCR { lastWasCR = false; continue }
            lastWasCR = false
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
