import ChatCore

/// Performing a committed step's effects (after the commit, never before).
extension ChatNode {
    /// Performs `effects` in order, except that frames are handed to the
    /// transport in batches: a run of sends and broadcasts in one call, so
    /// each link's socket is written once per step, not once per frame. A
    /// batch goes out before any effect that itself talks to the
    /// transport, so frames keep their order on every link. Sends are
    /// answered in place (after the commit, before their frames are handed
    /// over): a client with many sends in flight sends its next ones while
    /// this step writes, and they share the next commit instead of
    /// trickling into many small ones; `stop()` waits for this to end, so
    /// an answered send is still written, and a DM is retried by the
    /// outbox anyway. An accept or decline, sent once and never retried,
    /// is answered only after its frame is handed over, so a caller that
    /// then acts on the link (or cuts it) acts after the frame. Returns
    /// whether the outbox has new work.
    func performAll(_ effects: [NodeEffect], added: Set<MessageID>) async -> Bool {
        applying = true
        defer {
            applying = false
            for waiter in applyWaiters { waiter.resume() }
            applyWaiters = []
        }
        var pump = false
        var batch: [OutgoingFrame] = []
        var answers: [NodeEffect] = []
        for effect in effects {
            switch effect {
            case .send(let frame, let peer):
                batch.append(.to(peer, frame))
                continue
            case .broadcast(let frame):
                batch.append(.everyone(frame))
                continue
            case .resume(let command, _):
                if case .answer = command.command {
                    answers.append(effect)
                    continue
                }
            case .report, .emit, .enqueue, .enqueueSent, .delivered, .failOutbox, .linkLost, .quotaReached, .superseded:
                break  // no frames of their own: they may pass a waiting batch
            default:
                await handOver(&batch)
            }
            pump = await perform(effect, added: added) || pump
        }
        await handOver(&batch)
        for answer in answers { _ = await perform(answer, added: added) }
        return pump
    }

    /// Returns once no committed step is being applied (for `stop()`).
    func finishApplying() async {
        guard applying else { return }
        await withCheckedContinuation { applyWaiters.append($0) }
    }

    private func handOver(_ batch: inout [OutgoingFrame]) async {
        guard !batch.isEmpty else { return }
        let frames = batch
        batch = []
        await transport.send(batch: frames)
    }
}
