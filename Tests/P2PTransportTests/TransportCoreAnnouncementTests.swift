import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// What beacons can make the pure core do, on a manual clock: a linked
/// number's link is the evidence (another instance's claim waits for a
/// probe), a leave datagram changes nothing, a lost link's reason decides
/// the redial, an unheard announcement is forgotten, our own beacon tells
/// us our address. This node is 500.
@Suite struct TransportCoreAnnouncementTests {
    typealias Driver = TransportCoreDriver
    static let names = PeerNames(nickname: "n900")

    /// 900 linked by our dial to 10.0.0.1:7000, instance "a"; its link id.
    static func linked() -> (Driver, Int) {
        var driver = Driver.started()
        driver.hear(Driver.higher, from: 1)
        let id = driver.outbound(Driver.higher, instance: "a", to: 1)
        return (driver, id)
    }

    @Test func anotherInstanceOfALinkedNumberIsProbedNotBelieved() {
        var (driver, id) = Self.linked()
        driver.finishBurst()
        #expect(!driver.core.isBusy)
        let actions = driver.hear(Driver.higher, from: 1, instance: "b", linked: Self.names)
        #expect(actions == [.probe(id)])
        #expect(driver.core.announcements[Driver.higher]?.instanceId == "a", "the table keeps the linked instance")
        #expect(driver.core.claims[Driver.higher] != nil)
        // The link answers: the claim is refused and forgotten.
        driver.core.claimRefused(Driver.higher)
        #expect(driver.core.claims.isEmpty)
    }

    @Test func aClaimIsTakenUpWhenTheLinkDies() throws {
        var (driver, id) = Self.linked()
        driver.hear(Driver.higher, from: 1, instance: "b", linked: Self.names)
        driver.finishBurst()
        let closedOrNil = driver.core.close(id)
        let closed = try #require(closedOrNil)
        let actions = driver.feed(.linkLost(closed, .restarted, at: driver.now))
        #expect(actions.contains(.sendBeacon), "the new instance is answered")
        #expect(driver.core.announcements[Driver.higher]?.instanceId == "b")
        #expect(driver.core.announcements[Driver.higher]?.nextDialAt == driver.now, "a restarted peer is redialled at once")
    }

    @Test func aRestartedPeerIsRedialledAtOnceItsBackoffForgotten() throws {
        var driver = Driver.started()
        driver.hear(Driver.higher, from: 1)
        driver.feed(.dialFailed(expecting: Driver.higher, staticIndex: nil, at: driver.now))
        let id = driver.outbound(Driver.higher, instance: "a", to: 1)
        let closedOrNil = driver.core.close(id)
        let closed = try #require(closedOrNil)
        driver.feed(.linkLost(closed, .restarted, at: driver.now))
        #expect(driver.core.announcements[Driver.higher]?.nextDialAt == driver.now)
        #expect(Driver.dialled(driver.feed(.dialWanted(Driver.higher, at: driver.now, overlay: .none))) == [Driver.higher.rawValue])
    }

    @Test func leaveDatagramsChangeNothing() {
        var driver = Driver.started()
        #expect(driver.hear(Driver.lower, from: 1, kind: .leave) == [.ignoredBeacon(Driver.lower, .leave)])
        #expect(driver.core.announcements[Driver.lower] == nil)
        var (linked, _) = Self.linked()
        #expect(linked.hear(Driver.higher, from: 1, kind: .leave, linked: Self.names) == [.ignoredBeacon(Driver.higher, .linkedLeave)])
        #expect(linked.core.announcements[Driver.higher] != nil)
    }

    @Test func aLinkedNumberHeardFromElsewhereIsAConflict() {
        var (driver, _) = Self.linked()
        #expect(driver.hear(Driver.higher, from: 2, linked: Self.names).isEmpty, "itself through another interface")
        let actions = driver.hear(Driver.higher, from: 2, port: 7_001, linked: Self.names)
        #expect(actions == [.ignoredBeacon(Driver.higher, .conflict(.beacon, announced: Driver.address(2, port: 7_001),
                                                                    linkedAt: Driver.address(1, port: 7_000)))])
        #expect(driver.core.counts.beaconConflicts == 1)
        #expect(driver.hear(Driver.higher, from: 1, linked: Self.names) == [.peerHeard(Driver.higher)], "from its link: heard")
    }

    @Test func aPeerThatLeftIsNotRedialledOneThatTimedOutIsAfterBackoff() throws {
        var (driver, id) = Self.linked()
        let closedOrNil = driver.core.close(id)
        let closed = try #require(closedOrNil)
        driver.feed(.linkLost(closed, .left, at: driver.now))
        #expect(driver.core.announcements[Driver.higher] == nil)
        #expect(Driver.dialled(driver.hear(Driver.higher, from: 1)).isEmpty, "its late beacons are ignored")

        var (other, otherID) = Self.linked()
        let lostOrNil = other.core.close(otherID)
        let lost = try #require(lostOrNil)
        other.feed(.linkLost(lost, .timedOut, at: other.now))
        let wait = try #require(other.core.announcements[Driver.higher]).nextDialAt - other.now
        #expect(wait > .zero && wait <= DiscoverySettings().reconnectDelay * 1.2)
        other.advance(by: wait)
        #expect(Driver.dialled(other.tickAll()) == [Driver.higher.rawValue])
    }

    @Test func anUnheardAnnouncementIsForgottenAndThePlanWaitsForIt() {
        var driver = Driver.started()
        let heardAt = driver.now
        driver.hear(Driver.lower, from: 1)
        driver.finishBurst()
        let timeout = driver.core.announcementTimeout
        _ = driver.wakeAll()
        #expect(driver.core.planned.expiryDue == heardAt + timeout + .nanoseconds(1))
        driver.advance(by: heardAt + timeout - driver.now)
        driver.tickAll()
        #expect(driver.core.announcements[Driver.lower] != nil, "not before its time")
        driver.advance(by: .milliseconds(1))
        driver.tickAll()
        #expect(driver.core.announcements[Driver.lower] == nil)
    }

    @Test func ourOwnBeaconTellsUsOurAddressAnotherWithOurNumberIsReported() {
        var driver = Driver.started { $0.instance = "me" }
        #expect(driver.hear(Driver.me, from: 3, instance: "me").isEmpty)
        #expect(driver.core.beacons.ownAddresses == [Driver.address(3).address])
        #expect(driver.hear(Driver.me, from: 4, instance: "other") == [.numberClaimed(instance: "other", from: Driver.address(4, port: 47_474))])
        #expect(driver.core.counts.beaconsReceived == 0)
    }
}
