import ChatCore
import TestSupport
import Testing

/// The DM request state machine, every (state, input) pair against a table
/// written out here from the rules, not derived from the code:
///
/// - sending: a first DM is a request; a second one waits for the answer;
///   replying to their request accepts it; a peer who declined cannot be
///   sent more; after I declined, writing to them asks anew.
/// - answering: only an open request (or an accepted conversation, which
///   decline closes) can be answered.
/// - their request: opens, repeats, or (crossing mine, or after they lost
///   state) accepts at once; a peer I declined cannot keep asking.
/// - their answer: only my open request (or, for decline, an open
///   conversation) is changed by it; anything else is stale and ignored.
/// - their message: only in an accepted conversation, or as the reply to my
///   request (which implies acceptance).
@Suite struct DMStateTests {
    enum Outcome: Hashable, Sendable, CustomStringConvertible {
        case to(DMState, DMAction)
        case fails(ChatError)

        var description: String {
            switch self {
            case .to(let state, let action): "→ \(state), \(action)"
            case .fails(let error): "throws \(error)"
            }
        }
    }

    static let peer = Fixtures.node(42)

    static let table: [DMState: [DMInput: Outcome]] = [
        .none: [
            .localSend: .to(.outgoingRequest, .sendRequest),
            .localAccept: .fails(.noPendingRequest(peer: peer)),
            .localDecline: .fails(.noPendingRequest(peer: peer)),
            .receivedRequest: .to(.incomingRequest, .deliver),
            .receivedAccept: .to(.none, .ignore),
            .receivedDecline: .to(.none, .ignore),
            .receivedMessage: .to(.incomingRequest, .deliver),  // asks like a request (peer kept state we lost)
        ],
        .outgoingRequest: [
            .localSend: .fails(.awaitingAcceptance(peer: peer)),
            .localAccept: .fails(.noPendingRequest(peer: peer)),
            .localDecline: .fails(.noPendingRequest(peer: peer)),
            .receivedRequest: .to(.accepted, .deliverAndAccept),  // crossing requests
            .receivedAccept: .to(.accepted, .ignore),
            .receivedDecline: .to(.declinedByPeer, .ignore),
            .receivedMessage: .to(.accepted, .deliver),  // a reply implies acceptance
        ],
        .incomingRequest: [
            .localSend: .to(.accepted, .sendAcceptAndMessage),
            .localAccept: .to(.accepted, .sendAccept),
            .localDecline: .to(.declinedByMe, .sendDecline),
            .receivedRequest: .to(.incomingRequest, .deliver),
            .receivedAccept: .to(.incomingRequest, .ignore),
            .receivedDecline: .to(.incomingRequest, .ignore),
            .receivedMessage: .to(.incomingRequest, .deliver),  // asks like a request (peer kept state we lost)
        ],
        .accepted: [
            .localSend: .to(.accepted, .sendMessage),
            .localAccept: .to(.accepted, .ignore),
            .localDecline: .to(.declinedByMe, .sendDecline),  // closing the conversation
            .receivedRequest: .to(.accepted, .deliverAndAccept),  // peer lost its state
            .receivedAccept: .to(.accepted, .ignore),
            .receivedDecline: .to(.declinedByPeer, .ignore),
            .receivedMessage: .to(.accepted, .deliver),
        ],
        .declinedByPeer: [
            .localSend: .fails(.declinedByPeer(peer: peer)),
            .localAccept: .fails(.noPendingRequest(peer: peer)),
            .localDecline: .fails(.noPendingRequest(peer: peer)),
            .receivedRequest: .to(.incomingRequest, .deliver),  // they ask after all
            .receivedAccept: .to(.declinedByPeer, .ignore),
            .receivedDecline: .to(.declinedByPeer, .ignore),
            .receivedMessage: .fails(.dmNotAccepted(peer: peer)),
        ],
        .declinedByMe: [
            .localSend: .to(.outgoingRequest, .sendRequest),  // I change my mind: ask them
            .localAccept: .fails(.noPendingRequest(peer: peer)),
            .localDecline: .fails(.noPendingRequest(peer: peer)),
            .receivedRequest: .fails(.dmNotAccepted(peer: peer)),
            .receivedAccept: .to(.declinedByMe, .ignore),
            .receivedDecline: .to(.declinedByMe, .ignore),
            .receivedMessage: .fails(.dmNotAccepted(peer: peer)),
        ],
    ]

    @Test func tableCoversEveryPair() {
        #expect(DMState.allCases.count == 6)
        #expect(DMInput.allCases.count == 7)
        for state in DMState.allCases {
            #expect(Set(Self.table[state]?.keys.map { $0 } ?? []) == Set(DMInput.allCases), "row \(state)")
        }
    }

    @Test(arguments: DMState.allCases, DMInput.allCases)
    func transition(from state: DMState, on input: DMInput) throws {
        let expected = try #require(Self.table[state]?[input])
        let actual: Outcome
        do {
            let step = try state.transition(on: input, peer: Self.peer)
            actual = .to(step.state, step.action)
        } catch {
            actual = .fails(error)
        }
        #expect(actual == expected, "\(state) on \(input)")
    }

    @Test func errorsNameThePeer() {
        let other = Fixtures.node(7)
        #expect(throws: ChatError.declinedByPeer(peer: other)) {
            try DMState.declinedByPeer.transition(on: .localSend, peer: other)
        }
    }

    @Test func stateStringsAreStable() {
        // The store and --json carry these names.
        #expect(DMState.allCases.map(\.rawValue) ==
                ["none", "outgoingRequest", "incomingRequest", "accepted", "declinedByPeer", "declinedByMe"])
    }
}
