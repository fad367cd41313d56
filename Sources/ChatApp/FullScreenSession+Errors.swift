import ChatCore
import ChatNode
import ChatScreen

/// Errors as the full-screen client says them: peers by name, never by
/// their 16-digit number (`waiting for bob to accept your DM request`).
extension FullScreenSession {
    func describe(_ error: any Error) async -> String {
        guard let error = error as? NodeError else { return "error: \(error)" }
        guard case .chat(let chat) = error else { return "error: \(error.description)" }
        switch chat {
        case .awaitingAcceptance(let peer): return "waiting for \(await name(of: peer)) to accept your DM request"
        case .declinedByPeer(let peer): return "\(await name(of: peer)) declined your DM request"
        case .noPendingRequest(let peer): return "no DM request from \(await name(of: peer)) to answer"
        case .dmNotAccepted(let peer): return "no accepted conversation with \(await name(of: peer))"
        default: return "error: \(chat.description)"
        }
    }

    /// A peer's name as the list shows it: linked peers, then the room's
    /// title, then its `#tag`. Sanitized by the reducer with the notice.
    func name(of peer: NodeNumber) async -> String {
        if let info = await node.peers().first(where: { $0.number == peer }) {
            return node.displayName(for: peer, nickname: info.nickname)
        }
        if let title = state.side[.direct(peer)]?.title, !title.isEmpty, title != "\(peer)", title != String(peer.rawValue) {
            return title
        }
        return "#" + peer.shortTag
    }
}
