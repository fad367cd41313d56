import ChatCore
import ChatCrypto
import Foundation
import LANChatHarness

/// The two throughput measurements the receive, send and throughput rows
/// share: one in-process node (ChatNode + P2PService) flooded by a raw v2
/// peer, or sending to raw v2 peers that drain its records.
enum LinkLoad {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Peers the sending node writes to.
    static let sendPeers = 10
    /// Sends in flight at once when sending.
    static let sendWindow = 256

    struct Received {
        /// Messages per second, from the first record written to the last message reported.
        var rate: Double
        var received: Int
        /// The record plaintexts sent (signed public-message frames).
        var plaintexts: [[UInt8]]
        /// The node's transport counters after the run (`deadPeer`, `backpressure`...).
        var counters: [String: Int]
        /// CPU seconds the process used from the first record written to the
        /// last message reported, less the raw peer's writer thread: the node's.
        var nodeCPU: Double
        /// Why the row may be short: the node cut the peer, or the writer failed.
        var trouble: String? {
            var causes: [String] = []
            if let dead = counters["deadPeer"], dead > 0 {
                causes.append("the node cut the flooding peer as dead \(dead)x (nothing received from it for the dead-peer timeout)")
            }
            if counters["writerFailed"] == 1 { causes.append("the peer's write failed (the node closed the link)") }
            return causes.isEmpty ? nil : causes.joined(separator: "; ")
        }
    }

