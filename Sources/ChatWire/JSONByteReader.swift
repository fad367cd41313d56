import ChatCore

/// The JSON tokens both of the codec's byte scanners read
/// (`FastPayloadParser`, `DuplicateKeyScanner`, and the overlay's
/// `OverlayFrameParser`): one implementation of strings, escapes, literals
/// and white space over one frame's bytes. A reader in another module
/// reads through `JSONCursor`.
package protocol JSONByteReader {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    var index: Int { get set }
}

extension JSONByteReader {
    /// A JSON string; nil for anything but the plain and escaped forms
    /// JSON allows (raw control characters, bad escapes). A lone surrogate
    /// escape becomes `loneSurrogate`, or makes the string nil when that is
    /// nil.
    package mutating func string(loneSurrogate: Unicode.Scalar?) -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start, loneSurrogate: loneSurrogate) }
            if byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    package mutating func escapedString(from start: Int, loneSurrogate: Unicode.Scalar?) -> String? {
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
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
                    guard let scalar = unicodeEscape(loneSurrogate: loneSurrogate) else { return nil }
                    utf8.append(contentsOf: UTF8.encode(scalar)!)
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                utf8.append(byte)
            }
        }
        return nil
    }

    /// The scalar after `\u`: one escape, or a surrogate pair of two. A
    /// lone surrogate gives `loneSurrogate` (the index then just past its
    /// own escape); bad hex digits give nil.
    package mutating func unicodeEscape(loneSurrogate: Unicode.Scalar?) -> Unicode.Scalar? {
        guard let unit = hex4() else { return nil }
        guard (0xD800..<0xDC00).contains(unit) else { return Unicode.Scalar(unit) ?? loneSurrogate }
        let mark = index
        if take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low) {
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        }
        index = mark
        return loneSurrogate
    }

    package mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    package mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    package mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    package mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// `-?(0|[1-9][0-9]*)` within Int64; fractions, exponents and leading
    /// zeros are left to JSONDecoder.
    package mutating func integer() -> Int64? {
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var magnitude: UInt64 = 0
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, !(digits > 1 && bytes[start] == UInt8(ascii: "0")) else { return nil }
        if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) { return nil }
        if negative { return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}

/// The tokens for a reader in another module (the overlay's frame
/// parser), as concrete methods compiled here. Called through the
/// protocol's generic extension from another module they ran unspecialized,
/// through witnesses (a profile of the `overlay-codec` row: the parser at
/// 1.8x JSONDecoder's rate instead of several times).
package struct JSONCursor: JSONByteReader {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// A string; nil for anything JSON does not allow, and for a lone surrogate.
    package mutating func readString() -> String? { string(loneSurrogate: nil) }
    /// Steps over a string, lone surrogates and all: false if it is not one.
    package mutating func skipString() -> Bool { string(loneSurrogate: "\u{FFFD}") != nil }
    package mutating func readInteger() -> Int64? { integer() }
    package mutating func readLiteral(_ word: StaticString) -> Bool { literal(word) }
    package mutating func expect(_ byte: UInt8) -> Bool { take(byte) }
    package mutating func skipWhitespace() { skipSpace() }
}
