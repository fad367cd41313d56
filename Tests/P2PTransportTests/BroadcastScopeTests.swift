@testable import P2PTransport
import Testing

/// The default scope is computed, never used to send, in tests.
@Suite struct BroadcastScopeTests {
    // Pure classification of address text: nothing here is sent anywhere.
    @Test(arguments: [
        ("10.0.0.0", true), ("10.255.255.255", true), ("9.255.255.255", false), ("11.0.0.0", false),
        ("172.16.0.0", true), ("172.31.255.255", true), ("172.15.255.255", false), ("172.32.0.0", false),
        ("192.168.0.1", true), ("192.168.255.255", true), ("192.167.255.255", false), ("192.169.0.0", false),
        ("169.254.0.1", true), ("169.254.255.255", true), ("169.253.255.255", false), ("169.255.0.0", false),
        ("127.0.0.1", false), ("192.0.2.2", false), ("8.8.8.8", false), ("0.0.0.0", false),
        ("255.255.255.255", false), ("100.64.0.1", false),
        ("10.1", false), ("10.0.0.256", false), ("10.0.0.-1", false), ("010.0.0.1.", false),
        ("", false), ("fe80::1", false), (" 10.0.0.1", false), ("10.0.0.1 ", false),
    ])
    func isLANAddress(address: String, expected: Bool) {
        #expect(BroadcastScope.isLANAddress(address) == expected)
    }

    @Test func defaultScopeIsLoopbackPlusLANInterfaces() {
        let interfaces: [BroadcastScope.InterfaceAddress] = [
            .init(name: "lo", address: "127.0.0.1", netmask: "255.0.0.0", isLoopback: true, supportsBroadcast: false),
            .init(name: "eth0", address: "192.0.2.2", netmask: "255.255.255.0", broadcast: "192.0.2.255"),
            .init(name: "wlan0", address: "192.168.1.20", netmask: "255.255.255.0", broadcast: "192.168.1.255"),
            .init(name: "docker0", address: "172.17.0.1", netmask: "255.255.0.0"),
            .init(name: "down0", address: "10.9.0.1", netmask: "255.255.255.0", isUp: false),
            .init(name: "tun0", address: "10.8.0.2", netmask: "255.255.255.255", supportsBroadcast: false),
            .init(name: "p2p0", address: "10.7.0.2", netmask: "255.255.255.254"),
            .init(name: "ll0", address: "169.254.10.20", netmask: "255.255.0.0", broadcast: "169.254.255.255"),
            .init(name: "wlan0:1", address: "192.168.1.21", netmask: "255.255.255.0", broadcast: "192.168.1.255"),
            .init(name: "pub0", address: "8.8.4.4", netmask: "255.255.255.0", broadcast: "8.8.4.255"),
        ]
        #expect(BroadcastScope.defaultAddresses(for: interfaces) == [
            "127.255.255.255", "192.168.1.255", "172.17.255.255", "169.254.255.255",
        ])
    }

    /// Named targets: this host, the limited broadcast, LAN ranges, and
    /// the networks of this host's up interfaces; nothing else.
    @Test func namedTargetsMustStayOnTheLAN() {
        let interfaces: [BroadcastScope.InterfaceAddress] = [
            .init(name: "lo", address: "127.0.0.1", netmask: "255.0.0.0", isLoopback: true, supportsBroadcast: false),
            .init(name: "campus0", address: "130.83.7.20", netmask: "255.255.0.0", broadcast: "130.83.255.255"),
            .init(name: "down0", address: "198.51.100.7", netmask: "255.255.255.0", isUp: false),
            .init(name: "odd0", address: "203.0.113.9", netmask: "0.0.0.0"),
        ]
        for onLAN in ["127.255.255.255", "127.0.0.1", "255.255.255.255", "10.0.0.255", "192.168.1.255",
                      "169.254.255.255", "130.83.255.255", "130.83.1.2"] {
            #expect(BroadcastScope.staysOnLAN(onLAN, interfaces: interfaces), "\(onLAN)")
        }
        for offLAN in ["8.8.8.8", "130.84.255.255", "198.51.100.255", "203.0.113.255", "100.64.0.1", "0.0.0.0", "10.1"] {
            #expect(!BroadcastScope.staysOnLAN(offLAN, interfaces: interfaces), "\(offLAN)")
        }
    }

    @Test func loopbackIsAlwaysInTheScope() {
        #expect(BroadcastScope.defaultAddresses(for: []) == ["127.255.255.255"])
        // This machine's real interfaces: whatever they are, the scope holds
        // loopback and only LAN broadcast addresses. Nothing is sent.
        let scope = BroadcastScope.defaultAddresses()
        #expect(scope.first == "127.255.255.255")
        #expect(scope.dropFirst().allSatisfy(BroadcastScope.isLANAddress))
    }
}