    /// One node (`storePath` nil: in-memory store) receiving `count` signed
    /// public messages from one raw peer, all signed and sealed before the
    /// clock starts, so the row measures the node.
    static func receive(count: Int, storePath: String?, timeout: Duration) async throws -> Received {
        // Signed before the peer connects (signing takes seconds, and a
        // silent peer is cut as dead), sealed once linked, in nonce order.
        let key = try IdentityKey.generate()
        let identity = NodeIdentity(number: key.nodeNumber, nickname: "flood")
        let authenticator = Ed25519MessageAuthenticator(key: key)
        let millis = Timestamp.millis(from: Date())
        // Ids as a real node makes them (MessageIDGenerator: strictly
        // increasing), so the receiver's indexes grow at their end as they
        // do for a real sender, not at random places.
        var ids = MessageIDGenerator()
        let plaintexts = (0..<count).map { index in
            RawPeer.encoded(RawPeer.signedMessage(NetworkRows.text(index), from: identity, signedBy: authenticator,
                                                  millis: millis, messageId: ids.next(millis: millis)))
        }
        let cluster = try await Cluster(count: 1, discoveryPort: BenchPorts.freeDiscoveryPort(), storePath: { _ in storePath })
        let member = cluster.members[0]
        let port = await member.service.listeningPort
        let peer: RawPeer
        do {
            peer = try await onThread { Result { try RawPeer.link(to: port, key: key, nickname: "flood") } }.get()
        } catch {
            await cluster.stop()
            throw error
        }
        guard await NetworkRows.waitForLinks(member.service, count: 1) else {
            await cluster.stop()
            throw Failure(description: "the raw peer did not link")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 450)
        for plaintext in plaintexts { bytes.append(contentsOf: peer.seal(plaintext: plaintext)) }
        cluster.messages.expect("*", count: count)
        let start = ContinuousClock.now
        let cpuAtStart = MeshRow.processCPU()
        let payload = bytes
        // The writer's CPU (its writes, and on loopback the kernel's
        // delivery to the node's socket) is the peer's, not the node's.
        let writer = Task {
            await onThread { () -> (written: Bool, cpu: Double) in
                let before = ScreenRow.threadCPUMicros()
                let written = (try? peer.write(payload)) != nil
                return (written, (ScreenRow.threadCPUMicros() - before) / 1e6)
            }
        }
        let writeFailed = Arrivals()
        writeFailed.expect("failed", count: 1)
        let watcher = Task {
            if await writer.value.written == false { writeFailed.saw("failed") }
        }
        // Until all are stored, or the node cut the link and has stored
        // nothing more for 2 s, or the time limit.
        let deadline = ContinuousClock.now + timeout
        var done: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            if let at = await cluster.messages.wait(timeout: .milliseconds(500)) {
                done = at
                break
            }
            if writeFailed.count > 0, let last = cluster.messages.lastArrival, ContinuousClock.now - last > .seconds(2) { break }
        }
        let processCPU = MeshRow.processCPU() - cpuAtStart
        let received = cluster.messages.count
        var counters = await member.service.diagnostics()
        // The writer failed before the node stopped (the node cut the link)?
        counters["writerFailed"] = writeFailed.count > 0 ? 1 : 0
        // Stopping closes the link, which ends a writer still blocked.
        await cluster.stop()
        await watcher.value
        let nodeCPU = processCPU - (await writer.value.cpu)
        // Short of all: the rate over what was stored, to the last arrival.
        let end = done ?? cluster.messages.lastArrival ?? start
        let rate = end > start ? Double(received) / Measure.seconds(end - start) : 0
        return Received(rate: rate, received: received, plaintexts: plaintexts, counters: counters, nodeCPU: nodeCPU)
    }

    struct Sent {
        /// Messages originated per second, until every peer had every record.
        var rate: Double
        /// Messages per second until the last `sendPublic` returned.
        var originateRate: Double
        /// Public-message records the peers opened, in all.
        var delivered: Int
        /// Records the peers should have opened: messages times peers.
        var expected: Int
        /// CPU seconds the process used from the first send until every
        /// peer had every record, less the peers' draining threads: the node's.
        var nodeCPU: Double
        var complete: Bool { delivered == expected }
    }

    /// One node (`storePath` nil: in-memory store) sending `count` public
    /// messages to `peers` raw peers, many sends in flight (a bot, a
    /// script, several users' commands: sends arriving while a commit is in
    /// flight share the next one).
    static func send(count: Int, peers peerCount: Int, storePath: String?, timeout: Duration) async throws -> Sent {
        let cluster = try await Cluster(count: 1, discoveryPort: BenchPorts.freeDiscoveryPort(), storePath: { _ in storePath })
        let member = cluster.members[0]
        let port = await member.service.listeningPort
        let peers: [RawPeer]
        do {
            peers = try await onThread { Result { try (0..<peerCount).map { try RawPeer.link(to: port, key: IdentityKey.generate(), nickname: "sink\($0)") } } }.get()
        } catch {
            await cluster.stop()
            throw error
        }
        guard await NetworkRows.waitForLinks(member.service, count: peerCount) else {
            await cluster.stop()
            throw Failure(description: "the raw peers did not link")
        }
        let deadline = ContinuousClock.now + timeout
        let drains = peers.map { peer in
            Task {
                await onThread { () -> (seen: Int, cpu: Double) in
                    let before = ScreenRow.threadCPUMicros()
                    let seen = peer.drain(records: count, containing: #""type":"publicMessage""#, until: deadline)
                    return (seen, (ScreenRow.threadCPUMicros() - before) / 1e6)
                }
            }
        }
        let start = ContinuousClock.now
        let cpuAtStart = MeshRow.processCPU()
        let node = member.node
        try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for index in 0..<count {
                if inFlight >= sendWindow {
                    try await group.next()
                    inFlight -= 1
                }
                group.addTask { try await node.sendPublic(NetworkRows.text(index)) }
                inFlight += 1
            }
            try await group.waitForAll()
        }
        let originated = ContinuousClock.now
        var delivered = 0
        var peersCPU = 0.0
        for drain in drains {
            let drained = await drain.value
            delivered += drained.seen
            peersCPU += drained.cpu
        }
        let end = ContinuousClock.now
        let nodeCPU = MeshRow.processCPU() - cpuAtStart - peersCPU
        await cluster.stop()
        return Sent(rate: Double(count) / Measure.seconds(end - start),
                    originateRate: Double(count) / Measure.seconds(originated - start),
                    delivered: delivered, expected: count * peerCount, nodeCPU: nodeCPU)
    }
}
