import ChatCore
import Synchronization

/// Public messages whose signature the authenticators sharing this table
/// verified lately, so one is verified once: the overlay's transport
/// verifies a gossiped message before relaying it, and the node it hands
/// the very same frame to would verify it again before storing it
/// (`ChatNode.admitLive`).
///
/// Only this node's own successful checks enter (nothing a peer says
/// marks anything), and a hit needs the payload checked, every field
/// equal: a signature's validity is a function of the payload alone (the
/// key comes with it and must derive the sender's number), so a hit is the
/// verdict a check would give. That is also why one table may serve
/// several authenticators: whoever builds a node's transport and its
/// node makes one table and hands it to both (`LANChatApp`), so the
/// node's check of a frame its transport verified is a look-up. Not a
/// singleton: a table serves only what it was given to. Bounded: the
/// oldest is forgotten first, and a forgotten one is simply verified
/// again. Refusals are not kept (each is counted and logged where it
/// happens).
public final class VerifiedSignatures: Sendable {
    /// Payloads kept when a table is made without saying (`init()`).
    public static let defaultCapacity = 1_024

    private struct State {
        var payloads: [MessageID: P2PPayload] = [:]
        /// Insertion order, a ring: the slot `next` holds the oldest.
        var order: [MessageID?]
        var next = 0
        var hits = 0
    }

    private let state: Mutex<State>

    public init(capacity: Int = VerifiedSignatures.defaultCapacity) {
        state = Mutex(State(order: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Whether exactly `payload` passed a check here lately.
    func contains(_ payload: P2PPayload) -> Bool {
        state.withLock { state in
            guard state.payloads[payload.messageId] == payload else { return false }
            state.hits += 1
            return true
        }
    }

    /// `payload`'s signature verified here.
    func insert(_ payload: P2PPayload) {
        state.withLock { state in
            let id = payload.messageId
            if state.payloads.updateValue(payload, forKey: id) != nil { return }
            if let oldest = state.order[state.next] { state.payloads[oldest] = nil }
            state.order[state.next] = id
            state.next = (state.next + 1) % state.order.count
        }
    }

    /// Checks answered from the table (tests).
    public var hits: Int { state.withLock { $0.hits } }
    public var count: Int { state.withLock { $0.payloads.count } }
}
