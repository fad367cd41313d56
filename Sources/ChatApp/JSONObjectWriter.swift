/// Writes a `--json` event or reply as the bytes `JSONSerialization` writes
/// for it (`.sortedKeys`, `.withoutEscapingSlashes`), without bridging
/// every value to an `NSObject`: that took 76 µs a message event here, so
/// a `--json` client shown a busy room spent a core on encoding alone and
/// missed most of a flood's events. Handles the values events are made of
/// (strings, integers, booleans, arrays and objects of them, keys of ASCII
/// letters); for anything else `encode` returns nil and the caller uses
/// `JSONSerialization`.
enum JSONObjectWriter {
    static func encode(_ object: [String: Any]) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        guard write(object, into: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    private static func write(_ value: Any, into out: inout [UInt8]) -> Bool {
        // Numbers and booleans by their exact type: a Foundation number
        // (from parsed JSON) casts to Bool and to Int alike, and
        // JSONSerialization writes it by what it holds.
        let kind = type(of: value)
        switch value {
        case let text as String:
            string(text, into: &out)
        case let flag as Bool where kind == Bool.self:
            out.append(contentsOf: flag ? trueBytes : falseBytes)
        case let number as Int where kind == Int.self:
            integer(number, into: &out)
        case let number as Int64 where kind == Int64.self:
            integer(number, into: &out)
        case let number as UInt64 where kind == UInt64.self:
            integer(number, into: &out)
        case let number as Int32 where kind == Int32.self:
            integer(number, into: &out)
        case let number as UInt16 where kind == UInt16.self:
            integer(number, into: &out)
        case let object as [String: Any]:
            guard object.keys.allSatisfy(isLetters) else { return false }
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted(by: precedes).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                guard write(object[key]!, into: &out) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        case let array as [Any]:
            out.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard write(element, into: &out) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        default:
            return false
        }
        return true
    }

    /// Whether a key is ASCII letters only: the keys whose order below is
    /// known to be Foundation's.
    private static func isLetters(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { byte in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    }

    /// Foundation's key order for letters: case-insensitive, and where two
    /// keys differ only in case, lowercase first at the first difference
    /// (`relayRefusals` after `relayedClaimingSelf`, `b` before `B`).
    private static func precedes(_ a: String, _ b: String) -> Bool {
        var firstCaseDifference: Bool?
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return firstCaseDifference ?? false
            case (nil, _): return true
            case (_, nil): return false
            case let (x?, y?):
                let (foldedX, foldedY) = (x | 0x20, y | 0x20)
                if foldedX != foldedY { return foldedX < foldedY }
                if x != y, firstCaseDifference == nil { firstCaseDifference = x > y }  // lowercase has the higher byte
            }
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func integer<T: BinaryInteger>(_ value: T, into out: inout [UInt8]) {
        out.append(contentsOf: String(value).utf8)
    }

    /// Quotes and escapes: `"` and `\`, the five control characters with
    /// short escapes, every other one below 0x20 as `\u00xx`; all else as
    /// its UTF-8.
    private static func string(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                runStart = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                default:
                    out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                            hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
