import ChatCore
import ChatStore

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

    public var description: String {
        switch self {
        case .chat(let error): error.description
        case .peer(let error): error.description
        case .invalidName(let error): error.description
        case .storage(let reason): "history store failed: \(reason)"
        case .notRunning: "the node is not running"
        }
    }

    static func store(_ error: StoreError) -> NodeError { .storage(String(describing: error)) }
}
