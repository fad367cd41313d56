import ChatCore
@testable import P2PTransport
import Testing
import TestSupport

/// When the pure core sends beacons and answers, on a manual clock: the
/// start burst, the jittered schedule after it, a redundant turn skipped
/// on a large LAN, answers to a newcomer alone or by broadcast, and the
/// gap between broadcast answers. This node is 500.
@Suite struct TransportCoreBeaconTests {
    typealias Driver = TransportCoreDriver

    @Test func theStartBurstThenTheJitteredSchedule() {
        var driver = Driver.started()
        var sentAt: [Duration] = []
        let start = driver.now
        while driver.now < start + .seconds(10) {
            if Driver.beaconsSent(driver.tickAll()) > 0 { sentAt.append(driver.now) }
            driver.advance(by: .milliseconds(10))
        }
        #expect(Array(sentAt.prefix(3)) == [start, start + .milliseconds(100), start + .milliseconds(200)])
        let gaps = zip(sentAt.dropFirst(2), sentAt.dropFirst(3)).map { $1 - $0 }
        #expect(gaps.count >= 3)
        #expect(gaps.allSatisfy { $0 >= .milliseconds(1_600) && $0 <= .milliseconds(2_410) }, "\(gaps)")
    }

    @Test func withoutBroadcastThereIsNoBurstNorTurn() {
        var driver = Driver.started { $0.beacons = false }
        #expect(Driver.beaconsSent(driver.tickAll()) == 0)
        #expect(!driver.core.isBusy, "no burst to count down")
    }

    @Test func aRedundantTurnIsSkippedOnALargeLAN() {
        var driver = Driver.started {
            $0.beaconPolicy.quietSize = 2
            $0.beaconPolicy.redundancy = 1
            $0.beaconPolicy.newcomerTurns = 0
        }
        // Two linked peers make a LAN of three, over the quiet size.
        _ = driver.outbound(Driver.higher, to: 1)
        _ = driver.inbound(Driver.lower, from: 2)
        driver.finishBurst()
        driver.advance(by: driver.core.beacons.nextAt - driver.now)
        #expect(Driver.beaconsSent(driver.tickAll()) == 1, "nothing heard: the turn sends")
        driver.hear(Driver.higher, from: 1, linked: PeerNames(nickname: "n900"))
        driver.advance(by: driver.core.beacons.nextAt - driver.now)
        #expect(Driver.beaconsSent(driver.tickAll()) == 0, "a linked peer's beacon made it redundant")
        #expect(driver.core.counts.beaconsSkipped == 1)
    }

    @Test func aNewcomerThatMustDialUsIsAnsweredAloneOrByBroadcast() {
        var driver = Driver.started()
        driver.finishBurst()
        // 100 < 500: it dials us, so it must hear us. Its address is its own.
        #expect(driver.hear(Driver.lower, from: 1).contains(.sendAnswer(to: Driver.address(1, port: 47_474))))
        // On loopback every node on the host must hear it: a broadcast.
        let loopback = IPv4Endpoint(address: 0x7F00_0001, port: 47_474)
        let actions = driver.feed(.beaconHeard(Driver.beacon(Driver.number(101)), from: loopback, linked: nil,
                                               at: driver.now, overlay: .none))
        #expect(actions.contains(.sendBeacon))
        #expect(driver.core.counts.answersBroadcast == 1)
        // One we dial learns us from the handshake: no answer.
        #expect(!driver.hear(Driver.higher, from: 3).contains { $0 == .sendBeacon || $0 == .sendAnswer(to: Driver.address(3, port: 47_474)) })
    }

    /// Where links are bounded, a beacon new to us whose sender says it
    /// has links is a settled node's (its last beacon was minutes ago):
    /// not answered. One without links is.
    @Test func aSettledNodesBeaconIsNotAnsweredWhereLinksAreBounded() {
        var driver = Driver.started {
            $0.beaconPolicy.quietSize = 2
            $0.answerPolicy.quietSize = 0
            $0.answerPolicy.answerers = 0
        }
        driver.overlay = OverlayView(bounded: true)
        driver.finishBurst()
        for (raw, last) in [(101, 1), (102, 2), (103, 3)] as [(UInt64, UInt8)] {
            driver.hear(Driver.number(raw), from: last)
            driver.hear(Driver.number(raw), from: last)
        }
        #expect(driver.core.knownNodeCount > 2)
        func heard(_ raw: UInt64, _ last: UInt8, saying count: Int?) -> [TransportAction] {
            var beacon = Driver.beacon(Driver.number(raw))
            beacon.links = count
            return driver.feed(.beaconHeard(beacon, from: Driver.address(last, port: 47_474), linked: nil, at: driver.now,
                                            overlay: driver.overlay))
        }
        let answered = { (actions: [TransportAction], last: UInt8) in
            actions.contains(.sendAnswer(to: Driver.address(last, port: 47_474))) || actions.contains(.sendBeacon)
        }
        let settled = heard(200, 20, saying: NewcomerAnswers.settledLinks)
        #expect(!answered(settled, 20) && driver.core.answers.nextDue == nil, "a settled node's beacon")
        let newcomer = heard(201, 21, saying: 0)
        #expect(answered(newcomer, 21) || driver.core.answers.nextDue != nil, "a newcomer's")
    }

    @Test func aBroadcastBeaconAnswersEveryNewcomerWaiting() {
        var driver = Driver.started {
            $0.answerPolicy.quietSize = 0
            $0.answerPolicy.answerers = 0
            $0.answerPolicy.shortest = .milliseconds(500)
            $0.answerPolicy.longest = .milliseconds(600)
        }
        driver.tickAll()
        _ = driver.feed(.beaconHeard(Driver.beacon(Driver.lower), from: IPv4Endpoint(address: 0x7F00_0001, port: 47_474),
                                     linked: nil, at: driver.now, overlay: .none))
        #expect(driver.core.answers.nextDue != nil, "a large LAN's answer waits")
        driver.advance(by: BeaconState.burstGap)
        #expect(Driver.beaconsSent(driver.tickAll()) == 1, "the burst's next beacon")
        #expect(driver.core.answers.nextDue == nil, "that beacon was the answer")
    }

    @Test func broadcastAnswersKeepTheirGapAndTheLateOneGoesAtItsEnd() {
        var driver = Driver.started()
        driver.finishBurst()
        let loopback = { (last: UInt32) in IPv4Endpoint(address: 0x7F00_0000 | last, port: 47_474) }
        func newcomer(_ number: UInt64, _ last: UInt32) -> [TransportAction] {
            driver.feed(.beaconHeard(Driver.beacon(Driver.number(number)), from: loopback(last), linked: nil, at: driver.now, overlay: .none))
        }
        #expect(newcomer(101, 1).contains(.sendBeacon))
        let answeredAt = driver.now
        driver.advance(by: .milliseconds(50))
        #expect(!newcomer(102, 1).contains(.sendBeacon), "within the gap: deferred")
        #expect(driver.core.isBusy)
        let gap = DiscoverySettings().answerBeaconGap
        #expect(driver.core.beacons.nextAt == answeredAt + gap, "the beacon turn moves up")
        #expect(driver.wakeAll() <= driver.now + DiscoverySettings().busyTick)
        driver.advance(by: answeredAt + gap - driver.now)
        #expect(Driver.beaconsSent(driver.tickAll()) == 1)
        #expect(driver.core.counts.answersBroadcast == 2)
        #expect(!driver.core.beacons.answerDeferred)
    }
}
