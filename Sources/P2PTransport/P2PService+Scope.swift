import ChatCore

extension P2PService {
    /// With the default scope, interfaces are looked at again before each
    /// periodic beacon, so a node started before its LAN address came up
    /// (DHCP, Wi-Fi joining late, a namespace configured afterwards) starts
    /// beaconing there once it has one, and stops when it is gone. A
    /// configured list is used as given.
    func refreshDefaultScope() {
        guard configuration.broadcastAddresses == nil else { return }
        var targets: [IPv4Endpoint] = []
        for text in BroadcastScope.defaultAddresses() {
            guard let target = IPv4Endpoint(host: text, port: configuration.discoveryPort), !targets.contains(target) else { continue }
            targets.append(target)
        }
        guard targets != broadcastTargets else { return }
        logger.info("beacons now go to \(targets.map(\.host)) (interfaces changed)")
        broadcastTargets = targets
    }
}
