import ChatCore

/// Why a node command was refused. Shown to the user as is.
public enum NodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The chat rules refused it (text limits, DM flow).
    case chat(ChatError)
    /// The name did not resolve to exactly one peer.
    case peer(PeerLookupError)
    /// The peer has no link right now.
    case peerUnreachable(String)
    case invalidName(NameValidationError)
    case notRunning

    public var description: String {
        switch self {
        case .chat(let error): error.description
        case .peer(let error): error.description
        case .peerUnreachable(let name): "\(name) is not connected"
        case .invalidName(let error): error.description
        case .notRunning: "the node is not running"
        }
    }
}
