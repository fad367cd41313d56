import ChatCore

/// A relayer must verify before relaying: a public message stored live
/// from its author was admitted on the strength of the author's link, so
/// its signature was never checked here. Before such a message goes into
/// a catch-up reply its signature is verified (once per id while
/// remembered, `RelayChecks`), and one that fails is never relayed.
extension ChatNode {
    /// The ids among `messages` that may be relayed to `peer`: ours (we
    /// signed them), and others' whose signature verifies. The checks run
    /// off the node actor, so a page of them does not stall receiving.
    func relayable(_ messages: [Message], to peer: NodeNumber) async -> Set<MessageID> {
        let me = identity.number
        guard let authenticator else { return Set(messages.map(\.id)) }
        var allowed = Set<MessageID>()
        var toCheck: [Message] = []
        for message in messages {
            if message.senderNumber == me || relayChecks.verified.contains(message.id) {
                allowed.insert(message.id)
            } else if relayChecks.needsCheck(message.id) {
                toCheck.append(message)
            }
        }
        guard !toCheck.isEmpty else { return allowed }
        let frames = toCheck.map(Self.relayPayload(for:))
        let verdicts = await Task.detached { frames.map { authenticator.verify($0) } }.value
        var refusedNow = 0
        for (message, verdict) in zip(toCheck, verdicts) {
            if verdict.isValid {
                relayChecks.passed(message.id)
                allowed.insert(message.id)
            } else if relayChecks.failed(message.id) {
                counters.relayRefusals[verdict.rawValue, default: 0] += 1
                refusedNow += 1
            }
        }
        if refusedNow > 0 {
            logger.notice("catch-up for \(peer): \(refusedNow) stored public messages failed their signature check and are not relayed")
        }
        return allowed
    }
}
