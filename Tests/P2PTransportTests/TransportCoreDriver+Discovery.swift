import ChatCore
@testable import P2PTransport
import TestSupport

/// The control plane's side of the driver: beacons heard, the tick's
/// steps in the shell's order, the whole wake plan.
extension TransportCoreDriver {
    static func number(_ raw: UInt64) -> NodeNumber { NodeNumber(rawValue: raw)! }

    static func beacon(_ number: NodeNumber, instance: String = "a", port: Int = 7_000,
                       kind: DiscoveryBeacon.Kind = .beacon, nickname: String? = nil) -> DiscoveryBeacon {
        DiscoveryBeacon(kind: kind, identity: NodeIdentity(number: number, nickname: nickname ?? "n\(number.rawValue)"),
                        tcpPort: port, instanceId: instance)
    }

    /// A beacon of `number` from 10.0.0.`last` (its ephemeral UDP port 47474).
    @discardableResult
    mutating func hear(_ number: NodeNumber, from last: UInt8 = 1, instance: String = "a", port: Int = 7_000,
                       kind: DiscoveryBeacon.Kind = .beacon, linked: PeerNames? = nil) -> [TransportAction] {
        let source = Self.address(last, port: 47_474)
        return feed(.beaconHeard(Self.beacon(number, instance: instance, port: port, kind: kind), from: source,
                                 linked: linked, at: now, overlay: overlay))
    }

    /// The timer fires: the core's steps in the shell's order (`P2PService.tick`).
    @discardableResult
    mutating func tickAll() -> [TransportAction] {
        var actions = step(core.beaconTurn(at: now, bounded: overlay.bounded))
        core.expireAnnouncements(at: now)
        actions += step(core.dueAnswers(at: now))
        actions += step(core.dialTurn(at: now, overlay: overlay))
        return actions + tick()
    }

    /// Carries out a step's `actions`; returns them and what they brought.
    private mutating func step(_ actions: [TransportAction]) -> [TransportAction] {
        actions + carryOut(actions)
    }

    /// When the timer would wake for everything the core holds.
    mutating func wakeAll(overlayDue: Duration? = nil) -> Duration {
        core.nextWake(at: now, facts: WakeFacts(load: load, overlay: overlay, overlayDue: overlayDue))
    }

    /// Past the start burst: three beacon turns 100 ms apart.
    mutating func finishBurst() {
        for _ in 0..<BeaconState.startBurst {
            tickAll()
            advance(by: BeaconState.burstGap)
        }
    }

    /// The numbers dialled in `actions` (announced and static).
    static func dialled(_ actions: [TransportAction]) -> [UInt64] {
        actions.compactMap {
            switch $0 {
            case .dial(_, let number): number.rawValue
            case .dialStatic(_, _, let number): number?.rawValue ?? 0
            default: nil
            }
        }
    }

    static func beaconsSent(_ actions: [TransportAction]) -> Int { actions.count { $0 == .sendBeacon } }
}

extension TransportCoreDriver {
    /// A started control plane: beacons due now, these static peers.
    static func started(statics: [HostPort] = [], limits: PeerLimits = PeerLimits(),
                        _ configure: (inout DiscoverySettings) -> Void = { _ in }) -> TransportCoreDriver {
        var discovery = DiscoverySettings()
        configure(&discovery)
        var driver = TransportCoreDriver(limits: limits, discovery: discovery)
        driver.core.start(at: driver.now, statics: statics)
        return driver
    }
}
