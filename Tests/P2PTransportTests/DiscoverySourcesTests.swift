@testable import P2PTransport
import Testing

/// Discovery datagrams are heard from the LAN only; this host's interfaces
/// are read again, at most every 10 s, for a source outside them.
@Suite struct DiscoverySourcesTests {
    static func address(_ text: String) -> UInt32 { IPv4Endpoint.parseDottedQuad(text)! }

    @Test func theLANIsHeardWithoutReadingInterfaces() {
        var sources = DiscoverySources()
        var reads = 0
        for text in ["127.0.0.1", "10.1.2.3", "172.20.0.5", "192.168.1.20", "169.254.3.4"] {
            #expect(sources.admits(Self.address(text), now: .zero) { reads += 1; return [] }, "\(text)")
        }
        #expect(reads == 0)
    }

    @Test func offLANSourcesAreDroppedAndInterfacesRereadAtMostEveryTenSeconds() {
        var sources = DiscoverySources()
        var interfaces: [BroadcastScope.InterfaceAddress] = []
        var reads = 0
        func admits(_ text: String, at seconds: Int) -> Bool {
            sources.admits(Self.address(text), now: .seconds(seconds)) { reads += 1; return interfaces }
        }
        #expect(!admits("8.8.8.8", at: 0))
        #expect(reads == 1)
        #expect(!admits("130.83.1.2", at: 5))
        #expect(reads == 1, "a flood of off-LAN datagrams does not reread each time")
        // A campus LAN numbered with public addresses comes up.
        interfaces = [.init(name: "campus0", address: "130.83.7.20", netmask: "255.255.0.0", broadcast: "130.83.255.255")]
        #expect(!admits("130.83.1.2", at: 9))
        #expect(admits("130.83.1.2", at: 10))
        #expect(reads == 2)
        #expect(admits("130.83.200.1", at: 11))
        #expect(!admits("8.8.8.8", at: 12))
        #expect(reads == 2)
    }
}
