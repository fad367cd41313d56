import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// One link per pair of nodes, decided by the pure core: which of two
/// links to the same peer survives, and what happens when another
/// instance of a linked number turns up. This node is 500; `lower` (100)
/// wins tie-breaks with it, `higher` (900) loses them.
@Suite struct TransportCoreLinkTests {
    typealias Driver = TransportCoreDriver

    @Test func theLinkDialledByTheLowerNumberReplacesOurs() {
        var driver = Driver()
        let ours = driver.outbound(Driver.lower)
        #expect(driver.core.establishedLink(of: Driver.lower) == ours)
        let theirs = driver.inbound(Driver.lower, from: 1)
        #expect(driver.core.establishedLink(of: Driver.lower) == theirs, "the lower number dialled it")
        #expect(driver.core.phase(of: ours) == .retiring, "read until its peer closes it")
        // A retiring link goes quietly once the handshake timeout passes.
        driver.advance(by: .seconds(3))
        #expect(!driver.tick().contains(.release(ours)))
        driver.advance(by: .milliseconds(1))
        #expect(driver.tick().contains(.release(ours)))
        #expect(driver.core.links.keys.sorted() == [theirs])
    }

    @Test func ourDialToAHigherNumberStaysAndItsDialIsTheDuplicate() {
        var driver = Driver()
        let ours = driver.outbound(Driver.higher)
        let theirs = driver.arrive(from: Driver.address(1))!
        let actions = driver.feed(.peerVerified(link: theirs, number: Driver.higher, instance: "a",
                                                listen: Driver.address(1, port: 7_000)))
        #expect(actions == [.close(theirs, .duplicate)])
        #expect(driver.core.establishedLink(of: Driver.higher) == ours)
        #expect(driver.core.phase(of: ours) == .established)
    }

    @Test func aNewerLinkDialledTheSameWayReplacesTheOlder() {
        var driver = Driver()
        let older = driver.inbound(Driver.lower, from: 1)
        let newer = driver.inbound(Driver.lower, from: 1)
        #expect(driver.core.establishedLink(of: Driver.lower) == newer)
        #expect(driver.core.phase(of: older) == .retiring)
    }

    @Test func crossedDialsKeepTheLowerNumbersDial() {
        // The lower peer dials us while our dial to it is unfinished: ours goes.
        var driver = Driver()
        let ours = driver.dialVerified(Driver.lower, to: 1)
        let theirs = driver.arrive(from: Driver.address(1))!
        let actions = driver.feed(.peerVerified(link: theirs, number: Driver.lower, instance: "a",
                                                listen: Driver.address(1, port: 7_000)))
        #expect(actions == [.close(ours, .peersDialStays(Driver.lower)), .establish(theirs)])
        #expect(driver.core.establishedLink(of: Driver.lower) == theirs)

        // The higher peer dials us while our dial to it is unfinished: its goes.
        var other = Driver()
        let mine = other.dialVerified(Driver.higher, to: 2)
        let its = other.arrive(from: Driver.address(2))!
        #expect(other.feed(.peerVerified(link: its, number: Driver.higher, instance: "a", listen: Driver.address(2, port: 7_000)))
                == [.close(its, .ownDialStays(Driver.higher))])
        #expect(other.feed(.acceptanceArrived(link: mine)) == [.establish(mine)])
        #expect(other.core.establishedLink(of: Driver.higher) == mine)
    }

    @Test func aStaticDialIsKnownByTheAddressItReached() {
        // A static peer's number is unknown when dialled; its listening address tells.
        var driver = Driver()
        let ours = driver.core.openDial(to: Driver.address(1, port: 7_000), expecting: nil, at: driver.now)
        driver.core.noteConnected(ours)
        let theirs = driver.arrive(from: Driver.address(1))!
        let actions = driver.feed(.peerVerified(link: theirs, number: Driver.lower, instance: "a",
                                                listen: Driver.address(1, port: 7_000)))
        #expect(actions == [.close(ours, .peersDialStays(Driver.lower)), .establish(theirs)])
    }

    @Test func anotherInstanceIsHeldWhileTheOldLinkIsProbed() {
        var driver = Driver()
        let old = driver.outbound(Driver.higher, instance: "old", to: 1)
        let claim = driver.arrive(from: Driver.address(2))!
        let actions = driver.feed(.peerVerified(link: claim, number: Driver.higher, instance: "new",
                                                listen: Driver.address(2, port: 7_000)))
        #expect(actions == [.probe(old)])
        #expect(driver.core.phase(of: claim) == .held)
        #expect(driver.wake() == driver.now + Driver.busy, "a probe runs: busy ticks")
        // The old link answers: the claim is refused.
        let stray = driver.core.notePong(old, refId: Driver.ping(2))
        #expect(!stray, "a pong to another ping")
        let answered = driver.core.notePong(old, refId: Driver.ping(1))
        #expect(answered)
        #expect(driver.core.refuseHeld(for: Driver.higher) == [.close(claim, .heldRefused(Driver.higher))])
    }

    @Test func anUnansweredProbeHandsThePeerToTheNewestHeldLink() {
        var driver = Driver()
        let old = driver.outbound(Driver.higher, instance: "old", to: 1)
        let first = driver.inbound(Driver.higher, instance: "new", from: 2)
        driver.advance(by: .milliseconds(500))
        driver.core.noteReceived(old, at: driver.now)
        // A second claim asks for a probe too; the running one keeps its deadline.
        let second = driver.inbound(Driver.higher, instance: "new", from: 3)
        #expect(driver.log.filter { $0 == .probe(old) }.count == 2)
        driver.advance(by: .milliseconds(500))
        #expect(driver.tick().isEmpty)
        driver.advance(by: .milliseconds(1))
        #expect(driver.tick() == [.close(old, .probeUnanswered)])
        #expect(driver.core.establishedLink(of: Driver.higher) == nil)
        let handover = driver.core.admitHeld(for: Driver.higher)
        #expect(handover == [.close(first, .newerHeld(Driver.higher)), .establish(second)])
        driver.carryOut(handover)
        #expect(driver.core.establishedLink(of: Driver.higher) == second)
    }

    @Test func ourDialToAnotherInstanceClosesAndProbes() {
        var driver = Driver()
        let old = driver.inbound(Driver.lower, instance: "old", from: 1)
        let dial = driver.dialVerified(Driver.lower, instance: "new", to: 2)
        #expect(driver.feed(.acceptanceArrived(link: dial)) == [.close(dial, .linkedFromAnotherInstance(Driver.lower)), .probe(old)])
    }

    @Test func closingTheEstablishedLinkSaysSoAndARetiredOneDoesNot() {
        var driver = Driver()
        let ours = driver.outbound(Driver.lower)
        let theirs = driver.inbound(Driver.lower, from: 1)
        #expect(driver.core.close(ours)?.wasEstablished == false, "it was replaced")
        #expect(driver.core.close(theirs)?.wasEstablished == true)
        #expect(driver.core.close(theirs) == nil, "idempotent")
        #expect(driver.core.establishedLink(of: Driver.lower) == nil)
    }
}
