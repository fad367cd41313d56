import ChatCore

/// A DM held because its peer's verified key changed (`ChatNode+Keys.swift`).
struct HeldDM: Hashable, Sendable {
    var text: String
    var automatic: Bool
}

/// The node's key continuity state: the ledger as committed, and what this
/// run has said and held.
struct KeyContinuity: Sendable {
    var ledger = KeyLedger()
    /// Each ledger key's node number (derived from the key).
    var numbers: [String: NodeNumber] = [:]
    /// Keys whose change was reported this run.
    var reported: Set<String> = []
    var held: [NodeNumber: [HeldDM]] = [:]
    /// A ledger write is under way; others wait (plan from what is committed).
    var writing = false
    var waiters: [CheckedContinuation<Void, Never>] = []

    /// Per peer and in all: a held DM waits in memory only.
    static let heldPerPeer = 32
    static let heldTotal = 256
}
