import ChatCore

extension ChatNode {
    /// Peers the transport heard of (beacons) that are not linked, by
    /// number: above the overlay's threshold most of the LAN is here, and
    /// `peers()` holds only the few links the overlay keeps. Names and
    /// addresses are what the beacons said (unproven; sanitize to show).
    public func heardPeers() async -> [PeerInfo] {
        let heard = await transport.heardPeers()
        return heard.filter { $0.number != identity.number && directory[$0.number] == nil }
    }
}
