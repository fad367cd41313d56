import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Admission of new connections by the pure core, on a manual clock with
/// no sockets: every cap a peer could push against holds, and what gives
/// way gives way as `PeerLimits` documents.
@Suite struct TransportCoreAdmissionTests {
    typealias Driver = TransportCoreDriver

    @Test func theLinkCapRefusesUntilALinkCloses() {
        var limits = PeerLimits()
        limits.maxLinks = 2
        var driver = Driver(limits: limits)
        let first = driver.arrive(from: Driver.address(1))
        #expect(first != nil)
        #expect(driver.arrive(from: Driver.address(2)) != nil)
        #expect(driver.feed(.connectionArrived(from: Driver.address(3), at: driver.now)) == [.refuse(.linkCap(2))])
        #expect(!driver.core.canOpenLink, "no dial either")
        driver.core.close(first!)
        #expect(driver.arrive(from: Driver.address(3)) != nil)
        #expect(driver.core.linkCount == 2)
    }

    @Test func anAddressSpendsItsConnectionBudgetThenRefills() {
        var limits = PeerLimits()
        limits.connectionBurstPerAddress = 3
        limits.connectionsPerSecondPerAddress = 1
        var driver = Driver(limits: limits)
        for _ in 0..<3 {
            let id = driver.arrive(from: Driver.address(1))
            #expect(id != nil)
            driver.core.close(id!)
        }
        #expect(driver.feed(.connectionArrived(from: Driver.address(1), at: driver.now)) == [.refuse(.connectionRate(Driver.address(1)))])
        #expect(driver.arrive(from: Driver.address(2)) != nil, "another address has its own budget")
        driver.advance(by: .milliseconds(999))
        #expect(driver.arrive(from: Driver.address(1)) == nil)
        driver.advance(by: .milliseconds(2))
        #expect(driver.arrive(from: Driver.address(1)) != nil, "one token a second")
    }

    @Test func unfinishedHandshakesPerAddressAreCapped() {
        var limits = PeerLimits()
        limits.maxPendingLinksPerAddress = 2
        var driver = Driver(limits: limits)
        let first = driver.arrive(from: Driver.address(1))!
        #expect(driver.arrive(from: Driver.address(1)) != nil)
        #expect(driver.feed(.connectionArrived(from: Driver.address(1), at: driver.now))
                == [.refuse(.pendingPerAddress(Driver.address(1), limit: 2))])
        // A finished handshake no longer counts against the address.
        driver.feed(.peerVerified(link: first, number: Driver.lower, instance: "a", listen: Driver.address(1, port: 7_000)))
        #expect(driver.core.phase(of: first) == .established)
        #expect(driver.arrive(from: Driver.address(1)) != nil)
    }

    @Test func theOldestUnfinishedHandshakeMakesRoom() {
        var limits = PeerLimits()
        limits.maxPendingLinks = 2
        var driver = Driver(limits: limits)
        let oldest = driver.arrive(from: Driver.address(1))!
        driver.advance(by: .milliseconds(10))
        let younger = driver.arrive(from: Driver.address(2))!
        let actions = driver.feed(.connectionArrived(from: Driver.address(3), at: driver.now))
        #expect(actions.count == 2)
        #expect(actions.first == .close(oldest, .pendingEvicted(limit: 2)))
        guard case .accept(let newest)? = actions.last else {
            Issue.record("the new connection was not taken: \(actions)")
            return
        }
        #expect(Set(driver.core.links.keys) == [younger, newest])
        // Established links never count as pending.
        driver.feed(.peerVerified(link: younger, number: Driver.lower, instance: "a", listen: Driver.address(2, port: 7_000)))
        #expect(driver.arrive(from: Driver.address(4)) != nil)
        #expect(driver.core.linkCount == 3)
    }

    @Test func theDialLoadCountsWhatTheLinksHold() {
        var driver = Driver()
        let established = driver.outbound(Driver.higher, to: 1)
        _ = driver.core.openDial(to: Driver.address(2, port: 7_000), expecting: NodeNumber(rawValue: 901)!, at: driver.now)
        _ = driver.core.openDial(to: Driver.address(2, port: 7_001), expecting: nil, at: driver.now)
        _ = driver.arrive(from: Driver.address(3))
        let load = driver.core.dialLoad
        #expect(driver.core.phase(of: established) == .established)
        #expect(load.busy == [Driver.higher, NodeNumber(rawValue: 901)!])
        #expect(load.pendingTotal == 2)
        #expect(load.pendingPerAddress == [Driver.address(2).address: 2])
        #expect(load.handshakingFrom == [Driver.address(3).address])
        #expect(load.linkCount == 4)
    }
}
