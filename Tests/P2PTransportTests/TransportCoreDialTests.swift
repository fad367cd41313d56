import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Which due dials the pure core lets go, on a manual clock: the dial
/// budgets hold against a flood of announced inventions, the likely real
/// peers go first, and a fallback dial waits while its peer may be the
/// handshake already under way. This node is 500.
@Suite struct TransportCoreDialTests {
    typealias Driver = TransportCoreDriver
    typealias Candidate = TransportCore.DialCandidate

    static func candidate(_ number: UInt64, at last: UInt8, port: Int = 7_000, proven: Bool = true, heard: Int = 3) -> Candidate {
        Candidate(number: NodeNumber(rawValue: number)!, endpoint: Driver.address(last, port: port), proven: proven, heard: heard)
    }

    static func dialled(_ actions: [TransportAction]) -> [UInt64] {
        actions.compactMap { if case .dial(_, let number) = $0 { number.rawValue } else { nil } }
    }

    @Test func pendingDialsAreCappedInAllAndPerAddress() {
        var limits = PeerLimits()
        limits.maxPendingDials = 3
        limits.maxPendingDialsPerAddress = 2
        var driver = Driver(limits: limits)
        let due = [Self.candidate(600, at: 1), Self.candidate(601, at: 1, port: 7_001), Self.candidate(602, at: 1, port: 7_002),
                   Self.candidate(603, at: 2), Self.candidate(604, at: 3)]
        let actions = driver.planDials(due)
        #expect(Self.dialled(actions) == [600, 601, 603])
        #expect(actions.contains(.deferDial(NodeNumber(rawValue: 602)!)), "a third to one address waits")
        #expect(actions.contains(.deferDial(NodeNumber(rawValue: 604)!)), "a fourth in all waits")

        // Dials under way count as the shell opens them.
        for case .dial(let endpoint, let number) in actions {
            _ = driver.core.openDial(to: endpoint, expecting: number, at: driver.now)
        }
        #expect(Self.dialled(driver.planDials([Self.candidate(604, at: 3)])).isEmpty)
    }

    @Test func theLinkCapBoundsDialsToo() {
        var limits = PeerLimits()
        limits.maxLinks = 2
        var driver = Driver(limits: limits)
        _ = driver.inbound(Driver.lower, from: 9)
        let actions = driver.planDials([Self.candidate(600, at: 1), Self.candidate(601, at: 2)])
        #expect(Self.dialled(actions) == [600])
        #expect(actions.last == .deferDial(NodeNumber(rawValue: 601)!))
    }

    @Test func unprovenNumbersSpendABurstThatRefills() {
        var limits = PeerLimits()
        limits.unprovenDialBurst = 2
        limits.unprovenDialsPerSecond = 1
        var driver = Driver(limits: limits)
        let flood = (0..<5).map { Self.candidate(600 + UInt64($0), at: UInt8(10 + $0), proven: false, heard: 1) }
        #expect(Self.dialled(driver.planDials(flood)) == [600, 601])
        let later = [Self.candidate(700, at: 1, proven: false, heard: 1), Self.candidate(701, at: 2, proven: true, heard: 1)]
        #expect(Self.dialled(driver.planDials(later)) == [701], "a proven number needs no token")
        driver.advance(by: .seconds(1))
        #expect(Self.dialled(driver.planDials(later)) == [701, 700], "proven first")
    }

    @Test func provenAndOftenHeardNumbersGoFirst() {
        var limits = PeerLimits()
        limits.maxPendingDials = 2
        var driver = Driver(limits: limits)
        let due = [Self.candidate(600, at: 1, proven: false, heard: 1), Self.candidate(601, at: 2, proven: false, heard: 5),
                   Self.candidate(602, at: 3, proven: true, heard: 1)]
        #expect(Self.dialled(driver.planDials(due)) == [602, 601])
    }

    @Test func aFallbackDialWaitsWhileItsAddressIsHandshaking() {
        var driver = Driver()
        _ = driver.arrive(from: Driver.address(1))
        // 400 is lower than this node: our dial to it is the fallback one.
        let due = [Self.candidate(400, at: 1), Self.candidate(900, at: 1, port: 7_001)]
        let actions = driver.planDials(due)
        #expect(Self.dialled(actions) == [900], "the rule's own dial goes; the fallback waits, not deferred")
        #expect(!actions.contains(.deferDial(NodeNumber(rawValue: 400)!)))
    }

    @Test func aNumberSomeLinkIsForIsNotDialledAgain() {
        var driver = Driver()
        _ = driver.core.openDial(to: Driver.address(1, port: 7_000), expecting: NodeNumber(rawValue: 600)!, at: driver.now)
        #expect(driver.planDials([Self.candidate(600, at: 1)]).isEmpty)
    }
}
