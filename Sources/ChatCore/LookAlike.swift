/// Names that look alike to a person though their characters differ
/// (Cyrillic `аlice` beside Latin `alice`), after Unicode's UTS #39:
/// the skeleton, and whether a name mixes scripts. Data: confusables.txt
/// and Scripts.txt, pinned in `Unicode/` and compiled in as `LookAlikeData`
/// by the LookAlikeDataPlugin at build time.
public enum LookAlike {
    /// UTS #39's skeleton: NFD, each character replaced by its prototype
    /// from confusables.txt, NFD again. Two strings with equal skeletons
    /// are confusable. Applied to `NodeName.clashKey` by `key(_:)`.
    public static func skeleton(_ text: String) -> String {
        mapPrototypes(ofDecomposed: text.decomposedStringWithCanonicalMapping)
    }

    /// What names are compared by: the skeleton of the clash key, so
    /// `alice`, `ALICE`, `ａｌｉｃｅ` and Cyrillic `аlice` share one.
    public static func key(_ name: String) -> String {
        // Printable ASCII maps to itself or to ASCII (`0` → `O`, `l` → `l`):
        // the common case needs no normalization.
        if name.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return skeleton(name.lowercased())
        }
        // skeleton(clashKey(name)) in one normalization fewer: clashKey
        // ends in NFKC and the skeleton starts with NFD, and NFD(NFKC(x))
        // is NFKD(x) (x's compatibility decomposition, recomposed then
        // canonically decomposed again, is itself).
        // A name none of whose characters NFKC or case folding would change
        // (most lowercase names in any script) is its own clash key up to
        // canonical equivalence: its NFD is what the slow path gives.
        if !name.unicodeScalars.contains(where: { $0.properties.changesWhenNFKCCaseFolded }) {
            return mapPrototypes(ofDecomposed: name.decomposedStringWithCanonicalMapping)
        }
        let folded = name.precomposedStringWithCompatibilityMapping.folding(options: [.caseInsensitive], locale: nil)
        return mapPrototypes(ofDecomposed: folded.decomposedStringWithCompatibilityMapping)
    }

    /// UTS #39's middle step on text already in NFD: each character
    /// replaced by its prototype, then NFD again, which is only needed if
    /// something was replaced (text nothing maps in is still NFD).
    private static func mapPrototypes(ofDecomposed text: String) -> String {
        let tables = LookAlikeTables.shared
        // Most characters of most names map to nothing: a bit per BMP code
        // point answers that without hashing, and a name with nothing to
        // map is returned as it came.
        guard text.unicodeScalars.contains(where: { tables.mayMap($0.value) }) else { return text }
        // Built as UTF-8 bytes: appending scalar by scalar to a String
        // cost as much as the look-ups.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        var stillDecomposed = true
        for scalar in text.unicodeScalars {
            if tables.mayMap(scalar.value), let prototype = tables.prototypes[scalar.value] {
                bytes.append(contentsOf: prototype.utf8)
                // Starters that do not decompose keep the text in NFD (no
                // mark can need reordering across them): most prototypes.
                if !prototype.isPlain { stillDecomposed = false }
            } else {
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        let mapped = String(decoding: bytes, as: UTF8.self)
        return stillDecomposed ? mapped : mapped.decomposedStringWithCanonicalMapping
    }

    /// Whether `name` mixes scripts (UTS #39 "mixed-script": its resolved
    /// script set is empty). Common and Inherited characters (digits,
    /// punctuation, emoji, combining marks) go with any script, and Han
    /// goes with Hiragana and Katakana (Japanese), Hangul (Korean) and
    /// Bopomofo, as UTS #39's augmented script sets have it. Script
    /// extensions are not consulted.
    public static func isMixedScript(_ name: String) -> Bool {
        var resolved: Set<String>?
        for scalar in name.unicodeScalars {
            guard let script = LookAlikeTables.shared.script(of: scalar.value) else { continue }
            let augmented = augmentedSet(script)
            resolved = resolved.map { $0.intersection(augmented) } ?? augmented
            if resolved?.isEmpty == true { return true }
        }
        return false
    }

    /// The scripts `name` uses (not Common or Inherited), in order of first use.
    public static func scripts(in name: String) -> [String] {
        var seen: [String] = []
        for scalar in name.unicodeScalars {
            if let script = LookAlikeTables.shared.script(of: scalar.value), !seen.contains(script) { seen.append(script) }
        }
        return seen
    }

    /// The versions of the pinned data (confusables.txt, Scripts.txt).
    public static var dataVersions: (confusables: String, scripts: String) {
        (LookAlikeData.confusablesVersion, LookAlikeData.scriptsVersion)
    }

    private static func augmentedSet(_ script: String) -> Set<String> {
        switch script {
        case "Han": ["Han", "Japanese", "Korean", "HanWithBopomofo"]
        case "Hiragana", "Katakana": [script, "Japanese"]
        case "Hangul": ["Hangul", "Korean"]
        case "Bopomofo": ["Bopomofo", "HanWithBopomofo"]
        default: [script]
        }
    }
}

/// The parsed data, built once on first use (about 6,300 mappings and
/// 750 ranges) and never changed.
struct LookAlikeTables: Sendable {
    // Immutable constant data, shared as the Unicode tables of the
    // standard library are; parsing it per lookup would cost milliseconds.
    static let shared = LookAlikeTables()

    /// A confusable's prototype, as UTF-8; `isPlain` when it is all
    /// starters (combining class 0) that NFD leaves alone, so replacing a
    /// character by it keeps NFD text in NFD.
    struct Prototype: Sendable {
        let utf8: [UInt8]
        let isPlain: Bool
    }

    let prototypes: [UInt32: Prototype]
    /// One bit per BMP code point: set where `prototypes` has an entry.
    private let bmpMaps: [UInt64]
    private let rangeStarts: [UInt32]
    private let ranges: [(end: UInt32, script: String)]

    init(confusables: String = LookAlikeData.confusables, scripts: String = LookAlikeData.scripts) {
        var prototypes: [UInt32: Prototype] = [:]
        for item in confusables.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = item.split(separator: ">")
            guard parts.count == 2, let source = UInt32(parts[0], radix: 16) else { continue }
            let target = parts[1].split(separator: ",").compactMap { UInt32($0, radix: 16).flatMap(Unicode.Scalar.init) }
            let text = String(String.UnicodeScalarView(target))
            let plain = target.allSatisfy { $0.properties.canonicalCombiningClass == .notReordered }
                && text.decomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(target)
            prototypes[source] = Prototype(utf8: Array(text.utf8), isPlain: plain)
        }
        var starts: [UInt32] = []
        var ranges: [(end: UInt32, script: String)] = []
        for item in scripts.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = item.split(whereSeparator: { $0 == "-" || $0 == "=" })
            guard parts.count == 3, let start = UInt32(parts[0], radix: 16), let end = UInt32(parts[1], radix: 16) else { continue }
            starts.append(start)
            ranges.append((end, String(parts[2])))
        }
        self.prototypes = prototypes
        var bits = [UInt64](repeating: 0, count: 0x10000 / 64)
        for source in prototypes.keys where source < 0x10000 { bits[Int(source >> 6)] |= 1 << (source & 63) }
        bmpMaps = bits
        rangeStarts = starts
        self.ranges = ranges
    }

    /// False only where `prototypes` surely has no entry (a BMP code point
    /// whose bit is clear); above the BMP the dictionary decides.
    func mayMap(_ value: UInt32) -> Bool {
        value >= 0x10000 || bmpMaps[Int(value >> 6)] & (1 << (value & 63)) != 0
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
