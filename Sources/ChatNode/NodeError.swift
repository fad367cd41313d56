import ChatCore

/// Why a node command was refused. Shown to the user as is.
public enum NodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The chat rules refused it (text limits, DM flow).
    case chat(ChatError)
    /// The name did not resolve to exactly one peer.
    case peer(PeerLookupError)
    case invalidName(NameValidationError)
    /// The history store failed; nothing was sent.
    case storage(String)
    case notRunning
    /// A DM held, not sent: the verified key this nickname belongs to is not
    /// the one the peer shows now. It is stored as `id` in the conversation
    /// (delivery `held`); `count` DMs wait for `/verify NAME ok` or `/discard NAME`.
    case held(nickname: String, count: Int, id: MessageID)
    /// A DM to a changed verified key, neither sent nor held: `reason` says
    /// which limit (one before the conversation opens, 32 per person, 256 in all).
    case notHeld(nickname: String, reason: String)
    /// `/verify`: no identity key is known for this peer.
    case noKey(String)
    /// A file transfer command was refused (the reason, safe to show).
    case file(String)

    public var description: String {
        switch self {
        case .chat(let error): error.description
        case .peer(let error): error.description
        case .invalidName(let error): error.description
        case .storage(let reason): "history store failed: \(reason)"
        case .notRunning: "the node is not running"
        case .held(let nickname, let count, _):
            "held, not sent: \(nickname)'s key is not the one you verified. It may be someone else. Compare safety numbers with /verify \(nickname), then /verify \(nickname) ok sends the \(count) held DM\(count == 1 ? "" : "s") (/discard \(nickname) drops them)"
        case .notHeld(let nickname, let reason):
            "not sent and not held: \(reason). \(nickname)'s key is not the one you verified: /verify \(nickname) ok sends the held DMs, /discard \(nickname) drops them"
        case .noKey(let name): "no identity key is known for \(name)"
        case .file(let reason): reason
        }
    }

    static func store(_ error: StoreError) -> NodeError { .storage(String(describing: error)) }
}
