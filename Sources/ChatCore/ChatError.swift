/// Why the chat core refused something: a send the user asked for, or a
/// frame a peer sent. Every case names the rule that was broken.
public enum ChatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Text broke the 240-character rule (or was empty).
    case invalidText(TextValidationError)
    /// A frame's `senderNumber` is not the peer whose link it came on.
    case spoofedSender(claimed: NodeNumber, link: NodeNumber)
    /// A direct frame addressed to someone else (or to no one).
    case notForMe(target: NodeNumber?)
    /// A DM from a peer with no accepted conversation.
    case dmNotAccepted(peer: NodeNumber)
    /// A second DM while the first request is still unanswered.
    case awaitingAcceptance(peer: NodeNumber)
    /// The peer declined: no more DMs to them until they ask.
    case declinedByPeer(peer: NodeNumber)
    /// accept or decline with no request to answer.
    case noPendingRequest(peer: NodeNumber)
    /// A DM to oneself.
    case cannotMessageSelf
    /// A frame of a type this handler does not take.
    case unexpectedType(PayloadType)
    /// `/search` text that cannot be looked for (empty, too long).
    case invalidSearch(reason: String)

    public var description: String {
        switch self {
        case .invalidText(let error): error.description
        case .spoofedSender(let claimed, let link): "frame claims sender \(claimed) on the link of \(link)"
        case .notForMe(let target): "direct frame for \(target.map(String.init(describing:)) ?? "nobody")"
        case .dmNotAccepted(let peer): "DM from \(peer), who has no accepted conversation"
        case .awaitingAcceptance(let peer): "waiting for \(peer) to accept your DM request"
        case .declinedByPeer(let peer): "\(peer) declined your DM request"
        case .noPendingRequest(let peer): "no DM request from \(peer) to answer"
        case .cannotMessageSelf: "you cannot DM yourself"
        case .unexpectedType(let type): "unexpected frame type \(type)"
        case .invalidSearch(let reason): reason
        }
    }
}
