import P2PTransport

extension P2PConfiguration {
    /// A transport for tests on one host: beacons to loopback only, and
    /// timings short enough that tests of these deadlines take seconds,
    /// long enough that a busy machine does not trip them by starving a
    /// node. Shared by the transport's tests and the app's end-to-end ones.
    public static func loopbackTest(discoveryPort: Int) -> P2PConfiguration {
        var configuration = P2PConfiguration()
        configuration.discoveryPort = discoveryPort
        configuration.broadcastAddresses = ["127.255.255.255"]
        configuration.beaconInterval = .milliseconds(200)
        configuration.handshakeTimeout = .seconds(2)
        configuration.keepaliveInterval = .milliseconds(300)
        configuration.deadPeerTimeout = .seconds(2)
        configuration.writeTimeout = .seconds(1)
        configuration.reconnectDelay = .milliseconds(100)
        configuration.maxReconnectDelay = .seconds(1)
        return configuration
    }
}
