/// Datagrams lately read as beacons, by their exact bytes. A node hears
/// each peer's same beacon over and over (every beacon interval, plus the
/// answers each newcomer sets off: 50 nodes on one host receive ~11k
/// datagrams in their first two seconds), and a JSON decode per copy (an
/// HMAC too, with a group secret) was most of what discovery cost.
/// Decoding and the tag check depend on the bytes alone, so a hit gives
/// exactly what reading the datagram again would.
///
/// Only datagrams that were accepted are kept; refused ones are read (and
/// counted) every time. Bounded: when full it starts over, so a flood of
/// distinct datagrams costs at most `capacity` entries and only makes the
/// real peers' beacons be read again.
struct BeaconCache: Sendable {
    static let defaultCapacity = 128

    /// A datagram's bytes, hashed in one bulk call (an array of bytes
    /// hashes element by element, which cost as much as the lookup saved).
    private struct Key: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private var entries: [Key: DiscoveryBeacon] = [:]
    let capacity: Int

    init(capacity: Int = Self.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    var count: Int { entries.count }

    /// The beacon these exact bytes were read as, if they were lately.
    func beacon(for datagram: ArraySlice<UInt8>) -> DiscoveryBeacon? {
        entries.isEmpty ? nil : entries[Key(bytes: Array(datagram))]
    }

    /// Remembers that `datagram` reads as `beacon`.
    mutating func remember(_ datagram: ArraySlice<UInt8>, as beacon: DiscoveryBeacon) {
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[Key(bytes: Array(datagram))] = beacon
    }
}
