import ChatCore

/// Which stored public messages of others had their signature checked
/// before this node relayed them, and with what outcome.
///
/// A live message from its author is stored on the strength of the link
/// (the Noise handshake proved the author), so its signature was never
/// verified; a relayer must verify it before passing it on. Both sets are
/// bounded (`NodeLimits.relayCheckMemory`): a forgotten id costs one more
/// verification, never a wrong relay. Not persisted: after a restart each
/// is verified again on first relay.
struct RelayChecks: Sendable {
    private(set) var verified = RecentIDs(capacity: NodeLimits.relayCheckMemory)
    private(set) var refused = RecentIDs(capacity: NodeLimits.relayCheckMemory)

    /// Whether `id` still needs a verification before it may be relayed.
    func needsCheck(_ id: MessageID) -> Bool { !verified.contains(id) && !refused.contains(id) }

    mutating func passed(_ id: MessageID) { verified.insert(id) }

    /// Records a failed check; false if it was already known (so it is
    /// counted and logged once while remembered).
    @discardableResult
    mutating func failed(_ id: MessageID) -> Bool { refused.insert(id) }
}
