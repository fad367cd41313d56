import ChatCore

/// DMs held for a key change. A DM to a person whose verified key changed
/// is not sent: it is stored in its conversation with the delivery state
/// `held` (one commit, like any DM), so it survives a restart, and waits
/// until the user confirms the new key (`/verify NAME ok`: it goes out as
/// a DM composed then would, keeping its id and time) or discards it
/// (`/discard NAME`: `discarded`, final, kept in the conversation).
extension ChatNode {
    /// The nickname to name in the `.held` error if a DM to `peer` must be
    /// held (the verified key its nickname belongs to is not the key it
    /// shows), nil if it may go. Throws when it may neither go nor wait.
    func holdReason(for peer: NodeNumber) throws(NodeError) -> String? {
        // Not linked: the ledger's key and last nickname, so a DM queued
        // for a changed key's next link is held all the same.
        guard let key = directory[peer]?.identityKey ?? storedKey(of: peer),
              let nickname = directory[peer]?.nickname ?? keyContinuity.ledger.record(key)?.nickname else { return nil }
        let trust = keyContinuity.ledger.trust(key: key, nickname: nickname)
        guard trust.state == .changed, trust.previousVerified else { return nil }
        let count = (keyContinuity.held[peer]?.count ?? 0) + (keyContinuity.holding[peer] ?? 0)
        let total = keyContinuity.held.values.reduce(0) { $0 + $1.count } + keyContinuity.holding.values.reduce(0, +)
        // Released in order on confirmation: the first opens the DM request,
        // so without an accepted conversation only one can wait, as when sending.
        if count >= 1, router.directChat.state(with: peer) != .accepted {
            throw .notHeld(nickname: nickname, reason: "one DM already waits, and it must open the conversation first")
        }
        if count >= KeyContinuity.heldPerPeer {
            throw .notHeld(nickname: nickname, reason: "\(count) DMs to \(nickname) already wait, the most one person can have held")
        }
        if total >= KeyContinuity.heldTotal {
            throw .notHeld(nickname: nickname, reason: "\(total) DMs already wait for key changes, the most this node holds")
        }
        return nickname
    }

    /// Stores a DM as held (`holdReason` said so) and throws `.held` once
    /// it is stored.
    func hold(_ text: String, to peer: NodeNumber, nickname: String, automatic: Bool) async throws(NodeError) -> Never {
        keyContinuity.holding[peer, default: 0] += 1
        let result = await submit(.holdDirect(text, to: peer, automatic: automatic))
        keyContinuity.holding[peer]? -= 1
        if keyContinuity.holding[peer] == 0 { keyContinuity.holding[peer] = nil }
        let message = try result.get()!
        throw .held(nickname: nickname, count: keyContinuity.held[peer]?.count ?? 1, id: message.id)
    }

    /// `/discard NAME`: the DMs held for `name`'s key change are not sent,
    /// ever (`discarded`). Returns how many.
    public func discardHeld(_ name: String) async throws(NodeError) -> Int {
        let peer = try lookUpHeld(name)
        guard let held = keyContinuity.held[peer], !held.isEmpty else { return 0 }
        _ = try await submit(.discardHeld(held.map(\.id), to: peer)).get()
        return held.count - (keyContinuity.held[peer]?.count ?? 0)
    }

    /// Sends the DMs held for `peer` (its key was just confirmed); returns
    /// how many went. Any the DM flow refuses stay held.
    func releaseHeld(to peer: NodeNumber) async -> Int {
        guard let held = keyContinuity.held[peer], !held.isEmpty else { return 0 }
        guard case .success = await submit(.releaseHeld(held, to: peer)) else { return 0 }
        return held.count - (keyContinuity.held[peer]?.count ?? 0)
    }

    /// The DMs held for a key change, per peer (oldest first).
    public func heldDMs() -> [NodeNumber: [Message]] { keyContinuity.held }

    /// Brings back the held DMs the store kept (at start).
    func restoreHeld() async throws {
        for message in try await store.held() where message.senderNumber == identity.number {
            guard let peer = message.room.peer else { continue }
            keyContinuity.held[peer, default: []].append(message)
        }
        let count = keyContinuity.held.values.reduce(0) { $0 + $1.count }
        if count > 0 { logger.info("\(count) DMs held for a key change from the last run: /verify NAME ok sends them, /discard NAME drops them") }
    }

    func changeHeld(_ peer: NodeNumber, adding: [Message], removing: [MessageID]) {
        var held = keyContinuity.held[peer] ?? []
        let gone = Set(removing)
        held.removeAll { gone.contains($0.id) }
        held += adding
        keyContinuity.held[peer] = held.isEmpty ? nil : held
    }

    /// A peer with held DMs, by name, or by number when it is gone.
    private func lookUpHeld(_ name: String) throws(NodeError) -> NodeNumber {
        do { return try lookUpAnyone(name) } catch {
            guard let raw = UInt64(name), let number = NodeNumber(rawValue: raw), keyContinuity.held[number] != nil else { throw error }
            return number
        }
    }
}
