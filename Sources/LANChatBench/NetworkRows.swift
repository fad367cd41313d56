import ChatCore
import ChatNode
import ChatStore
import Foundation
import P2PTransport

/// Rows that move messages between nodes on loopback.
enum NetworkRows {
    /// A public message text of ordinary length, unique per index.
    static func text(_ index: Int) -> String {
        "bench message \(index): a line of ordinary chat length, about sixty"
    }

    /// The size of the frame `text(index)` travels in, for the C baselines.
    static var frameBytes: Int {
        let payload = P2PPayload(type: .publicMessage, messageId: MessageID(millis: 1_732_147_200_000, random: (1, 2)),
                                 senderNumber: NodeNumber(rawValue: 1_234_567_890_123)!, senderNickname: "n0",
                                 content: text(99_999), timestamp: 1_732_147_200_000)
        return P2PFrameCodec.encode(payload).count
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    // MARK: Public message latency, 10 nodes

    static func publicLatency(quick: Bool, baselines: CBaselines) async throws -> [BenchRow] {
        let count = quick ? 300 : 2000
        let warmUp = 50
        let cluster = try await Cluster(count: 10, discoveryPort: BenchPorts.freeDiscoveryPort())
        guard await cluster.waitForMesh(timeout: .seconds(20)) else {
            await cluster.stop()
            throw Failure(description: "10 nodes did not link up within 20 s")
        }
        let sender = cluster.members[0].node
        var samples: [Double] = []
        var lost = 0
        for index in 0..<(count + warmUp) {
            let text = text(index)
            cluster.messages.expect(text, count: 9)
            let start = ContinuousClock.now
            try await sender.sendPublic(text)
            guard let arrived = await cluster.messages.wait(timeout: .seconds(5)) else {
                lost += 1
                continue
            }
            if index >= warmUp { samples.append(Measure.micros(arrived - start)) }
        }
        await cluster.stop()
        let base = try baselines.fanoutLatency(peers: 9, messages: count, bytes: frameBytes)
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        var row = BenchRow(
            key: "latency", figure: "public message to all 9 peers, 10 nodes on loopback, p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))",
            baseline: "C fan-out to 9 sockets: \(Measure.ms(base.p50)) / \(Measure.ms(base.p99))",
            target: "p50 < 0.5 ms, p99 < 2 ms", met: lost == 0 && p50 < 500 && p99 < 2000,
            numbers: ["p50_us": p50, "p99_us": p99, "baseline_p50_us": base.p50, "baseline_p99_us": base.p99,
                      "messages": Double(count), "lost": Double(lost)])
        if lost > 0 { row.note = "\(lost) of \(count + warmUp) messages did not reach all 9 peers within 5 s" }
        return [row]
    }

    // MARK: DM send to acknowledgement

    static func directAck(quick: Bool, baselines: CBaselines, onDisk: Bool) async throws -> BenchRow {
        let count = quick ? 300 : 2000
        let warmUp = 50
        let directory = NSTemporaryDirectory() + "lanchat-bench-dm-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = try await Cluster(count: 2, discoveryPort: BenchPorts.freeDiscoveryPort(),
                                        storePath: { onDisk ? directory + "/node\($0).sqlite" : nil })
        guard await cluster.waitForMesh(timeout: .seconds(20)) else {
            await cluster.stop()
            throw Failure(description: "2 nodes did not link up within 20 s")
        }
        let alice = cluster.members[0], bob = cluster.members[1]
        // The first DM is a request; bob accepts, then every DM is acknowledged.
        cluster.deliveries.expect("delivered", count: 1)
        try await alice.node.sendDirect("hello bob", to: bob.identity.number)
        _ = await cluster.deliveries.wait(timeout: .seconds(5))
        try await bob.node.accept(String(alice.identity.number.rawValue))
        try await Task.sleep(for: .milliseconds(100))
        var samples: [Double] = []
        var lost = 0
        for index in 0..<(count + warmUp) {
            cluster.deliveries.expect("delivered", count: 1)
            let start = ContinuousClock.now
            try await alice.node.sendDirect(text(index), to: bob.identity.number)
            guard let acknowledged = await cluster.deliveries.wait(timeout: .seconds(5)) else {
                lost += 1
                continue
            }
            if index >= warmUp { samples.append(Measure.micros(acknowledged - start)) }
        }
        await cluster.stop()
        let base = try baselines.roundTrip(messages: count, bytes: frameBytes)
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        let stores = onDisk ? "on-disk stores (synchronous=FULL)" : "in-memory stores"
        var row = BenchRow(
            key: onDisk ? "dm-disk" : "dm", figure: "DM send to acknowledgement, \(stores), p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))",
            baseline: "C round trip: \(Measure.ms(base.p50)) / \(Measure.ms(base.p99))",
            target: "p99 < 2 ms", met: lost == 0 && p99 < 2000,
            numbers: ["p50_us": p50, "p99_us": p99, "baseline_p50_us": base.p50, "baseline_p99_us": base.p99,
                      "messages": Double(count), "lost": Double(lost)])
        if lost > 0 { row.note = "\(lost) DMs not acknowledged within 5 s" }
        return row
    }

    // MARK: One node receiving

