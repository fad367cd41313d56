import ChatCore
import ChatWire
import Foundation

/// The wire codec alone: how many public-message frames a second one core
/// decodes and validates (`P2PFrameCodec`), and encodes. Not a target of its
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
        var bytes: [UInt8] = []
        for payload in payloads { bytes.append(contentsOf: P2PFrameCodec.encode(payload)) }
        let encodeRate = Double(count) / Measure.seconds(ContinuousClock.now - encodeStart)
        var codec = P2PFrameCodec()
        var decoded = 0
        let decodeStart = ContinuousClock.now
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 64 * 1024, bytes.count)
            try? codec.append(bytes[offset..<end])
            while let _ = try? codec.decode() { decoded += 1 }
            offset = end
        }
        let decodeRate = Double(count) / Measure.seconds(ContinuousClock.now - decodeStart)
        return BenchRow(
            key: "codec", figure: "frame codec on one core: decode + validate / encode, public-message frames",
            value: "\(Measure.rate(decodeRate)) / \(Measure.rate(encodeRate))", baseline: "-", target: "-", met: nil,
            numbers: ["decode_per_second": decodeRate, "encode_per_second": encodeRate, "decoded": Double(decoded)])
    }
}
