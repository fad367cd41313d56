import ChatCore

/// Performing a committed step's effects (after the commit, never before).
extension ChatNode {
    /// Performs `effects` in order, with two exceptions that keep the
    /// order that matters: frames are handed to the transport in batches
    /// (a run of sends and broadcasts in one call, so each link's socket is
    /// written once per step, not once per frame; a batch goes out before
    /// any effect that itself talks to the transport), and commands are
    /// answered last, once their frames are handed over. Returns whether
    /// the outbox has new work.
    func performAll(_ effects: [NodeEffect], added: Set<MessageID>) async -> Bool {
        var pump = false
        var batch: [OutgoingFrame] = []
        var replies: [NodeEffect] = []
        for effect in effects {
            switch effect {
            case .send(let frame, let peer):
                batch.append(.to(peer, frame))
                continue
            case .broadcast(let frame):
                batch.append(.everyone(frame))
                continue
            case .resume:
                replies.append(effect)
                continue
            case .report, .emit, .enqueue, .enqueueSent, .delivered, .failOutbox, .linkLost, .quotaReached:
                break  // no frames of their own: they may pass a waiting batch
            default:
                await handOver(&batch)
            }
            pump = await perform(effect, added: added) || pump
        }
        await handOver(&batch)
        for reply in replies { _ = await perform(reply, added: added) }
        return pump
    }

    private func handOver(_ batch: inout [OutgoingFrame]) async {
        guard !batch.isEmpty else { return }
        let frames = batch
        batch = []
        await transport.send(batch: frames)
    }
}
