import ChatCore

/// Finds the first key that an object repeats, anywhere in a JSON document.
///
/// `JSONDecoder` keeps one value of a repeated key without a word, while
/// Python and JavaScript readers keep the last: a monitor in those languages
/// would read a different message. So the codec refuses such a frame
/// (`FrameError.duplicateKey`) before decoding. Keys compare as Swift
/// strings, after unescaping ("a" and "\u0061" are one key).
///
/// Iterative (no recursion, so nesting depth cannot exhaust the stack);
/// O(n) in the frame's bytes. Returns nil when no key repeats, and also when
/// the bytes are not well-formed JSON: then `JSONDecoder` names the error.
struct DuplicateKeyScanner: JSONByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

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
            case UInt8(ascii: "\""): guard string(loneSurrogate: "\u{FFFD}") != nil else { return nil }
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
        // A lone surrogate only matters for comparing keys: U+FFFD.
        guard let key = string(loneSurrogate: "\u{FFFD}") else { return false }
        skipSpace()
        guard take(UInt8(ascii: ":")) else { return false }
        if open[open.count - 1]!.insert(key).inserted == false, duplicate == nil { duplicate = key }
        return true
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
}
