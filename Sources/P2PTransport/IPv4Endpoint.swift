import ChatCore

/// An IPv4 address and a port, both in host byte order. The transport
/// speaks IPv4 only: LAN broadcast discovery has no IPv6 equivalent.
struct IPv4Endpoint: Hashable, Sendable, CustomStringConvertible {
    var address: UInt32
    var port: Int

    init(address: UInt32, port: Int) {
        self.address = address
        self.port = port
    }

    /// Nil unless `host` is a dotted quad ("192.168.1.20").
    init?(host: String, port: Int) {
        guard let address = Self.parseDottedQuad(host), (0...65535).contains(port) else { return nil }
        self.init(address: address, port: port)
    }

    var host: String { Self.dottedQuad(address) }

    /// 127.0.0.0/8: this host itself.
    var isLoopback: Bool { Self.isLoopback(address) }

    static func isLoopback(_ address: UInt32) -> Bool { address >> 24 == 127 }

    var description: String { "\(host):\(port)" }

    /// Strict parsing: exactly four decimal parts 0...255, no leading "+",
    /// no empty parts (inet_aton's "10.1" shorthand is refused on purpose).
    static func parseDottedQuad(_ text: String) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let octet = UInt32(part), octet <= 255 else { return nil }
            value = value << 8 | octet
        }
        return value
    }

    static func dottedQuad(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }
}

/// A static peer as configured: "host:port", where host is a dotted IPv4
/// address or a name resolved when dialled.
struct HostPort: Hashable, Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    init(parsing text: String) throws(TransportError) {
        let trimmed = text.trimmingWhitespace()
        guard let colon = trimmed.lastIndex(of: ":") else { throw .invalidAddress(text) }
        let host = String(trimmed[..<colon])
        let portText = trimmed[trimmed.index(after: colon)...]
        guard !host.isEmpty, !host.contains(":"), !host.contains(where: \.isWhitespace),
              let port = Int(portText), (1...65535).contains(port) else { throw .invalidAddress(text) }
        self.init(host: host, port: port)
    }

    var description: String { "\(host):\(port)" }
}
