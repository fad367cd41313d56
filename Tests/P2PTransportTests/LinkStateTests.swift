import ChatCore
import Foundation
@testable import P2PTransport
import Testing

/// The pure pieces behind links: tie-break, output queue, backoff, and the
/// directory of announced peers.
@Suite struct LinkStateTests {
    private let low = NodeNumber(rawValue: 5)!
    private let high = NodeNumber(rawValue: 9)!

    @Test func bothEndsPickTheSameSurvivorWhenDialsCross() {
        // The low node's view: its outbound link vs the high node's dial (inbound).
        let lowKeeps = LinkArbiter.resolve(local: low, remote: high, existing: .outbound, candidate: .inbound)
        let lowSwaps = LinkArbiter.resolve(local: low, remote: high, existing: .inbound, candidate: .outbound)
        let highKeeps = LinkArbiter.resolve(local: high, remote: low, existing: .inbound, candidate: .outbound)
        let highSwaps = LinkArbiter.resolve(local: high, remote: low, existing: .outbound, candidate: .inbound)
        // Survivor in every order of arrival: the link the low node dialled.
        #expect(lowKeeps == .keepExisting)
        #expect(lowSwaps == .replaceExisting)
        #expect(highKeeps == .keepExisting)
        #expect(highSwaps == .replaceExisting)
        // A redial from the same side replaces the old link.
        #expect(LinkArbiter.resolve(local: low, remote: high, existing: .inbound, candidate: .inbound) == .replaceExisting)
        #expect(LinkArbiter.shouldDialOnDiscovery(local: low, remote: high))
        #expect(!LinkArbiter.shouldDialOnDiscovery(local: high, remote: low))
    }

    @Test func outputQueueIsBoundedAndKeepsOrder() {
        var queue = OutboundQueue(limit: 10)
        let tookFirst = queue.enqueue(Data("abcd".utf8))
        #expect(tookFirst)
        let tookSecond = queue.enqueue(Data("efgh".utf8))
        #expect(tookSecond)
        let refused = queue.enqueue(Data("ijk".utf8))
        #expect(!refused)   // 11 > 10: refused whole
        #expect(queue.byteCount == 8)
        #expect(queue.nextChunk == Data("abcd".utf8))
        queue.consume(3)
        #expect(queue.nextChunk == Data("d".utf8))
        let fits = queue.enqueue(Data("ij".utf8))
        #expect(fits)     // 5 + 2 fits
        queue.consume(1)
        #expect(queue.nextChunk == Data("efgh".utf8))
        queue.consume(4)
        #expect(queue.nextChunk == Data("ij".utf8))
        queue.consume(2)
        #expect(queue.isEmpty && queue.nextChunk == nil)
        let empty = queue.enqueue(Data())
        #expect(empty)               // nothing to send is fine
        #expect(queue.isEmpty)
    }

    /// Whole frames leave by `popFrame`; `takeUnwritten` moves every frame
    /// not started (a partly written one stays), with the byte count kept.
    @Test func outputQueuePopsWholeFramesAndHandsOverUnwrittenOnes() {
        var queue = OutboundQueue(limit: 100)
        let queued = ["ab", "cde", "f", "gh"].map { queue.enqueue(Data($0.utf8)) }
        #expect(queued == [true, true, true, true])
        let whole = queue.popFrame()
        #expect(whole == Data("ab".utf8))
        #expect(queue.byteCount == 6)
        queue.consume(1)                       // "c" of "cde" written
        let started = queue.popFrame()
        #expect(started == nil)                // its rest belongs to this socket
        let moved = queue.takeUnwritten()
        #expect(moved == [Data("f".utf8), Data("gh".utf8)])
        #expect(queue.byteCount == 2 && queue.nextChunk == Data("de".utf8))
        queue.consume(2)
        let none = (queue.takeUnwritten(), queue.popFrame())
        #expect(queue.isEmpty && none.0.isEmpty && none.1 == nil)
        _ = ["x", "yz"].map { queue.enqueue(Data($0.utf8)) }
        let all = queue.takeUnwritten()
        #expect(all == [Data("x".utf8), Data("yz".utf8)])   // nothing started: all move
        #expect(queue.isEmpty && queue.byteCount == 0 && queue.nextChunk == nil)
        // Many frames through one queue keep their order and their count.
        queue = OutboundQueue(limit: 4096)
        var popped: [Data] = []
        for round in 0..<200 {
            _ = queue.enqueue(Data([UInt8(round & 0xFF), 1]))
            if round % 3 != 0, let frame = queue.popFrame() { popped.append(frame) }
        }
        while let frame = queue.popFrame() { popped.append(frame) }
        #expect(popped.map { $0.first! } == (0..<200).map { UInt8($0 & 0xFF) })
        #expect(queue.isEmpty)
    }

    @Test func outputQueueSharesOneFrameAcrossQueues() {
        let frame = Data(repeating: 7, count: 1000)
        var a = OutboundQueue(limit: 4096), b = OutboundQueue(limit: 4096)
        let queued = (a.enqueue(frame), b.enqueue(frame))
        #expect(queued == (true, true))
        a.consume(400)
        #expect(b.nextChunk == frame)
        #expect(a.nextChunk?.count == 600)
    }

