import ChatCore
import Foundation

/// The number two people compare to know their nodes hold each other's
/// keys (Signal's numeric fingerprint, version 0, with lanchat's keys and
/// node numbers; PROTOCOL.md, "Safety numbers").
///
/// For each side: `d = SHA-512(0x00 0x00 || key || id)`, then 5,200 times
/// `d = SHA-512(d || key)`, where `key` is the 32-byte Ed25519 public key
/// and `id` the ASCII decimal node number the key derives. The first 30
/// bytes of `d`, as six 5-byte big-endian numbers, each mod 100,000 and
/// written as 5 digits, make that side's 30 digits. The two halves are
/// joined smaller first (as strings), so both people see the same 60 digits.
///
/// Why iterated: a forger must grind keys until 30 digits match; each try
/// costs 5,201 hashes instead of one (Signal's argument).
public enum SafetyNumber {
    public static let iterations = 5200
    static let version: [UInt8] = [0, 0]

    /// The 30 digits of one side.
    public static func half(key: IdentityKey.Public) -> String {
        let id = Array(String(key.nodeNumber.rawValue).utf8)
        var digest = SHA512.hash(version + key.rawValue + id)
        for _ in 0..<iterations { digest = SHA512.hash(digest + key.rawValue) }
        var digits = ""
        for chunk in 0..<6 {
            let value = digest[chunk * 5..<chunk * 5 + 5].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 100_000
            let text = String(value)
            digits += String(repeating: "0", count: 5 - text.count) + text
        }
        return digits
    }

    /// The 60 digits both sides show, grouped by 5 with spaces (12 groups).
    public static func compute(_ one: IdentityKey.Public, _ other: IdentityKey.Public) -> String {
        let a = half(key: one), b = half(key: other)
        return grouped(a <= b ? a + b : b + a)
    }

    /// From base64 keys (as `identityKey` carries them); nil if either is not a key.
    public static func compute(encoded one: String, _ other: String) -> String? {
        guard let first = decode(one), let second = decode(other) else { return nil }
        return compute(first, second)
    }

    static func decode(_ text: String) -> IdentityKey.Public? {
        guard let bytes = Data(base64Encoded: text) else { return nil }
        return try? IdentityKey.Public(rawValue: Array(bytes))
    }

    static func grouped(_ digits: String) -> String {
        var groups: [String] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let end = digits.index(index, offsetBy: 5, limitedBy: digits.endIndex) ?? digits.endIndex
            groups.append(String(digits[index..<end]))
            index = end
        }
        return groups.joined(separator: " ")
    }
}
