import ChatCore
import ChatCrypto
import Foundation
import Glibc
import P2PTransport
import Synchronization

/// Issue 31's figure: a new honest node links within 2 s during a 10k/s
/// beacon flood from its own source address. Alice runs; a flooder sends
/// beacons of invented numbers (pointing at a closed port) from 127.0.0.1,
/// the address the newcomer's beacons also come from, at 10,000 a second;
/// then bob starts and the row times until both see the link. Baseline:
/// the same start without the flood. Transport defaults (beacon interval
/// 2 s, table 1024 in all, 1024 for a loopback address); loopback only.
enum BeaconFloodRow {
    static let floodRate = 10_000.0

    static func run(quick: Bool) async throws -> BenchRow {
        let rounds = quick ? 3 : 7
        var quiet: [Double] = [], flooded: [Double] = [], rates: [Double] = []
        for _ in 0..<rounds {
            quiet.append(try await timeToLink(flood: false).seconds)
            let (seconds, rate) = try await timeToLink(flood: true)
            flooded.append(seconds)
            rates.append(rate)
        }
        let worst = flooded.max() ?? .nan
        let slowestRate = rates.min() ?? .nan
        func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }
        return BenchRow(
            key: "beacon-flood",
            figure: "a newcomer links during a 10k/s beacon flood from its own address: median / worst of \(rounds)",
            value: "\(ms(Measure.percentile(flooded, 0.5))) / \(ms(worst))",
            baseline: "no flood: \(ms(Measure.percentile(quiet, 0.5))) / \(ms(quiet.max() ?? .nan))",
            target: "< 2 s", met: worst < 2 && slowestRate >= floodRate * 0.9,
            numbers: ["flooded_median_s": Measure.percentile(flooded, 0.5), "flooded_worst_s": worst,
                      "quiet_median_s": Measure.percentile(quiet, 0.5), "quiet_worst_s": quiet.max() ?? .nan,
                      "flood_rate_min_per_s": slowestRate],
            note: String(format: "flood measured at %.0f-%.0f beacons/s; a round that does not link within 10 s fails the row",
                         slowestRate, rates.max() ?? .nan))
    }

    /// Seconds from bob's start until alice and bob both list the link,
    /// and the flood's measured rate (0 without one).
    private static func timeToLink(flood: Bool) async throws -> (seconds: Double, rate: Double) {
        let discoveryPort = BenchPorts.freeDiscoveryPort()
        var configuration = P2PConfiguration()
        configuration.discoveryPort = discoveryPort
        configuration.broadcastAddresses = ["127.255.255.255"]
        let alice = try service("alice", configuration)
        try await alice.service.start()
        let flooder = flood ? BeaconFlooder(discoveryPort: discoveryPort, perSecond: floodRate) : nil
        flooder?.start()
        defer { flooder?.stop() }
        // Long enough for the flood to fill the address's share of alice's table.
        if flood { try await Task.sleep(for: .milliseconds(500)) }
        let bob = try service("bob", configuration)
        let started = ContinuousClock.now
        try await bob.service.start()
        var linked = false
        while ContinuousClock.now - started < .seconds(10) {
            let alicePeers = await alice.service.connectedPeers().map(\.number)
            let bobPeers = await bob.service.connectedPeers().map(\.number)
            if alicePeers.contains(bob.number), bobPeers.contains(alice.number) {
                linked = true
                break
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        let took = Measure.seconds(ContinuousClock.now - started)
        let rate = flooder?.stop() ?? 0
        await alice.service.stop()
        await bob.service.stop()
        guard linked else { throw BenchFailure.notLinked(flood: flood) }
        return (took, rate)
    }

    private static func service(_ nickname: String, _ base: P2PConfiguration) throws -> (service: P2PService, number: NodeNumber) {
        let key = try IdentityKey.generate()
        var configuration = base
        configuration.identityKey = key
        return (P2PService(identity: NodeIdentity(number: key.nodeNumber, nickname: nickname), configuration: configuration), key.nodeNumber)
    }

    enum BenchFailure: Error { case notLinked(flood: Bool) }
}

/// Sends beacons of invented numbers to 127.255.255.255 from 127.0.0.1 at
/// a steady rate on a thread of its own, until stopped.
private final class BeaconFlooder: Sendable {
    private let discoveryPort: Int
    private let perSecond: Double
    private let stopping = Mutex(false)
    /// Beacons sent and seconds taken, once the thread ends.
    private let result = Mutex<(sent: Int, seconds: Double)?>(nil)

    init(discoveryPort: Int, perSecond: Double) {
        self.discoveryPort = discoveryPort
        self.perSecond = perSecond
    }

    func start() {
        Thread { [self] in flood() }.start()
    }

    /// Stops the flood; its measured rate (beacons per second).
    @discardableResult
    func stop() -> Double {
        stopping.withLock { $0 = true }
        while true {
            if let done = result.withLock({ $0 }) { return done.seconds > 0 ? Double(done.sent) / done.seconds : 0 }
            usleep(1_000)
        }
    }

    private func flood() {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &yes, socklen_t(MemoryLayout<Int32>.size))
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = UInt16(discoveryPort).bigEndian
        target.sin_addr = in_addr(s_addr: UInt32(0x7FFF_FFFF).bigEndian)
        let started = ContinuousClock.now
        var sent = 0
        while !stopping.withLock({ $0 }) {
            let due = Int(Measure.seconds(ContinuousClock.now - started) * perSecond)
            if sent >= due {
                usleep(200)
                continue
            }
            // Invented numbers, each heard once: what a flood of fresh
            // identities looks like (a closed port: dials fail at once).
            let number = NodeNumber(rawValue: UInt64.random(in: 1...(1 << 52)))!
            let bytes = DiscoveryBeacon(kind: .beacon, identity: NodeIdentity(number: number, nickname: "flood\(sent % 1_000)"),
                                        tcpPort: 9, instanceId: InstanceID.make()).encoded()
            _ = bytes.withUnsafeBytes { raw in
                withUnsafePointer(to: &target) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(fd, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            sent += 1
        }
        result.withLock { $0 = (sent, Measure.seconds(ContinuousClock.now - started)) }
    }
}
