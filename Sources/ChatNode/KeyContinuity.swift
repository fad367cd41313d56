import ChatCore

/// The node's key continuity state: the ledger as committed, and what this
/// run has said and held.
struct KeyContinuity: Sendable {
    var ledger = KeyLedger()
    /// Each ledger key's node number (derived from the key).
    var numbers: [String: NodeNumber] = [:]
    /// Keys whose change was reported this run.
    var reported: Set<String> = []
    /// DMs held for a key change, as stored (ChatNode+KeysHeld.swift).
    var held: [NodeNumber: [Message]] = [:]
    /// Holds submitted and not yet committed, per peer (counted against the caps).
    var holding: [NodeNumber: Int] = [:]
    /// Keys and pin names changed in memory by sightings and not yet
    /// written (ChatNode+KeysWrite.swift), and whether a write is timed.
    var dirtyKeys = Set<String>()
    var dirtyPins = Set<String>()
    var flushScheduled = false
    /// The last batch write failed (said once until one succeeds).
    var flushFailing = false
    /// A ledger write is under way; others wait (plan from what is committed).
    var writing = false
    var waiters: [CheckedContinuation<Void, Never>] = []

    /// Per peer and in all: what one user can pile up behind key changes.
    static let heldPerPeer = 32
    static let heldTotal = 256
}
