import ChatCore
import ChatWire
import ChatCrypto
import Foundation

/// What the encrypted link costs a node: its receive and send throughput
/// (in-memory stores, so the disk is not the bound) beside the record
/// layer alone on the same frame bytes: `RecordCipher` seal and 2-byte
/// framing, `RecordFrameDecoder` and open, in loops on one core. A v2 node
/// has no plaintext mode left to compare with, so the link's share is
/// computed: record time per frame times the frames the node moved, over
/// the CPU time the node used meanwhile (the process's, less the raw
/// peers' threads): the fraction of the node's time the records take (the
/// goal: < 10 %).
enum ThroughputRow {
    static func run(quick: Bool) async throws -> BenchRow {
        let received = try await LinkLoad.receive(count: quick ? 20_000 : 100_000, storePath: nil,
                                                  timeout: .seconds(quick ? 60 : 180))
        let sent = try await LinkLoad.send(count: quick ? 10_000 : 50_000, peers: LinkLoad.sendPeers, storePath: nil,
                                           timeout: .seconds(quick ? 60 : 180))
        let frames = received.plaintexts
        guard !frames.isEmpty else { throw LinkLoad.Failure(description: "no frames") }
        let records = try recordLayer(frames, rounds: quick ? 1 : 3)
        let signatures = try signatureRates(frames.prefix(quick ? 2_000 : 10_000))
        let bytes = frames.reduce(0) { $0 + $1.count } / frames.count
        // The records' share of the node's time: what they cost a frame on
        // one core times the frames the node moved (a receiver opens each
        // frame, a sender seals each message once per peer), over the CPU
        // the node used for it. The node runs on both cores, so the share
        // of one core's time (the figure this row gave before 2026-11-23)
        // is also kept.
        let receiveShareOfCore = records.open * 1e-6 * received.rate
        let sendFrames = sent.rate * Double(LinkLoad.sendPeers)
        let sendShareOfCore = records.seal * 1e-6 * sendFrames
        let receiveShare = records.open * 1e-6 * Double(received.received) / received.nodeCPU
        let sendShare = records.seal * 1e-6 * Double(sent.delivered) / sent.nodeCPU
        let perFrame = records.seal + records.open
        let complete = received.received == frames.count && sent.complete
        var row = BenchRow(
            key: "throughput",
            figure: "encrypted link throughput, in-memory stores: receiving from 1 peer / sending to \(LinkLoad.sendPeers) peers (frames/s)",
            value: "\(Measure.rate(received.rate)) / \(Measure.rate(sendFrames)) (\(Measure.rate(sent.rate)) messages)",
            baseline: String(format: "record layer alone on the same %d-byte frames, one core: seal + frame %.2f µs, decode + open %.2f µs a frame (%@ both)",
                             bytes, records.seal, records.open, Measure.rate(1e6 / perFrame)),
            target: "records < 10% of the node's time", met: receiveShare < 0.1 && sendShare < 0.1,
            numbers: ["receive_per_second": received.rate, "send_messages_per_second": sent.rate, "send_frames_per_second": sendFrames,
                      "seal_us": records.seal, "open_us": records.open, "raw_evp_per_second": records.rawRate, "frame_bytes": Double(bytes),
                      "receive_share": receiveShare, "send_share": sendShare,
                      "receive_share_of_one_core": receiveShareOfCore, "send_share_of_one_core": sendShareOfCore,
                      "receive_node_cpu_s": received.nodeCPU, "send_node_cpu_s": sent.nodeCPU,
                      "ed25519_verify_per_second": signatures.verify, "ed25519_sign_per_second": signatures.sign,
                      "raw_ed25519_verify_per_second": signatures.rawVerify, "raw_ed25519_sign_per_second": signatures.rawSign])
        row.note = String(
            format: "records take %.1f%% of the receiving node's CPU time and %.1f%% of the sending node's (record time a frame × the frames it moved, over the CPU the node used meanwhile: %.2f s receiving, %.2f s sending, on 2 cores; a v2 node has no plaintext mode to run instead); of one core's time: %.1f%% / %.1f%%; raw EVP ChaCha20-Poly1305 seal + open with reused contexts on the same frames: %@ (%.2f µs a frame; the record layer, with its framing, is %.1fx that); the signature on each public message costs more: Ed25519 verify %@ (%.0f µs), sign %@ (%.0f µs) on one core through the authenticator, %.0f / %.0f µs as bare EVP calls with keys imported once",
            receiveShare * 100, sendShare * 100, received.nodeCPU, sent.nodeCPU, receiveShareOfCore * 100, sendShareOfCore * 100,
            Measure.rate(records.rawRate), 1e6 / records.rawRate, perFrame * records.rawRate / 1e6,
            Measure.rate(signatures.verify), 1e6 / signatures.verify, Measure.rate(signatures.sign), 1e6 / signatures.sign,
            1e6 / signatures.rawVerify, 1e6 / signatures.rawSign)
        if !complete {
            row.note += "; incomplete: \(received.received) of \(frames.count) received" + (received.trouble.map { " (\($0))" } ?? "")
                + ", \(sent.delivered) of \(sent.expected) sent records delivered"
        }
        return row
    }

