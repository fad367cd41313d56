import ChatCore
@testable import P2PTransport
import Testing

/// Repeated beacons are read once: a hit gives what decoding gave, other
/// bytes miss, and a flood of distinct datagrams holds at most `capacity`.
@Suite struct BeaconCacheTests {
    private func datagram(_ number: UInt64, port: Int = 40_000) -> [UInt8] {
        DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: NodeNumber(rawValue: number)!, nickname: "n\(number)"),
                        tcpPort: port, instanceId: "instance-\(number)").encoded()
    }

    @Test func theSameBytesGiveTheSameBeaconOtherBytesMiss() throws {
        var cache = BeaconCache()
        let bytes = datagram(7)
        let beacon = try DiscoveryBeacon.decode(bytes)
        #expect(cache.beacon(for: bytes[...]) == nil)
        cache.remember(bytes[...], as: beacon)
        #expect(cache.beacon(for: bytes[...]) == beacon)
        // A slice of a larger buffer with the same bytes is the same datagram.
        let buffer = bytes + [0, 0, 0]
        #expect(cache.beacon(for: buffer[0..<bytes.count]) == beacon)
        #expect(cache.beacon(for: datagram(7, port: 40_001)[...]) == nil, "one byte differs")
        #expect(cache.beacon(for: bytes.dropLast()) == nil)
    }

    @Test func aFloodOfDistinctDatagramsHoldsAtMostTheCapacity() throws {
        var cache = BeaconCache(capacity: 8)
        var largest = 0
        for number in 1...100 as ClosedRange<UInt64> {
            let bytes = datagram(number)
            cache.remember(bytes[...], as: try DiscoveryBeacon.decode(bytes))
            largest = max(largest, cache.count)
        }
        #expect(largest == 8)
        // The newest is still there after a restart of the table.
        let last = datagram(100)
        #expect(cache.beacon(for: last[...])?.number == NodeNumber(rawValue: 100))
    }
}
