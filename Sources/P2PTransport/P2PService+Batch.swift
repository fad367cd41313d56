import ChatCore
import ChatWire

extension P2PService {
    /// Queues every frame of a node step on its links, in order, then
    /// flushes each link once: a step of 256 public messages to 10 peers is
    /// 10 socket writes of sealed records, not 2,560 (each of which also
    /// woke the peer for one small record). The rules are `send(_:to:)`'s
    /// and `broadcast`'s; a frame refused by them is skipped.
    public func send(batch frames: [OutgoingFrame]) async {
        var touched: [Int: PeerLink] = [:]
        for frame in frames {
            switch frame {
            case .to(let peer, let payload):
                guard canSend(payload) else { continue }
                if payload.type.isDirect, payload.targetNumber != peer {
                    logger.error("refused to send \(payload.type) for \(payload.targetNumber.map(String.init(describing:)) ?? "nobody") to \(peer)")
                    continue
                }
                guard let link = established[peer] else {
                    _ = sendSealed(payload, to: peer)
                    continue
                }
                if link.onDemand {
                    guard Self.carriesOnDemand(payload.type) else { continue }
                    noteDirectTraffic(on: link, peer)
                }
                if write(P2PFrameCodec.encode(payload), to: link, flushNow: false) { queued(on: link, &touched) }
            case .everyone(let payload):
                guard canSend(payload) else { continue }
                guard !payload.type.isDirect else {
                    logger.error("refused to broadcast a \(payload.type) frame; direct frames go to their target only")
                    continue
                }
                let encoded = P2PFrameCodec.encode(payload)
                // Above the overlay's threshold a public message goes by gossip to overlay peers.
                let gossip = payload.type == .publicMessage && overlayIsPartial
                for link in established.values.sorted(by: { $0.id < $1.id })
                where !link.onDemand && !(gossip && link.speaksOverlay) && write(encoded, to: link, flushNow: false) {
                    queued(on: link, &touched)
                }
                if gossip { publishByGossip(payload) }
            }
        }
        for id in touched.keys.sorted() {
            guard let link = touched[id], !link.isClosed else { continue }
            flush(link)
        }
    }

    /// Notes a link written to by a batch; once a record batch's worth is
    /// waiting it is flushed at once, so a big step (1,024 frames of up to
    /// ~1.3 KB) never piles up toward `maxQueuedBytesPerLink` and gets a
    /// healthy link cut: the socket takes it 64 KiB at a time, as it does
    /// when frames come one by one.
    private func queued(on link: PeerLink, _ touched: inout [Int: PeerLink]) {
        touched[link.id] = link
        // Sealed output still waiting means the socket is full: the poll
        // loop flushes when it drains, no need to ask it again per frame.
        if link.output.isEmpty, link.unsealed.byteCount >= Self.sealBatchBytes { flush(link) }
    }
}
