import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// Static peers (`--peer`) on the pure core and a manual clock: an address
/// is dialled at once and looked at again after `maxReconnectDelay`, a
/// failure backs off, a name is looked up first, a peer linked some other
/// way is not dialled, an address that is this node never again.
@Suite struct TransportCoreStaticPeerTests {
    typealias Driver = TransportCoreDriver
    static let literal = HostPort(host: "10.0.0.7", port: 7_000)
    static let name = HostPort(host: "bob.lan", port: 7_000)

    @Test func anAddressIsDialledThenLookedAtAgainAfterTheLongestBackoff() {
        var driver = Driver.started(statics: [Self.literal])
        #expect(driver.tickAll().contains(.dialStatic(0, Driver.address(7, port: 7_000), expecting: nil)))
        let longest = DiscoverySettings().maxReconnectDelay
        #expect(driver.core.statics[0].nextDialAt == driver.now + longest)
        driver.advance(by: longest - .milliseconds(1))
        #expect(Driver.dialled(driver.tickAll()).isEmpty)
        driver.advance(by: .milliseconds(1))
        #expect(Driver.dialled(driver.tickAll()).count == 1)
    }

    @Test func aFailedDialBacksOffAndALinkResetsIt() {
        var driver = Driver.started(statics: [Self.literal])
        driver.tickAll()
        let base = DiscoverySettings().reconnectDelay
        for attempt in 0..<3 {
            driver.feed(.dialFailed(expecting: nil, staticIndex: 0, at: driver.now))
            let wait = driver.core.statics[0].nextDialAt - driver.now
            let expected = base * Double(1 << attempt)
            #expect(wait >= expected * 0.8 && wait <= expected * 1.2, "attempt \(attempt): \(wait)")
            driver.advance(by: wait)
            #expect(Driver.dialled(driver.tickAll()).count == 1)
        }
        // The fourth dial links: its number is learnt, its backoff forgotten.
        let id = driver.core.openDial(to: Driver.address(7, port: 7_000), expecting: nil, staticIndex: 0, at: driver.now)
        driver.core.noteConnected(id)
        driver.feed(.peerVerified(link: id, number: Driver.higher, instance: "a", listen: Driver.address(7, port: 7_000)))
        driver.feed(.acceptanceArrived(link: id))
        #expect(driver.core.statics[0].number == Driver.higher)
        #expect(driver.core.statics[0].backoff.failures == 0)
        #expect(!driver.core.staticPeerWantsDial(0), "linked")
    }

    @Test func aNameIsLookedUpFirst() {
        var driver = Driver.started(statics: [Self.name])
        #expect(driver.tickAll().contains(.resolveStatic(0, Self.name)))
        #expect(!driver.tickAll().contains(.resolveStatic(0, Self.name)), "one lookup at a time")
        let failed = driver.feed(.staticResolved(0, nil, at: driver.now))
        #expect(failed.isEmpty)
        let wait = driver.core.statics[0].nextDialAt - driver.now
        #expect(wait > .zero && wait <= DiscoverySettings().reconnectDelay * 1.2)
        driver.advance(by: wait)
        #expect(driver.tickAll().contains(.resolveStatic(0, Self.name)))
        let resolved = driver.feed(.staticResolved(0, Driver.address(8, port: 7_000), at: driver.now))
        #expect(resolved == [.dialStatic(0, Driver.address(8, port: 7_000), expecting: nil)])
    }

    @Test func aPeerThatDialledUsIsNotDialled() throws {
        var driver = Driver.started(statics: [Self.literal, Self.name])
        // It dialled us first from its ephemeral port; it listens on 7000.
        let arrived = driver.arrive(from: Driver.address(7, port: 51_000))
        let id = try #require(arrived)
        driver.feed(.peerVerified(link: id, number: Driver.lower, instance: "a", listen: Driver.address(7, port: 7_000)))
        #expect(Driver.dialled(driver.tickAll()).isEmpty, "the literal is linked by address")
        let resolved = driver.feed(.staticResolved(1, Driver.address(7, port: 7_000), at: driver.now))
        #expect(resolved.isEmpty)
        #expect(driver.core.statics[1].number == Driver.lower, "learnt, so the link's loss redials it")
        #expect(driver.core.statics[1].nextDialAt == driver.now + DiscoverySettings().maxReconnectDelay)
    }

    @Test func anAddressThatIsThisNodeIsNeverDialledAgain() {
        var driver = Driver.started(statics: [Self.literal])
        driver.tickAll()
        let id = driver.core.openDial(to: Driver.address(7, port: 7_000), expecting: nil, staticIndex: 0, at: driver.now)
        driver.core.noteConnected(id)
        #expect(driver.core.dialledItself(listeningOn: 7_000) == [Self.literal])
        driver.core.close(id)
        driver.advance(by: .seconds(60))
        #expect(Driver.dialled(driver.tickAll()).isEmpty)
        #expect(!driver.core.staticPeerWantsDial(0))
    }

    @Test func withEveryLinkTakenAStaticDialWaitsBackedOff() {
        var limits = PeerLimits()
        limits.maxLinks = 1
        var driver = Driver.started(statics: [Self.literal], limits: limits)
        _ = driver.inbound(Driver.lower, from: 9)
        #expect(Driver.dialled(driver.tickAll()).isEmpty)
        #expect(driver.core.counts.deferredDials == 1)
        #expect(driver.core.statics[0].nextDialAt - driver.now <= DiscoverySettings().reconnectDelay * 1.2)
    }
}
