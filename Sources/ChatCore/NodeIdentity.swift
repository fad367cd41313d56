import Foundation

/// Who the local node is. Injected into the chat models (never a global), so
/// `isFromCurrentUser` is decided against it.
public struct NodeIdentity: Hashable, Sendable, Codable {
    public var number: NodeNumber
    public var nickname: String
    /// A free label (team, track, cohort); nil for none.
    public var stage: String?

    public init(number: NodeNumber, nickname: String, stage: String? = nil) {
        self.number = number
        self.nickname = nickname
        self.stage = stage
    }
}

/// Why a nickname or stage was refused.
public enum NameValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(characters: Int, limit: Int)
    case tooManyBytes(bytes: Int, limit: Int)
    case controlCharacters
    /// An invisible code point (zero-width space or joiner, a bidi control,
    /// a Hangul filler, ...): it would make a name that looks like another.
    case invisibleCharacters(codePoint: UInt32)
    /// A nickname with a space could not be named in `/dm NAME TEXT`.
    case whitespace
    /// Letters of two scripts that do not go together (Latin with
    /// Cyrillic, say): the way to a name that looks like another's.
    case mixedScripts([String])

    public var description: String {
        switch self {
        case .empty: "name is empty"
        case .tooLong(let characters, let limit): "name is \(characters) characters long; the limit is \(limit)"
        case .tooManyBytes(let bytes, let limit): "name is \(bytes) bytes of UTF-8; the limit is \(limit)"
        case .controlCharacters: "name contains control characters"
        case .invisibleCharacters(let value):
            "name contains an invisible character (U+\(String(value, radix: 16, uppercase: true).leftPadded(to: 4))), which would let it pass for another name"
        case .whitespace: "a nickname cannot contain spaces (it could not be named in /dm NAME TEXT); try a-b or a_b"
        case .mixedScripts(let scripts):
            "a nickname cannot mix \(scripts.joined(separator: " and ")) letters (it could pass for another name); use one script"
        }
    }
}

public enum NodeName {
    /// A trimmed nickname or stage of 1...32 characters (128 bytes) with no
    /// control characters (peers' names reach terminals) and no invisible
    /// (Unicode default-ignorable) code points, except the variation
    /// selectors and joiners inside an emoji sequence. Applied to names
    /// peers send too: a frame or beacon whose name fails is refused.
    public static func validated(_ name: String) throws(NameValidationError) -> String {
        // Printable ASCII, no space at either end, at most the character
        // limit: valid as it is (no control, invisible or multi-byte
        // character; one byte is one character), decided without the
        // Unicode property lookups below. Every frame's name passes here.
        let utf8 = name.utf8
        if (1...ChatLimits.maxNameCharacters).contains(utf8.count), utf8.first != 0x20, utf8.last != 0x20,
           utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return name
        }
        let trimmed = name.trimmingWhitespace()
        if trimmed.isEmpty { throw .empty }
        if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .controlCharacters
        }
        // Bytes first: 32 characters of stacked combining marks could
        // otherwise push a beacon past its 1 KiB.
        if trimmed.utf8.count > ChatLimits.maxNameBytes {
            throw .tooManyBytes(bytes: trimmed.utf8.count, limit: ChatLimits.maxNameBytes)
        }
        if let invisible = firstInvisible(in: trimmed) { throw .invisibleCharacters(codePoint: invisible.value) }
        let characters = trimmed.count
        if characters > ChatLimits.maxNameCharacters {
            throw .tooLong(characters: characters, limit: ChatLimits.maxNameCharacters)
        }
        return trimmed
    }

    /// `validated`, no whitespace inside and one script: what the local
    /// user may pick (`--nick`, `/nick`). Peers' names with spaces (older
    /// versions) or mixed scripts are still accepted on receive; they can
    /// be named by `#tag`, and a mixed one always shows its tag.
    public static func validatedNickname(_ name: String) throws(NameValidationError) -> String {
        let valid = try validated(name)
        if valid.unicodeScalars.contains(where: { $0.properties.isWhitespace }) { throw .whitespace }
        if LookAlike.isMixedScript(valid) { throw .mixedScripts(LookAlike.scripts(in: valid)) }
        return valid
    }

    /// The form two names are compared in for clashes: NFKC, case folded,
    /// NFKC again (Unicode's NFKC_Casefold, without its ignorable removal,
    /// which `validated` already refuses). `alice`, `ALICE` and `ａｌｉｃｅ`
    /// share one key.
    public static func clashKey(_ name: String) -> String {
        let compatible = name.precomposedStringWithCompatibilityMapping
        let folded = compatible.folding(options: [.caseInsensitive], locale: nil)
        return folded.precomposedStringWithCompatibilityMapping
    }

    /// The first default-ignorable scalar that is not part of an emoji
    /// sequence (a variation selector after an emoji, or a zero-width joiner
    /// between two emoji, as in 👩‍💻).
    static func firstInvisible(in name: String) -> Unicode.Scalar? {
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar.properties.isDefaultIgnorableCodePoint {
            let previous = index > 0 ? scalars[index - 1] : nil
            let next = index + 1 < scalars.count ? scalars[index + 1] : nil
            switch scalar.value {
            case 0xFE0E, 0xFE0F:
                if let previous, isPictographic(previous) { continue }
            case 0x200D:
                // After an emoji (possibly with its FE0F or skin tone), before an emoji.
                let before = scalars[..<index].last { !isEmojiModifierOrSelector($0) }
                if let before, let next, isPictographic(before), isPictographic(next) { continue }
            default:
                break
            }
            return scalar
        }
        return nil
    }

    /// An emoji that is not an ASCII digit, `#` or `*` (those are `isEmoji`
    /// too, for keycaps, and a joiner between two digits would hide).
    private static func isPictographic(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x7F && scalar.properties.isEmoji
    }

    private static func isEmojiModifierOrSelector(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFE0F || scalar.properties.isEmojiModifier
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
