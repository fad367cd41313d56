import ChatCore
import ChatOverlay

/// Hooks for the overlay's tests (reached with `@testable import`).
extension P2PService {
    /// The overlay's mode and active view; nil without the overlay.
    func overlayForTesting() -> (isFullMesh: Bool, active: [NodeNumber])? {
        overlayLinks.map { ($0.isFullMesh, $0.overlay.membership.activePeers) }
    }

    /// Established overlay links whose dialler's last ping was quiet
    /// (`quietLinks`), of all established overlay links.
    func quietLinksForTesting() -> (quiet: Int, overlay: Int) {
        let overlay = established.values.filter { $0.speaksOverlay && !$0.onDemand }
        return (overlay.filter { core[$0.id]?.lifecycle.lastPingQuiet == true }.count, overlay.count)
    }

    /// Whether beacons heard now would be held (`holdDiscoveryWhileIdle`).
    func holdsDiscoveryForTesting() -> Bool { !hasShortDeadlines && overlayIsPartial && configuration.discoveryHold > .zero }

    /// Whether the established link to `peer` carries overlay frames; nil without a link.
    func speaksOverlayForTesting(_ peer: NodeNumber) -> Bool? { established[peer]?.speaksOverlay }

    /// Sends `frame` to `peer` as the overlay would (a hostile peer's frames, in tests).
    func sendOverlayForTesting(_ frame: OverlayFrame, to peer: NodeNumber) { sendOverlay(frame, to: peer) }
}

/// Hooks for the direct reach's tests.
extension P2PService {
    /// Whether the established link to `peer` was opened on demand; nil without a link.
    func onDemandForTesting(_ peer: NodeNumber) -> Bool? { established[peer]?.onDemand }

    /// This run's card (what a card query is answered with).
    func cardForTesting() -> [UInt8]? { handshakeCredential?.card }
}
