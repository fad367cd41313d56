import ChatCore
import ChatCrypto
import Foundation

/// Key continuity: every identity key a peer shows is recorded in the
/// store's ledger (plan, commit, then memory, then events), a nickname
/// showing another key than the one it belongs to is reported as
/// `keyChanged` (also after a restart), `/verify` shows the safety number
/// and marks a key verified, and a DM to a person whose verified key
/// changed is held until the user confirms the new key (ChatNode+KeysHeld.swift).
extension ChatNode {
    /// Loads the ledger at start (before any peer links).
    func restoreKeys() async throws {
        let rows = try await store.keyLedger()
        keyContinuity.ledger = KeyLedger(rows: rows)
        for record in rows.keys { keyContinuity.numbers[record.key] = Self.number(of: record.key) }
        publishTrust()
        try await restoreHeld()
    }

    /// Records a peer's key under its nickname (a join or a rename: in
    /// memory now, on disk in the next batch, see ChatNode+KeysWrite.swift), then
    /// reports `event` (so front ends read the new trust with it), then a
    /// change of key, the first time this run it is seen.
    func noteKey(of peer: PeerInfo, reporting event: NodeEvent) async {
        guard let key = peer.identityKey, Self.number(of: key) == peer.number else {
            emit(event)
            return
        }
        let now = clock.nowMillis()
        await noteSighting(key: key, nickname: peer.nickname, now: now)
        publishTrust()
        emit(event)
        let trust = keyContinuity.ledger.trust(key: key, nickname: peer.nickname)
        guard trust.state == .changed, let previous = trust.previousKey, !keyContinuity.reported.contains(key) else { return }
        if keyContinuity.reported.count >= KeyLedger.capacity { keyContinuity.reported.removeAll() }
        keyContinuity.reported.insert(key)
        logger.warning("\(peer.nickname) (node \(peer.number)) shows a key other than the one its nickname belongs to")
        emit(.keyChanged(KeyChange(
            peer: peer, fingerprint: Self.fingerprint(of: key), previousFingerprint: Self.fingerprint(of: previous),
            previousFirstSeen: trust.previousFirstSeen, previousVerified: trust.previousVerified,
            previousNumber: Self.number(of: previous), previousNickname: keyContinuity.ledger.record(previous)?.nickname)))
    }

    /// The user talked with `number` (sent it a DM, accepted its request):
    /// its key becomes known, kept by the ledger for good.
    func noteTalkedWith(_ number: NodeNumber) async {
        guard let key = directory[number]?.identityKey ?? storedKey(of: number),
              keyContinuity.ledger.record(key)?.trust == .new else { return }
        await writeKeys { ledger in ledger.planTalkedWith(key: key) }
        publishTrust()
    }

    /// Each known node's trust, read without waiting for the node.
    public nonisolated func trust(of number: NodeNumber) -> PeerTrust? {
        trustBook.trust(of: number)
    }

    /// The nodes whose keys the user verified (the ✓ front ends draw).
    public nonisolated func verifiedNodes() -> Set<NodeNumber> {
        trustBook.verified
    }

    /// `/verify NAME`: the peer's key and the safety number; with
    /// `confirm`, marks the key verified (stored), pins the nickname to it,
    /// and sends the DMs held for its change.
    public func verify(_ name: String, confirm: Bool) async throws(NodeError) -> KeyVerification {
        let number: NodeNumber
        do { number = try lookUpAnyone(name) } catch {
            // A node the ledger holds, by number, also when it is gone.
            guard let raw = UInt64(name), let known = NodeNumber(rawValue: raw), storedKey(of: known) != nil else { throw error }
            number = known
        }
        guard let key = directory[number]?.identityKey ?? storedKey(of: number) else { throw .noKey(name) }
        let nickname = directory[number]?.nickname ?? keyContinuity.ledger.record(key)?.nickname ?? name
        if confirm {
            let now = clock.nowMillis()
            guard await writeKeys({ ledger in ledger.planVerify(key: key, nickname: nickname, now: now) }) else {
                throw .storage("could not store the verification")
            }
            publishTrust()
            keyContinuity.reported.remove(key)
        }
        let released = confirm ? await releaseHeld(to: number) : 0
        let own = authenticator?.authorKey
        return KeyVerification(
            number: number, nickname: nickname, key: key, fingerprint: Self.fingerprint(of: key),
            safetyNumber: own.flatMap { SafetyNumber.compute(encoded: $0, key) },
            trust: keyContinuity.ledger.trust(key: key, nickname: nickname), confirmed: confirm,
            released: released, held: keyContinuity.held[number]?.count ?? 0)
    }

    /// The key the ledger holds for `number`, when the peer is not linked.
    func storedKey(of number: NodeNumber) -> String? {
        keyContinuity.numbers.first { $0.value == number }?.key
    }

    /// Every ledger key's trust by its number, and linked peers' as they
    /// show now (a changed key is flagged only while it uses the name).
    func publishTrust() {
        var trust: [NodeNumber: PeerTrust] = [:]
        for (key, number) in keyContinuity.numbers {
            if let record = keyContinuity.ledger.record(key) { trust[number] = keyContinuity.ledger.trust(key: key, nickname: record.nickname) }
        }
        for peer in directory.peers.values {
            guard let key = peer.identityKey, keyContinuity.numbers[key] == peer.number || keyContinuity.ledger.record(key) == nil else { continue }
            trust[peer.number] = keyContinuity.ledger.trust(key: key, nickname: peer.nickname)
        }
        trustBook.publish(trust)
        core.ledgerTrust = trust
    }

    static func number(of key: String) -> NodeNumber? {
        guard let bytes = Data(base64Encoded: key), let publicKey = try? IdentityKey.Public(rawValue: Array(bytes)) else { return nil }
        return publicKey.nodeNumber
    }

    static func fingerprint(of key: String) -> String {
        guard let bytes = Data(base64Encoded: key), let publicKey = try? IdentityKey.Public(rawValue: Array(bytes)) else { return "?" }
        return publicKey.fingerprint
    }
}
