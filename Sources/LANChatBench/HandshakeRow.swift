import ChatCrypto
import Foundation
import LANChatHarness

/// A live link set-up against a running node: TCP connect, the whole Noise
/// handshake with identity payloads and hellos, and the node's acceptance
/// record, one dial after another from a raw v2 peer on its own thread.
/// Beside it, the handshake's cryptography alone (both sides, one core),
/// measured in the same run.
enum HandshakeRow {
    static func run(quick: Bool) async throws -> BenchRow {
        let rounds = quick ? 200 : 1000
        let warmUp = 20
        let cluster = try await Cluster(count: 1, discoveryPort: BenchPorts.freeDiscoveryPort())
        let port = await cluster.members[0].service.listeningPort
        // Keys made before the clock: a real node has its key already.
        let keys = try (0..<(rounds + warmUp)).map { _ in try IdentityKey.generate() }
        let outcome = await onThread { () -> Result<[Double], Error> in
            Result {
                try keys.enumerated().map { index, key in
                    // Connect + handshake + acceptance, as the peer sees it.
                    let start = ContinuousClock.now
                    let peer = try RawPeer.link(to: port, key: key, nickname: "dial\(index)")
                    let time = ContinuousClock.now - start
                    withExtendedLifetime(peer) {}
                    return Measure.micros(time)
                }
            }
        }
        await cluster.stop()
        let samples = Array(try outcome.get().dropFirst(warmUp))
        let crypto = try CryptoRows.handshakeSamples(rounds: rounds)
        let p50 = Measure.percentile(samples, 0.5), p99 = Measure.percentile(samples, 0.99)
        let c50 = Measure.percentile(crypto, 0.5), c99 = Measure.percentile(crypto, 0.99)
        return BenchRow(
            key: "handshake", figure: "link set-up to a running node: connect + Noise XX handshake + acceptance, p50 / p99",
            value: "\(Measure.ms(p50)) / \(Measure.ms(p99))",
            baseline: "the handshake's crypto alone, both sides on one core: \(Measure.ms(c50)) / \(Measure.ms(c99))",
            target: "-", met: nil,
            numbers: ["p50_us": p50, "p99_us": p99, "crypto_p50_us": c50, "crypto_p99_us": c99, "rounds": Double(rounds)],
            note: "one dial at a time from a raw v2 peer on its own thread, each with a fresh identity key; the node runs ChatNode + P2PService, links closed after acceptance")
    }
}
