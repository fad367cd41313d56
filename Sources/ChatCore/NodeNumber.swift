/// A node's stable identity on the LAN: a random number chosen once and kept
/// in the node's data directory, so a restarted node is the same node.
///
/// Limited to 1...2^53-1 so every JSON implementation (including JavaScript's
/// doubles) reads it exactly. Encoded as a plain JSON number.
public struct NodeNumber: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public static let validRange: ClosedRange<UInt64> = 1...((1 << 53) - 1)

    public let rawValue: UInt64

    /// Fails for 0 and for values past 2^53-1.
    public init?(rawValue: UInt64) {
        guard Self.validRange.contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A fresh random node number.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> NodeNumber {
        NodeNumber(rawValue: UInt64.random(in: validRange, using: &generator))!
    }

    public static func random() -> NodeNumber {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    public static func < (lhs: NodeNumber, rhs: NodeNumber) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Four hex digits that tell apart two peers sharing a nickname (`bob#3f2a`).
    public var shortTag: String {
        let hex = String(rawValue & 0xFFFF, radix: 16)
        return String(repeating: "0", count: 4 - hex.count) + hex
    }

    public var description: String { String(rawValue) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(UInt64.self)
        guard let number = NodeNumber(rawValue: value) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "node number \(value) outside 1...2^53-1")
        }
        self = number
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
