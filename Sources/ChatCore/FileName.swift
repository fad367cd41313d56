import Foundation

/// A file name a peer offered, made safe to create in the download
/// directory: one path component, nothing a terminal or a file manager
/// could be fooled by, bounded in length (PROTOCOL.md, "Receiver rules").
///
/// Every character a name could hide behind becomes `_`: path separators
/// (`/`, `\`), control characters (C0, DEL, C1: escape sequences), format
/// characters (bidi overrides and isolates, zero-width joiners and spaces,
/// the BOM), line and paragraph separators, and unassigned or private-use
/// code points. Leading dots and spaces go (no hidden files, no `..`),
/// trailing dots and spaces go, and the result is cut to `maxBytes` of
/// UTF-8 at a character boundary, keeping the extension.
public struct FileName: Hashable, Sendable, CustomStringConvertible {
    /// UTF-8 bytes a cleaned name may take: well under NAME_MAX (255), with
    /// room for ` (NNN)` and the partial file's `.ID.part` around it.
    public static let maxBytes = 200
    /// An extension longer than this is not kept whole when cutting.
    static let maxExtensionBytes = 16
    /// What a name that cleans to nothing becomes.
    public static let fallback = "file"

    public let value: String

    public var description: String { value }

    /// Cleans `offered` (never fails: the worst name becomes `file`).
    public init(cleaning offered: String) {
        var text = String(String.UnicodeScalarView(offered.precomposedStringWithCanonicalMapping.unicodeScalars.map(Self.safe)))
        text = String(text.drop { $0 == "." || $0 == " " })
        while let last = text.last, last == "." || last == " " { text.removeLast() }
        if text.isEmpty || text == "." || text == ".." { text = Self.fallback }
        value = Self.cut(text, to: Self.maxBytes)
    }

    /// The scalar itself, or `_` if it could mislead or escape.
    static func safe(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar == "/" || scalar == "\\" { return "_" }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate:
            return "_"
        default:
            // Variation selectors and combining marks are fine; noncharacters are not.
            return scalar.properties.isNoncharacterCodePoint ? "_" : scalar
        }
    }

    /// `text` cut to at most `limit` bytes of UTF-8 at a character
    /// boundary, keeping a short extension.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        let (stem, ext) = split(text)
        let keptExt = ext.utf8.count <= maxExtensionBytes ? ext : ""
        var out = ""
        var used = keptExt.utf8.count
        for character in stem {
            let size = String(character).utf8.count
            guard used + size <= limit else { break }
            out.append(character)
            used += size
        }
        return out + keptExt
    }

    /// `("report", ".pdf")`; a name with no dot after its first character
    /// has no extension.
    static func split(_ text: String) -> (stem: String, ext: String) {
        guard let dot = text.lastIndex(of: "."), dot != text.startIndex else { return (text, "") }
        return (String(text[..<dot]), String(text[dot...]))
    }

    /// The name itself if `exists` says it is free, else `stem (2).ext`,
    /// `stem (3).ext`, ...; nil if none of the first `attempts` is free.
    public func firstFree(attempts: Int = 999, exists: (String) -> Bool) -> String? {
        if !exists(value) { return value }
        let (stem, ext) = Self.split(value)
        guard attempts >= 2 else { return nil }
        for number in 2...attempts {
            let candidate = "\(stem) (\(number))\(ext)"
            if !exists(candidate) { return candidate }
        }
        return nil
    }
}
