import ChatCore
import ChatCrypto
import ChatOverlay
import ChatWire
import Foundation

/// Where a relaying node's CPU goes per gossiped public message, on one
/// core: decoding the overlay frame that carries it, and verifying its
/// author's signature (done once per new id before it is relayed). Also
/// an IHAVE's decode, the commonest overlay control frame. Not a target of
/// its own: it shows which of the two a relay pays most for.
enum OverlayCodecRow {
    static func run(quick: Bool) throws -> BenchRow {
        let count = quick ? 5_000 : 20_000
        let key = try IdentityKey.generate()
        let authenticator = Ed25519MessageAuthenticator(key: key)
        let millis = Timestamp.millis(from: Date())
        let relay = NodeNumber(rawValue: 4_711_000_123)!
        let header = OverlayFrameCodec.Header(messageId: MessageID(millis: millis, random: (7, 7)), senderNumber: relay,
                                              senderNickname: "relay", timestamp: millis)
        var signed: [P2PPayload] = []
        signed.reserveCapacity(count)
        for index in 0..<count {
            var payload = P2PPayload(type: .publicMessage, messageId: MessageID(millis: millis, random: (UInt64(index), 1)),
                                     senderNumber: key.nodeNumber, senderNickname: "author",
                                     content: NetworkRows.text(index), timestamp: millis)
            authenticator.sign(&payload)
            signed.append(payload)
        }
        let gossip = signed.map { OverlayFrameCodec.encode(.gossip(GossipMessage(hops: 2, message: $0)), header: header) }
        let ids = (0..<64).map { MessageID(millis: millis, random: (UInt64($0), 2)) }
        let ihave = OverlayFrameCodec.encode(.ihave(ids), header: header)

        let decodeRate = rate(count) { for frame in gossip { _ = try? OverlayFrameCodec.decode(frame) } }
        let referenceRate = rate(count) { for frame in gossip { _ = try? OverlayFrameCodec.decodeWithJSONDecoder(frame) } }
        let ihaveRate = rate(count) { for _ in 0..<count { _ = try? OverlayFrameCodec.decode(ihave) } }
        var valid = 0
        let verifyRate = rate(count) { for payload in signed where authenticator.verify(payload).isValid { valid += 1 } }
        return BenchRow(
            key: "overlay-codec",
            figure: "overlay on one core: gossip frame decode / its signature verify / IHAVE (64 ids) decode, per second",
            value: "\(Measure.rate(decodeRate)) / \(Measure.rate(verifyRate)) / \(Measure.rate(ihaveRate))",
            baseline: "JSONDecoder: \(Measure.rate(referenceRate))", target: "-", met: nil,
            numbers: ["gossip_decode_per_second": decodeRate, "gossip_decode_jsondecoder_per_second": referenceRate,
                      "verify_per_second": verifyRate, "ihave_decode_per_second": ihaveRate,
                      "gossip_frame_bytes": Double(gossip.first?.count ?? 0), "verified": Double(valid)])
    }

    private static func rate(_ count: Int, _ work: () -> Void) -> Double {
        let start = ContinuousClock.now
        work()
        return Double(count) / Measure.seconds(ContinuousClock.now - start)
    }
}
