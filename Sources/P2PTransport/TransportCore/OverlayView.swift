import ChatCore

/// The overlay's say in the dial rule, as plain values the shell reads
/// from its `OverlayLinks` (`P2PService.overlayView`) and hands to the
/// core with each input that runs the rule: the core reads no `Overlay`.
///
/// Without the overlay, or below its full-mesh threshold, the transport
/// dials every announced peer by its own rule; above it only the peers
/// the overlay asks for and those that speak no overlay.
struct OverlayView: Sendable, Hashable {
    /// The overlay runs above its threshold: links are bounded.
    var bounded = false
    /// Peers whose hello lacked `overlay`: dialled by the transport's own
    /// rule even while links are bounded.
    var legacy: Set<NodeNumber> = []
    /// Peers to dial at once, whichever number is lower: the overlay asked
    /// for a link, or a DM dials on demand.
    var asked: Set<NodeNumber> = []

    init(bounded: Bool = false, legacy: Set<NodeNumber> = [], asked: Set<NodeNumber> = []) {
        self.bounded = bounded
        self.legacy = legacy
        self.asked = asked
    }

    /// No overlay: every peer by the transport's own rule.
    static let none = OverlayView()

    /// Whether announced peer `number` may be dialled at all.
    func permitsDial(_ number: NodeNumber) -> Bool {
        !bounded || legacy.contains(number) || asked.contains(number)
    }
}