    /// Microseconds a frame to seal and frame it (what a sender pays per
    /// link) and to decode and open it (what a receiver pays), as a link
    /// does it, best of `rounds` passes; and frames per second of raw EVP
    /// seal + open with reused contexts on the same bytes.
    static func recordLayer(_ frames: [[UInt8]], rounds: Int) throws -> (seal: Double, open: Double, rawRate: Double) {
        var seal = Double.infinity, open = Double.infinity, bestRaw = 0.0
        for _ in 0..<rounds {
            var (sender, receiver) = try CryptoRows.transportPair()
            var decoder = RecordFrameDecoder()
            // Sealed as a link does (`P2PService.sealPending`): records with
            // their length headers appended to write batches of 64 KiB, each
            // reserved for its frames' bytes plus 64.
            let batchBytes = 64 * 1_024
            var batches: [[UInt8]] = []
            var next = 0
            let start = ContinuousClock.now
            while next < frames.count {
                var pending = 0, end = next
                while end < frames.count, pending < batchBytes { pending += frames[end].count; end += 1 }
                var batch: [UInt8] = []
                batch.reserveCapacity(pending + 64)
                for frame in frames[next..<end] { try frame.withUnsafeBytes { try sender.sealFramed($0, appendingTo: &batch) } }
                batches.append(batch)
                next = end
            }
            let sealed = ContinuousClock.now
            var openedCount = 0
            for batch in batches {
                try decoder.append(batch)
                while let record = try decoder.decode() {
                    let plaintext = try receiver.open(record)
                    precondition(plaintext.count == frames[openedCount].count)
                    openedCount += 1
                }
            }
            precondition(openedCount == frames.count)
            let opened = ContinuousClock.now
            seal = min(seal, Measure.micros(sealed - start) / Double(frames.count))
            open = min(open, Measure.micros(opened - sealed) / Double(frames.count))
            var raw = try RawAEAD(key: [UInt8](repeating: 7, count: 32))
            let rawStart = ContinuousClock.now
            for (counter, frame) in frames.enumerated() { try raw.sealAndOpen(frame, counter: UInt64(counter)) }
            bestRaw = max(bestRaw, Double(frames.count) / Measure.seconds(ContinuousClock.now - rawStart))
        }
        return (seal, open, bestRaw)
    }

    /// Ed25519 verifies and signs per second on these frames, through the
    /// authenticator the node uses.
    static func signatureRates(_ frames: ArraySlice<[UInt8]>) throws -> (verify: Double, sign: Double, rawVerify: Double, rawSign: Double) {
        let payloads = try frames.map { try P2PFrameCodec.decode($0) }
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
