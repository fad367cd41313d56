/// Finds the first key that an object repeats, anywhere in a JSON document.
///
/// `JSONDecoder` keeps one value of a repeated key without a word, while
/// Python and JavaScript readers keep the last: a monitor in those languages
/// would read a different message. So the codec refuses such a frame
/// (`FrameError.duplicateKey`) before decoding. Keys compare as Swift
/// strings, after unescaping ("a" and "\u0061" are one key).
///
/// Iterative (no recursion, so nesting depth cannot exhaust the stack);
/// O(n) in the line's bytes. Returns nil when no key repeats, and also when
/// the bytes are not well-formed JSON: then `JSONDecoder` names the error.
struct DuplicateKeyScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    static func firstDuplicate(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var scanner = DuplicateKeyScanner(bytes: bytes)
        return scanner.document()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// One open container: the keys an object has seen, or nil for an array.
    private typealias Container = Set<String>?

    private mutating func document() -> String? {
        var open: [Container] = []
        var duplicate: String?
        // Each turn reads one value, then what may follow it.
        while true {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                index += 1
                open.append(isObject ? Set<String>() : nil)
                skipSpace()
                if take(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    open.removeLast()
                } else {
                    if isObject { guard key(into: &open, duplicate: &duplicate) else { return nil } }
                    continue
                }
            case UInt8(ascii: "\""): guard string() != nil else { return nil }
            case UInt8(ascii: "t"): guard literal("true") else { return nil }
            case UInt8(ascii: "f"): guard literal("false") else { return nil }
            case UInt8(ascii: "n"): guard literal("null") else { return nil }
            default: guard number() else { return nil }
            }
            // After a value: a comma and the next member, or closing brackets.
            following: while true {
                skipSpace()
                guard let top = open.last else { return index == bytes.count ? duplicate : nil }
                if take(UInt8(ascii: ",")) {
                    if top != nil { guard key(into: &open, duplicate: &duplicate) else { return nil } }
                    break following
                }
                guard take(top == nil ? UInt8(ascii: "]") : UInt8(ascii: "}")) else { return nil }
                open.removeLast()
            }
        }
    }

    /// Reads `"key":` into the innermost object, noting the first repeat.
    private mutating func key(into open: inout [Container], duplicate: inout String?) -> Bool {
        skipSpace()
        guard let key = string() else { return false }
        skipSpace()
        guard take(UInt8(ascii: ":")) else { return false }
        if open[open.count - 1]!.insert(key).inserted == false, duplicate == nil { duplicate = key }
        return true
    }

    /// A JSON string, unescaped; a lone surrogate becomes U+FFFD (it only
    /// matters for comparing keys; JSONDecoder judges the value).
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    guard let unit = hex4() else { return nil }
                    var scalar = unit
                    if (0xD800..<0xDC00).contains(unit), bytes.count - index >= 6,
                       bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                        let mark = index
                        index += 2
                        if let low = hex4(), (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = mark
                        }
                    }
                    utf8.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")!)
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                utf8.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(bytes[index])).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() -> Bool {
        _ = take(UInt8(ascii: "-"))
        if take(UInt8(ascii: "0")) {} else if digits() == 0 { return false }
        if take(UInt8(ascii: ".")), digits() == 0 { return false }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            if digits() == 0 { return false }
        }
        return true
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }
}
