/// Names that look alike to a person though their characters differ
/// (Cyrillic `аlice` beside Latin `alice`), after Unicode's UTS #39:
/// the skeleton, and whether a name mixes scripts. Data: confusables.txt
/// and Scripts.txt, pinned in `Unicode/` and compiled in as `LookAlikeData`
/// by the LookAlikeDataPlugin at build time, parsed on first use
/// (`LookAlikeScripts`, `LookAlikePrototypes`).
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
        let tables = LookAlikePrototypes.shared
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
                bytes.append(contentsOf: tables.utf8[prototype.utf8])
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
            guard let script = LookAlikeScripts.shared.script(of: scalar.value) else { continue }
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
            if let script = LookAlikeScripts.shared.script(of: scalar.value), !seen.contains(script) { seen.append(script) }
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
