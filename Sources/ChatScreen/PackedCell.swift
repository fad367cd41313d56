/// A cell as `ScreenGrid` stores it: one integer, so clearing, copying and
/// comparing a frame's cells (12,000 at 200x60) moves no strings and
/// retains nothing.
///
/// Bits 0-31 hold the code: a Unicode scalar value, or `interned` plus an
/// index into the grid's `GraphemeTable` for a cluster of several scalars.
/// Bits 32-39 hold the foreground, 40-47 the background (`CellColor` raw
/// values), 48 bold, 49 reverse, 50 dim, and 51 marks the right half of a
/// wide character.
struct PackedCell: Hashable, Sendable, BitwiseCopyable {
    var bits: UInt64

    /// Set in a code that names a `GraphemeTable` entry (scalars stop at 0x10FFFF).
    static let interned: UInt32 = 0x8000_0000
    static let internedBit: UInt64 = 0x8000_0000
    static let continuationBit: UInt64 = 1 << 51
    /// The style's bits (colours, bold, reverse, dim), continuation excluded.
    static let styleMask: UInt64 = 0x0007_FFFF_0000_0000

    init(bits: UInt64) { self.bits = bits }

    init(code: UInt32, style: CellStyle, isContinuation: Bool = false) {
        bits = UInt64(code) | Self.pack(style) | (isContinuation ? Self.continuationBit : 0)
    }

    init(code: UInt32, styleBits: UInt64) { bits = UInt64(code) | styleBits }

    var code: UInt32 { UInt32(truncatingIfNeeded: bits) }
    var isInterned: Bool { bits & Self.internedBit != 0 }
    var isContinuation: Bool { bits & Self.continuationBit != 0 }
    var styleBits: UInt64 { bits & Self.styleMask }
    var style: CellStyle { Self.unpack(styleBits) }

    /// See `Cell.hasUncertainWidth`.
    var hasUncertainWidth: Bool { isInterned || Cell.hasUncertainWidth(scalar: code) }

    static let blank = PackedCell(code: 0x20, style: .plain)

    static func pack(_ style: CellStyle) -> UInt64 {
        UInt64(style.foreground.rawValue) << 32 | UInt64(style.background.rawValue) << 40
            | (style.bold ? 1 << 48 : 0) | (style.reverse ? 1 << 49 : 0) | (style.dim ? 1 << 50 : 0)
    }

    static func unpack(_ bits: UInt64) -> CellStyle {
        CellStyle(foreground: CellColor(rawValue: UInt8(truncatingIfNeeded: bits >> 32)) ?? .standard,
                  background: CellColor(rawValue: UInt8(truncatingIfNeeded: bits >> 40)) ?? .standard,
                  bold: bits & (1 << 48) != 0, reverse: bits & (1 << 49) != 0, dim: bits & (1 << 50) != 0)
    }
}
