/// What happens in the overlay simulator, on its agenda
/// (`SimulationEventQueue`).
enum SimulationEvent {
    /// `from` heard a beacon of `peer`.
    case heard(Int, peer: Int)
    /// `from` dialled `to`: the link opens now, or the dial fails.
    case connect(Int, to: Int)
    case linkUp(Int, peer: Int)
    case linkDown(Int, peer: Int)
    case frame(OverlayFrame, from: Int, to: Int)
    case tick(Int)
    case beacons
}
