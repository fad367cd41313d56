import ChatCore
@testable import P2PTransport
import TestSupport

/// Drives a `TransportCore` as its shell would, with no sockets: the time
/// comes from a `ManualClock`, and the actions that change the core's
/// tables (a close, an establish, a ping queued) are reported back as
/// `P2PService` reports them. Every action is kept for the test to read.
struct TransportCoreDriver {
    static let me = NodeNumber(rawValue: 500)!
    static let lower = NodeNumber(rawValue: 100)!
    static let higher = NodeNumber(rawValue: 900)!
    static let timeouts = LinkLifecycle.Timeouts(handshake: .seconds(3), deadPeer: .seconds(6), write: .seconds(5),
                                                 keepalive: .seconds(2))
    static let busy = Duration.milliseconds(50)
    static let longest = Duration.seconds(5)

    let clock = ManualClock(uptime: .seconds(100))
    var core: TransportCore
    /// Everything the core returned, in order.
    var log: [TransportAction] = []
    /// What the shell holds that the core's deadlines read.
    var load = LinkLoad()
    /// The overlay's say, as the shell would hand it to the core.
    var overlay = OverlayView.none
    private var pings = 0

    init(limits: PeerLimits = PeerLimits(), discovery: DiscoverySettings = DiscoverySettings(), seed: UInt64 = 7) {
        core = TransportCore(me: Self.me, limits: limits, timeouts: Self.timeouts, restartProbeTimeout: .seconds(1),
                             discovery: discovery, seed: seed)
    }

    var now: Duration { clock.uptime() }

    func advance(by duration: Duration) { clock.advance(by: duration) }

    static func address(_ last: UInt8, port: Int = 40_000) -> IPv4Endpoint {
        IPv4Endpoint(address: 0x0A00_0000 | UInt32(last), port: port)
    }

    /// Feeds `input`, carries out the actions like the shell, returns them
    /// and those that carrying them out brought (a `.checkDial`'s dials).
    @discardableResult
    mutating func feed(_ input: TransportInput) -> [TransportAction] {
        let actions = core.handle(input)
        return actions + carryOut(actions)
    }

    /// Carries out `actions`; returns what that brought.
    @discardableResult
    mutating func carryOut(_ actions: [TransportAction]) -> [TransportAction] {
        log += actions
        var brought: [TransportAction] = []
        for action in actions {
            switch action {
            case .accept, .refuse, .deferDial: break
            case .dial, .dialStatic, .resolveStatic: break // the test opens the dials it wants (`core.openDial`)
            case .sendBeacon: core.noteBeaconSent(at: now)
            case .checkDial(let number): brought += feed(.dialWanted(number, at: now, overlay: overlay))
            case .sendAnswer, .peerHeard, .ignoredBeacon, .numberClaimed: break
            case .close(let id, _), .release(let id): core.close(id)
            case .ping(let id): core.noteSent(id, at: now, wasIdle: !load.queued.contains(id))
            case .probe(let id):
                pings += 1
                _ = core.startProbe(id, ping: Self.ping(pings), at: now)
            case .establish(let id):
                // An inbound link's acceptance goes first (a record sent).
                if core[id]?.direction == .inbound { core.noteSent(id, at: now, wasIdle: true) }
                _ = core.establish(id, at: now)
            }
        }
        return brought
    }

    static func ping(_ n: Int) -> MessageID { MessageID(millis: 1_732_147_200_000 + Int64(n), random: (1, 2)) }

    /// A connection from `remote`: its link id, or nil if refused.
    mutating func arrive(from remote: IPv4Endpoint) -> Int? {
        for case .accept(let id) in feed(.connectionArrived(from: remote, at: now)) { return id }
        return nil
    }

    /// An inbound link from `number` (instance `instance`), verified; its id.
    mutating func inbound(_ number: NodeNumber, instance: String = "a", from last: UInt8 = 1) -> Int {
        let id = arrive(from: Self.address(last))!
        feed(.peerVerified(link: id, number: number, instance: instance, listen: Self.address(last, port: 7_000)))
        return id
    }

    /// Our dial to `number`, connected and verified, not yet accepted; its id.
    mutating func dialVerified(_ number: NodeNumber, instance: String = "a", to last: UInt8 = 1) -> Int {
        let id = core.openDial(to: Self.address(last, port: 7_000), expecting: number, at: now)
        core.noteConnected(id)
        feed(.peerVerified(link: id, number: number, instance: instance, listen: Self.address(last, port: 7_000)))
        return id
    }

    /// Our dial to `number`, accepted by the peer; its id.
    mutating func outbound(_ number: NodeNumber, instance: String = "a", to last: UInt8 = 1) -> Int {
        let id = dialVerified(number, instance: instance, to: last)
        feed(.acceptanceArrived(link: id))
        return id
    }

    /// The dial budgets' verdict on `due` (`planDials`), logged.
    @discardableResult
    mutating func planDials(_ due: [TransportCore.DialCandidate]) -> [TransportAction] {
        let actions = core.planDials(due, at: now)
        log += actions
        return actions
    }

    /// The timer fires now.
    @discardableResult
    mutating func tick() -> [TransportAction] { feed(.timerFired(at: now, load: load)) }

    /// When the timer would wake for the links alone.
    func wake() -> Duration {
        var plan = WakePlan(now: now, busy: Self.busy, longest: Self.longest)
        core.planWake(&plan, load: load)
        return plan.wake
    }
}