    static func receiving(quick: Bool, baselines: CBaselines) async throws -> BenchRow {
        let count = quick ? 20_000 : 100_000
        let directory = NSTemporaryDirectory() + "lanchat-bench-rx-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = try await Cluster(count: 1, discoveryPort: BenchPorts.freeDiscoveryPort(),
                                        storePath: { _ in directory + "/receiver.sqlite" })
        let member = cluster.members[0]
        let port = await member.service.listeningPort
        let peer = try RawPeer(port: port, nickname: "flood")
        guard await waitForLinks(member.service, count: 1) else {
            await cluster.stop()
            throw Failure(description: "the raw peer did not link")
        }
        // Encoded before the clock starts: the sender's cost is not the node's.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 300)
        let millis = Timestamp.millis(from: Date())
        for index in 0..<count {
            bytes.append(contentsOf: P2PFrameCodec.encode(peer.frame(.publicMessage, content: text(index), millis: millis)))
        }
        cluster.messages.expect("*", count: count)
        let start = ContinuousClock.now
        let payload = bytes
        let writer = Task { await onThread { (try? peer.write(payload)) != nil } }
        let done = await cluster.messages.wait(timeout: .seconds(quick ? 60 : 180))
        _ = await writer.value
        let received = cluster.messages.count
        await cluster.stop()
        let rate = done.map { Double(count) / Measure.seconds($0 - start) } ?? 0
        let base = try baselines.sqliteInsert(path: directory + "/raw.sqlite", count: count, batch: 1000)
        var row = BenchRow(
            key: "receive", figure: "one node receiving, validating and storing (on disk, synchronous=FULL)",
            value: Measure.rate(rate), baseline: "raw SQLite, 1000 rows a transaction: \(Measure.rate(base))",
            target: "> 50k/s", met: rate > 50_000,
            numbers: ["per_second": rate, "baseline_per_second": base, "messages": Double(count)])
        if done == nil { row.note = "only \(received) of \(count) messages were stored within the time limit" }
        return row
    }

    // MARK: One node sending to 10 peers

    static func sending(quick: Bool, baselines: CBaselines) async throws -> BenchRow {
        var row = try await sending(quick: quick, baselines: baselines, onDisk: true)
        let inMemory = try await sending(quick: quick, baselines: baselines, onDisk: false)
        let directory = NSTemporaryDirectory() + "lanchat-bench-commit-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let commits = try baselines.sqliteInsert(path: directory + "/one.sqlite", count: quick ? 1000 : 3000, batch: 1)
        row.numbers["in_memory_per_second"] = inMemory.numbers["per_second"]
        row.numbers["raw_commits_per_second"] = commits
        let extra = "same node with an in-memory store: \(inMemory.value); raw SQLite from C, one row per transaction (synchronous=FULL): \(Measure.rate(commits)), the ceiling for a caller that awaits each send"
        row.note = row.note.isEmpty ? extra : row.note + "; " + extra
        return row
    }

    /// Sends in flight at once in the send row.
    static let sendWindow = 256

    private static func sending(quick: Bool, baselines: CBaselines, onDisk: Bool) async throws -> BenchRow {
        let count = onDisk ? (quick ? 5_000 : 20_000) : (quick ? 20_000 : 50_000)
        let peerCount = 10
        let directory = NSTemporaryDirectory() + "lanchat-bench-tx-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cluster = try await Cluster(count: 1, discoveryPort: BenchPorts.freeDiscoveryPort(),
                                        storePath: { _ in onDisk ? directory + "/sender.sqlite" : nil })
        let member = cluster.members[0]
        let port = await member.service.listeningPort
        var peers: [RawPeer] = []
        for index in 0..<peerCount { peers.append(try RawPeer(port: port, nickname: "sink\(index)")) }
        guard await waitForLinks(member.service, count: peerCount) else {
            await cluster.stop()
            throw Failure(description: "the raw peers did not link")
        }
        let deadline = Date().addingTimeInterval(quick ? 60 : 180)
        let drains = peers.map { peer in
            Task { await onThread { peer.drain(lines: count, containing: #""type":"publicMessage""#, deadline: deadline) } }
        }
        let start = ContinuousClock.now
        // Many callers at once (a bot, a script, several users' commands):
        // sends arriving while a commit is in flight share the next one.
        let node = member.node
        try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for index in 0..<count {
                if inFlight >= sendWindow {
                    try await group.next()
                    inFlight -= 1
                }
                group.addTask { try await node.sendPublic(text(index)) }
                inFlight += 1
            }
            try await group.waitForAll()
        }
        let originated = ContinuousClock.now
        var delivered = 0
        for drain in drains { delivered += await drain.value }
        let end = ContinuousClock.now
        await cluster.stop()
        let rate = Double(count) / Measure.seconds(end - start)
        let base = try baselines.fanoutRate(peers: peerCount, messages: count, bytes: frameBytes)
        var row = BenchRow(
            key: "send", figure: "one node sending to 10 peers (on disk, synchronous=FULL, \(sendWindow) sends in flight), messages originated",
            value: Measure.rate(rate), baseline: "C fan-out writer: \(Measure.rate(base))",
            target: "> 10k/s and ≥ half the baseline", met: delivered == count * peerCount && rate > 10_000 && rate >= base / 2,
            numbers: ["per_second": rate, "baseline_per_second": base, "messages": Double(count),
                      "originate_only_per_second": Double(count) / Measure.seconds(originated - start)])
        if delivered != count * peerCount { row.note = "only \(delivered) of \(count * peerCount) frames reached the peers in time" }
        return row
    }

    static func waitForLinks(_ service: P2PService, count: Int) async -> Bool {
        for _ in 0..<500 {
            if await service.connectedPeers().count >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
