import Foundation

/// A message's identity: a UUID in the version 7 layout (RFC 9562), whose
/// first 48 bits are the Unix time in milliseconds. Ids therefore sort by
/// creation time, so the store inserts them in index order.
///
/// Compared byte by byte (big-endian), which is the time order. On the wire
/// it is the canonical lowercase UUID string.
public struct MessageID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let uuid: UUID

    public init(uuid: UUID) { self.uuid = uuid }

    /// Parses the canonical 36-character form (either case): hex digits
    /// with hyphens after the 8th, 12th, 16th and 20th, exactly what
    /// `UUID(uuidString:)` accepts, without its sscanf (a frame's id is
    /// parsed on every receive).
    public init?(_ string: String) {
        var string = string
        guard let id = string.withUTF8(Self.parse) else { return nil }
        self = id
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> MessageID? {
        guard utf8.count == 36 else { return nil }
        var halves: (high: UInt64, low: UInt64) = (0, 0)
        var nibbles = 0
        for (position, byte) in utf8.enumerated() {
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            if nibbles < 16 {
                halves.high = halves.high << 4 | UInt64(nibble)
            } else {
                halves.low = halves.low << 4 | UInt64(nibble)
            }
            nibbles += 1
        }
        return MessageID(high: halves.high, low: halves.low)
    }

    /// A version 7 id for `millis`, with `random` filling the other bits.
    public init(millis: Int64, random: (UInt64, UInt64)) {
        let ms = UInt64(clamping: max(0, millis)) & 0xFFFF_FFFF_FFFF
        let high = (ms << 16) | 0x7000 | (random.0 & 0x0FFF)
        let low = (random.1 & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        self.init(high: high, low: low)
    }

    init(high: UInt64, low: UInt64) {
        // Two big-endian words are the UUID's 16 bytes in order (no array).
        uuid = UUID(uuid: unsafeBitCast((high.bigEndian, low.bigEndian), to: uuid_t.self))
    }

    /// The id's 128 bits as two big-endian halves.
    public var halves: (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: uuid.uuid) { raw in
            (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
             UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// The creation time in the id, in milliseconds since 1970 (version 7 only).
    public var millis: Int64 { Int64(halves.high >> 16) }

    public static func < (lhs: MessageID, rhs: MessageID) -> Bool {
        let l = lhs.halves, r = rhs.halves
        return l.high != r.high ? l.high < r.high : l.low < r.low
    }

    public var description: String { uuid.uuidString.lowercased() }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let id = MessageID(string) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a UUID: \(string.prefix(40))")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Makes strictly increasing version 7 ids, even within one millisecond or
/// when the wall clock steps back: a new id that would not sort after the last
/// one becomes the last one plus one (RFC 9562, method 3's spirit).
public struct MessageIDGenerator: Sendable {
    private var last: (high: UInt64, low: UInt64)?

    public init() {}

    public mutating func next(millis: Int64) -> MessageID {
        var rng = SystemRandomNumberGenerator()
        return next(millis: millis, using: &rng)
    }

    public mutating func next<G: RandomNumberGenerator>(millis: Int64, using rng: inout G) -> MessageID {
        var id = MessageID(millis: millis, random: (rng.next(), rng.next()))
        if let last {
            let candidate = id.halves
            if candidate.high < last.high || (candidate.high == last.high && candidate.low <= last.low) {
                id = Self.successor(of: last)
            }
        }
        last = id.halves
        return id
    }

    /// The next id after `value`, keeping the version and variant bits.
    private static func successor(of value: (high: UInt64, low: UInt64)) -> MessageID {
        let lowRandom = value.low & 0x3FFF_FFFF_FFFF_FFFF
        if lowRandom < 0x3FFF_FFFF_FFFF_FFFF {
            return MessageID(high: value.high, low: (lowRandom + 1) | 0x8000_0000_0000_0000)
        }
        // The 62 low random bits ran out: carry into rand_a, then the time.
        var high = value.high
        if high & 0x0FFF < 0x0FFF {
            high += 1
        } else {
            high = ((high >> 16) + 1) << 16 | 0x7000
        }
        return MessageID(high: high, low: 0x8000_0000_0000_0000)
    }
}
