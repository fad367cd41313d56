import ChatCore
import ChatWire
import Foundation

/// The wire codec alone: how many public-message frames a second one core
/// decodes and validates (`P2PFrameCodec`, one record's plaintext at a
/// time, as a link reads them), and encodes. Not a target of its
/// own; it shows how much of the receive budget the JSON costs.
enum CodecRow {
    static func run(quick: Bool) -> BenchRow {
        let count = quick ? 20_000 : 100_000
        let sender = NodeNumber(rawValue: 4_711_000_123)!
        let millis = Timestamp.millis(from: Date())
        let payloads = (0..<count).map { index in
            P2PPayload(type: .publicMessage, messageId: MessageID(millis: millis, random: (UInt64(index), UInt64(index) &* 31)),
                       senderNumber: sender, senderNickname: "flood", content: NetworkRows.text(index), timestamp: millis)
        }
        let encodeStart = ContinuousClock.now
        var frames: [[UInt8]] = []
        frames.reserveCapacity(count)
        // Each frame as a record's plaintext (the link drops the "\n").
        for payload in payloads { frames.append(Array(P2PFrameCodec.encode(payload).dropLast())) }
        let encodeRate = Double(count) / Measure.seconds(ContinuousClock.now - encodeStart)
        var decoded = 0
        let decoder = JSONDecoder()
        let decodeStart = ContinuousClock.now
        for frame in frames where (try? P2PFrameCodec.decode(frame, using: decoder)) != nil { decoded += 1 }
        let decodeRate = Double(count) / Measure.seconds(ContinuousClock.now - decodeStart)
        return BenchRow(
            key: "codec", figure: "frame codec on one core: decode + validate / encode, public-message frames",
            value: "\(Measure.rate(decodeRate)) / \(Measure.rate(encodeRate))", baseline: "-", target: "-", met: nil,
            numbers: ["decode_per_second": decodeRate, "encode_per_second": encodeRate, "decoded": Double(decoded)])
    }
}
