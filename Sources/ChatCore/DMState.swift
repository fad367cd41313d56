/// The DM request flow for one peer, from the local node's side.
///
/// A first DM to a peer is a request; the peer accepts or declines. A peer
/// who declined cannot be sent more until they ask; a peer I declined cannot
/// keep sending. Pure: `transition(on:)` returns the next state and what to
/// do, and every pair is tested.
public enum DMState: String, Hashable, Sendable, Codable, CaseIterable {
    /// No conversation yet.
    case none
    /// I asked; waiting for an answer.
    case outgoingRequest
    /// They asked; waiting for me.
    case incomingRequest
    case accepted
    /// They declined my request.
    case declinedByPeer
    /// I declined their request (or closed the conversation).
    case declinedByMe
}

/// Inputs to the DM state machine.
public enum DMInput: Hashable, Sendable, CaseIterable {
    case localSend, localAccept, localDecline
    case receivedRequest, receivedAccept, receivedDecline, receivedMessage
}

/// What the node must do on a transition.
public enum DMAction: Hashable, Sendable {
    /// Send the text as a `dmRequest`.
    case sendRequest
    /// Send the text as a `directMessage`.
    case sendMessage
    /// Replying to a request accepts it: send `dmAccept`, then the text.
    case sendAcceptAndMessage
    case sendAccept
    case sendDecline
    /// Keep and show the received text.
    case deliver
    /// Keep and show it, and answer `dmAccept` (crossing requests, or a peer
    /// that lost its state asking again).
    case deliverAndAccept
    /// Nothing to do (a stale or repeated answer).
    case ignore
}

public struct DMTransition: Hashable, Sendable {
    public var state: DMState
    public var action: DMAction
}

extension DMState {
    /// The next state and action for `input`, or the error to report.
    public func transition(on input: DMInput, peer: NodeNumber) throws(ChatError) -> DMTransition {
        func go(_ state: DMState, _ action: DMAction) -> DMTransition { DMTransition(state: state, action: action) }
        switch (self, input) {
        // Sending.
        case (.none, .localSend), (.declinedByMe, .localSend): return go(.outgoingRequest, .sendRequest)
        case (.outgoingRequest, .localSend): throw .awaitingAcceptance(peer: peer)
        case (.incomingRequest, .localSend): return go(.accepted, .sendAcceptAndMessage)
        case (.accepted, .localSend): return go(.accepted, .sendMessage)
        case (.declinedByPeer, .localSend): throw .declinedByPeer(peer: peer)

        // Answering.
        case (.incomingRequest, .localAccept): return go(.accepted, .sendAccept)
        case (.accepted, .localAccept): return go(.accepted, .ignore)
        case (_, .localAccept): throw .noPendingRequest(peer: peer)
        case (.incomingRequest, .localDecline), (.accepted, .localDecline): return go(.declinedByMe, .sendDecline)
        case (_, .localDecline): throw .noPendingRequest(peer: peer)

        // Their request.
        case (.none, .receivedRequest), (.declinedByPeer, .receivedRequest), (.incomingRequest, .receivedRequest):
            return go(.incomingRequest, .deliver)
        case (.outgoingRequest, .receivedRequest), (.accepted, .receivedRequest):
            return go(.accepted, .deliverAndAccept)
        case (.declinedByMe, .receivedRequest): throw .dmNotAccepted(peer: peer)

        // Their answer.
        case (.outgoingRequest, .receivedAccept): return go(.accepted, .ignore)
        case (_, .receivedAccept): return go(self, .ignore)
        case (.outgoingRequest, .receivedDecline), (.accepted, .receivedDecline): return go(.declinedByPeer, .ignore)
        case (_, .receivedDecline): return go(self, .ignore)

        // Their message. A reply to my request implies acceptance. A DM
        // out of nowhere (we lost our state, e.g. an in-memory node that
        // restarted while the peer's outbox retried) asks like a request.
        case (.accepted, .receivedMessage), (.outgoingRequest, .receivedMessage): return go(.accepted, .deliver)
        case (.none, .receivedMessage), (.incomingRequest, .receivedMessage): return go(.incomingRequest, .deliver)
        case (_, .receivedMessage): throw .dmNotAccepted(peer: peer)
        }
    }
}
