import ChatCore
import ChatCrypto
import Foundation

/// What the encrypted link costs a node: its receive and send throughput
/// (in-memory stores, so the disk is not the bound) beside the record
/// layer alone on the same frame bytes: `RecordCipher` seal, 2-byte
/// framing, `RecordFrameDecoder`, open, in a loop on one core. A v2 node
/// has no plaintext mode left to compare with, so the link's share is
/// computed: AEAD time per frame times the node's frame rate, the fraction
/// of the node's time the records take (the goal: < 10 %).
enum ThroughputRow {
    static func run(quick: Bool) async throws -> BenchRow {
        let received = try await LinkLoad.receive(count: quick ? 20_000 : 100_000, storePath: nil,
                                                  timeout: .seconds(quick ? 60 : 180))
        let sent = try await LinkLoad.send(count: quick ? 10_000 : 50_000, peers: LinkLoad.sendPeers, storePath: nil,
                                           timeout: .seconds(quick ? 60 : 180))
        let frames = received.plaintexts
        guard !frames.isEmpty else { throw LinkLoad.Failure(description: "no frames") }
        let aead = try recordLayerRate(frames, rounds: quick ? 1 : 3)
        let signatures = try signatureRates(frames.prefix(quick ? 2_000 : 10_000))
        let bytes = frames.reduce(0) { $0 + $1.count } / frames.count
        // One frame through the record layer costs 1/aead.rate s on one
        // core, seal and open together; a receiving node pays the open, a
        // sending node one seal per peer: half each, counted whole here
        // (the loop cannot split them cleanly, and the bound should not flatter).
        let perFrame = 1 / aead.rate
        let receiveShare = perFrame * received.rate
        let sendFrames = sent.rate * Double(LinkLoad.sendPeers)
        let sendShare = perFrame * sendFrames
        let complete = received.received == frames.count && sent.complete
        var row = BenchRow(
            key: "throughput",
            figure: "encrypted link throughput, in-memory stores: receiving from 1 peer / sending to \(LinkLoad.sendPeers) peers (frames/s)",
            value: "\(Measure.rate(received.rate)) / \(Measure.rate(sendFrames)) (\(Measure.rate(sent.rate)) messages)",
            baseline: String(format: "record layer alone (seal + frame + decode + open, %d-byte frames, one core): %@, %.2f µs a frame",
                             bytes, Measure.rate(aead.rate), perFrame * 1e6),
            target: "records < 10% of the node's time", met: complete && receiveShare < 0.1 && sendShare < 0.1,
            numbers: ["receive_per_second": received.rate, "send_messages_per_second": sent.rate, "send_frames_per_second": sendFrames,
                      "record_layer_per_second": aead.rate, "raw_evp_per_second": aead.rawRate, "frame_bytes": Double(bytes),
                      "receive_share": receiveShare, "send_share": sendShare,
                      "ed25519_verify_per_second": signatures.verify, "ed25519_sign_per_second": signatures.sign,
                      "raw_ed25519_verify_per_second": signatures.rawVerify, "raw_ed25519_sign_per_second": signatures.rawSign])
        row.note = String(
            format: "records take ≤ %.1f%% of the receiving node's time and ≤ %.1f%% of the sending node's (AEAD time a frame × the node's frame rate); raw EVP ChaCha20-Poly1305 with reused contexts on the same frames: %@ (%.2f µs a frame, so the wrapper's per-record context set-up costs %.1fx the cipher); the signature on each public message costs more: Ed25519 verify %@ (%.0f µs), sign %@ (%.0f µs) on one core through the authenticator, %.0f / %.0f µs as bare EVP calls with keys imported once",
            receiveShare * 100, sendShare * 100, Measure.rate(aead.rawRate), 1e6 / aead.rawRate, aead.rawRate / aead.rate,
            Measure.rate(signatures.verify), 1e6 / signatures.verify, Measure.rate(signatures.sign), 1e6 / signatures.sign,
            1e6 / signatures.rawVerify, 1e6 / signatures.rawSign)
        if !complete {
            row.note += "; incomplete: \(received.received) of \(frames.count) received, \(sent.delivered) of \(sent.expected) sent records delivered"
        }
        return row
    }

    /// Frames per second through seal, framing, the decoder and open (as a
    /// link does it, both ends on this thread), best of `rounds` passes;
    /// and raw EVP with reused contexts on the same bytes.
    static func recordLayerRate(_ frames: [[UInt8]], rounds: Int) throws -> (rate: Double, rawRate: Double) {
        var best = 0.0, bestRaw = 0.0
        for _ in 0..<rounds {
            var (sender, receiver) = try CryptoRows.transportPair()
            var decoder = RecordFrameDecoder()
            let start = ContinuousClock.now
            for frame in frames {
                try decoder.append(try RecordFrameDecoder.frame(try sender.seal(frame)))
                guard let record = try decoder.decode() else { throw LinkLoad.Failure(description: "no record") }
                let opened = try receiver.open(record)
                precondition(opened.count == frame.count)
            }
            best = max(best, Double(frames.count) / Measure.seconds(ContinuousClock.now - start))
            var raw = try RawAEAD(key: [UInt8](repeating: 7, count: 32))
            let rawStart = ContinuousClock.now
            for (counter, frame) in frames.enumerated() { try raw.sealAndOpen(frame, counter: UInt64(counter)) }
            bestRaw = max(bestRaw, Double(frames.count) / Measure.seconds(ContinuousClock.now - rawStart))
        }
        return (best, bestRaw)
    }

    /// Ed25519 verifies and signs per second on these frames, through the
    /// authenticator the node uses.
    static func signatureRates(_ frames: ArraySlice<[UInt8]>) throws -> (verify: Double, sign: Double, rawVerify: Double, rawSign: Double) {
        let payloads = try frames.map { try P2PFrameCodec.decodeLine($0) }
        let key = try IdentityKey.generate()
        let mine = Ed25519MessageAuthenticator(key: key)
        let verifyStart = ContinuousClock.now
        for payload in payloads where !mine.verify(payload).isValid {
            throw LinkLoad.Failure(description: "a frame's signature did not verify")
        }
        let verify = Double(payloads.count) / Measure.seconds(ContinuousClock.now - verifyStart)
        var copies = payloads
        let signStart = ContinuousClock.now
        for index in copies.indices { mine.sign(&copies[index]) }
        let sign = Double(copies.count) / Measure.seconds(ContinuousClock.now - signStart)
        let raw = try RawSignature.rates(payloads)
        return (verify, sign, raw.verify, raw.sign)
    }
}
