import ChatCore

extension P2PService {
    /// Peers announced by beacons and not linked now, by number: who else
    /// is on the LAN when the overlay keeps only a few links. Their names
    /// and addresses are what their beacons said, unproven (no handshake);
    /// a number heard only once is left out, as the overlay leaves it out
    /// of its count, so a flood of invented beacons (each sent once) does
    /// not fill the list. Bounded by the announcement table (`PeerLimits`).
    public func heardPeers() async -> [PeerInfo] {
        core.announcements.entries.values
            .filter { $0.heardCount >= 2 && established[$0.number] == nil }
            .sorted { $0.number < $1.number }
            .map { PeerInfo(number: $0.number, nickname: $0.nickname, stage: $0.stage, instanceId: $0.instanceId,
                            address: $0.endpoint.description) }
    }
}
