import Foundation

/// Hex helpers for vectors.
func hex(_ string: String) -> [UInt8] {
    let digits = Array(string.utf8)
    precondition(digits.count % 2 == 0, "odd hex length")
    func value(_ c: UInt8) -> UInt8 {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: preconditionFailure("not hex: \(c)")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { value(digits[$0]) << 4 | value(digits[$0 + 1]) }
}

func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

func fixtureURL(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
}