    @Test func backoffDoublesUpToItsCapAndResets() {
        var backoff = Backoff(base: .milliseconds(100), cap: .seconds(1))
        let delays = (0..<6).map { _ in backoff.nextDelay(jitter: 1) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        backoff.reset()
        #expect(backoff.nextDelay(jitter: 1.2) == .milliseconds(120))
        for _ in 0..<100 { _ = backoff.nextDelay(jitter: 1) }
        #expect(backoff.nextDelay(jitter: 0.8) == .milliseconds(800))
    }

    @Test func directoryTracksBeaconsRestartsAndLeaves() {
        var directory = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1))
        let bob = NodeIdentity(number: high, nickname: "bob")
        let first = DiscoveryBeacon(kind: .beacon, identity: bob, tcpPort: 4000, instanceId: "one")
        let firstSeen = directory.observe(first, from: 0x7F00_0001, at: .seconds(1))
        #expect(firstSeen == .new)
        #expect(directory[high]?.endpoint.description == "127.0.0.1:4000")
        let seenAgain = directory.observe(first, from: 0x7F00_0001, at: .seconds(2))
        #expect(seenAgain == .refreshed)
        var renamed = first
        renamed.nickname = "robert"
        let seenRenamed = directory.observe(renamed, from: 0x7F00_0001, at: .seconds(3))
        #expect(seenRenamed == .changed)

        directory.scheduleRedial(high, at: .seconds(3))
        #expect(directory[high]!.nextDialAt >= .seconds(3) + .milliseconds(80))
        directory.linked(high)
        #expect(directory[high]?.unlinkedSince == nil)

        let second = DiscoveryBeacon(kind: .beacon, identity: bob, tcpPort: 4001, instanceId: "two")
        let seenRestarted = directory.observe(second, from: 0x7F00_0001, at: .seconds(4))
        #expect(seenRestarted == .restarted(previousInstance: "one"))
        #expect(directory[high]?.nextDialAt == .seconds(4))

        directory.departLinked(high, instanceId: "two", at: .seconds(5))
        #expect(directory[high] == nil)
        let seenAfterLeave = directory.observe(second, from: 0x7F00_0001, at: .seconds(5))
        #expect(seenAfterLeave == .departed)
    }

    @Test func directoryExpiresSilentPeers() {
        var directory = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1))
        let beacon = DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: low, nickname: "a"), tcpPort: 1, instanceId: "i")
        _ = directory.observe(beacon, from: 1, at: .seconds(10))
        let expiredEarly = directory.expire(at: .seconds(16), timeout: .seconds(6))
        #expect(expiredEarly.isEmpty)
        let expiredLate = directory.expire(at: .seconds(16) + .milliseconds(1), timeout: .seconds(6))
        #expect(expiredLate == [low])
        #expect(directory[low] == nil)
    }

    /// On a large LAN (`remember`) an instance heard again after its entry
    /// expired comes back with its count, so it is not answered as a
    /// newcomer (issue 29: answers in an idle window); a restart (a new
    /// instance) and a small LAN's expiry still count as new.
    @Test func anExpiredInstanceHeardAgainIsNoNewcomerOnALargeLAN() {
        var directory = AnnouncementTable(backoffBase: .milliseconds(100), backoffCap: .seconds(1))
        let identity = NodeIdentity(number: low, nickname: "a")
        let beacon = DiscoveryBeacon(kind: .beacon, identity: identity, tcpPort: 1, instanceId: "i")
        for second in [10, 12, 14] { _ = directory.observe(beacon, from: 1, at: .seconds(Int64(second))) }
        #expect(directory.expire(at: .seconds(100), timeout: .seconds(6), remember: true) == [low])
        #expect(directory.observe(beacon, from: 1, at: .seconds(400)) == .new)
        #expect(directory[low]?.heardCount == 4, "its count came back")
        // A restart after expiry: a newcomer.
        #expect(directory.expire(at: .seconds(500), timeout: .seconds(6), remember: true) == [low])
        let restarted = DiscoveryBeacon(kind: .beacon, identity: identity, tcpPort: 1, instanceId: "j")
        #expect(directory.observe(restarted, from: 1, at: .seconds(600)) == .new)
        #expect(directory[low]?.heardCount == 1)
        // Not remembered (a small LAN): new again, counted from one.
        #expect(directory.expire(at: .seconds(700), timeout: .seconds(6)) == [low])
        #expect(directory.observe(restarted, from: 1, at: .seconds(800)) == .new)
        #expect(directory[low]?.heardCount == 1)
    }

    @Test func configurationIsChecked() throws {
        var configuration = P2PConfiguration()
        try configuration.validate()
        #expect(configuration.tickInterval == .milliseconds(50))
        configuration.discoveryPort = 0
        #expect(throws: TransportError.invalidConfiguration("discoveryPort 0")) { try configuration.validate() }
        configuration.discoveryPort = 1
        configuration.beaconInterval = .zero
        #expect(throws: TransportError.invalidConfiguration("beaconInterval must be positive")) { try configuration.validate() }
        configuration.beaconInterval = .milliseconds(100)
        configuration.maxQueuedBytesPerLink = 1000
        #expect(throws: TransportError.self) { try configuration.validate() }
    }
}
