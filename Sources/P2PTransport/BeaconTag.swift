import ChatCrypto

/// A beacon authenticated to a private group (`P2PConfiguration.groupSecret`):
/// the untagged JSON datagram with its final `}` replaced by
///
///     ,"tag":"<64 lowercase hex digits>"}
///
/// where the tag is `GroupSecret.beaconTag` (HMAC-SHA256 with the group's
/// beacon key) over the untagged bytes. Nodes without a secret read a
/// tagged beacon as usual (unknown fields are ignored); nodes with one drop
/// every datagram whose tag does not verify, so outsiders are not dialled.
enum BeaconTag {
    static let prefix = Array(#","tag":""#.utf8)
    static let suffix = Array(#""}"#.utf8)
    /// Bytes a tag adds to a datagram.
    static let overhead = prefix.count + 2 * GroupSecret.tagByteCount + suffix.count

    static func tagged(_ datagram: [UInt8], with secret: GroupSecret) -> [UInt8] {
        guard datagram.last == UInt8(ascii: "}") else { return datagram }
        let tag = secret.beaconTag(datagram)
        return datagram.dropLast() + prefix + Array(hex(tag).utf8) + suffix
    }

    /// The untagged datagram and the tag, or nil if `datagram` carries no
    /// well-formed tag.
    static func split(_ datagram: some Collection<UInt8>) -> (untagged: [UInt8], tag: [UInt8])? {
        let bytes = Array(datagram)
        guard bytes.count > overhead, bytes.suffix(suffix.count).elementsEqual(suffix) else { return nil }
        let start = bytes.count - overhead
        guard bytes[start..<(start + prefix.count)].elementsEqual(prefix) else { return nil }
        let hexDigits = bytes[(start + prefix.count)..<(bytes.count - suffix.count)]
        guard let tag = unhex(hexDigits) else { return nil }
        return (Array(bytes[..<start]) + [UInt8(ascii: "}")], tag)
    }

    /// Whether `datagram` carries a valid tag of `secret`; nil if it carries no tag.
    static func verify(_ datagram: some Collection<UInt8>, with secret: GroupSecret) -> Bool? {
        guard let (untagged, tag) = split(datagram) else { return nil }
        return secret.isValidBeaconTag(tag, for: untagged)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func unhex(_ digits: some Collection<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var iterator = digits.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = value(high), let l = value(low) else { return nil }
            out.append(h << 4 | l)
        }
        return out
    }
}
