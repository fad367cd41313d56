import Foundation
import ChatCore

/// Room for peers' messages when the files are full: the pool keeps a
/// fair part of what is stored for others, as a fraction, not in bytes
/// (a row takes about three times its counted bytes in pages, for every
/// class alike, so the overhead cancels out).
///
/// "Others": the pool and the rows of known and verified peers, not the
/// user's own nor their conversations'. The pool's part is
/// 1/`ChatLimits.peerShareOfHistoryCap` of it. A commit refused by a full
/// disk or cap (`makeRoom`) ages out, in the commit's own transaction
/// before its rows go in:
///
/// - for the pool (unknown authors): while the pool, with the commit's
///   rows, holds less than its part, known peers' oldest rows (then
///   verified peers', if known ones do not suffice), never so many that
///   they keep less than (n-1)/n of others' storage; then the pool's own
///   oldest. So a flood of fresh keys is always stored and can shrink
///   known peers' history to (n-1)/n of others' storage, never further
///   (less one commit's rows, if they alone are more than the pool's part);
/// - for a known peer: the pool beyond its part, then known peers' oldest,
///   then the rest of the pool; never a verified peer's;
/// - for a verified peer: the same, with verified peers' oldest after
///   known ones.
///
/// So nothing is refused for lack of room while a row of a lower or
/// equal class may go, and each class keeps its newest. A peer's commit
/// short of room (`reclaimBeforeCommit`) reclaims by the same rules, so
/// the pool does not drain below its part while known peers' pages fill.
extension ChatStore {
    /// Ages out at least `target` counted bytes as the commit's `rank`
    /// allows (not `.own`: `AgeingOrder`). `incoming`: the commit's
    /// counted bytes. Returns what it freed.
    @discardableResult
    func makeFairRoom(
        target: Int, for order: AgeingOrder, incoming: Int, before: Int64, into result: inout StoreCommitResult
    ) throws(StoreError) -> Int {
        guard target > 0 else { return 0 }
        let pool = try poolUsage().bytes
        let kept = try keptForPeers(order, pool: pool)
        let rest = ChatLimits.peerShareOfHistoryCap - 1
        var freed = 0
        switch order.rank {
        case .unknown:
            // Known peers keep at least `rest` times the pool with this
            // commit's rows; and if the pool has nothing left to age (this
            // commit's rows alone are more than its part: a batch under a
            // small cap), `rest` times the pool as it was.
            let spare = max(0, kept - rest * (pool + incoming))
            var fromKnown = try ageOut(for: order, tiers: 2, target: min(target, spare), atMost: spare, before: before, into: &result)
            freed += fromKnown
            freed += try ageOutPool(budget: nil, reclaim: target - freed, before: before, into: &result)
            let more = max(0, kept - rest * pool) - fromKnown
            fromKnown = try ageOut(for: order, tiers: 2, target: min(target - freed, more), atMost: more, before: before, into: &result)
            freed += fromKnown
        case .known, .verified:
            // The pool keeps at least 1/`rest` of what known peers keep (with this commit's).
            let excess = max(0, pool - (kept + incoming) / rest)
            freed += try ageOutPool(budget: nil, reclaim: min(target, excess), before: before, into: &result)
            let tiers = order.rank == .verified ? 2 : 1
            freed += try ageOut(for: order, tiers: tiers, target: target - freed, before: before, into: &result)
            freed += try ageOutPool(budget: nil, reclaim: target - freed, before: before, into: &result)
        case .own:
            break
        }
        return freed
    }

    /// Counted bytes stored for known and verified peers: all but the
    /// user's own, the pool's and the user's conversations'.
    func keptForPeers(_ order: AgeingOrder, pool: Int) throws(StoreError) -> Int {
        let database = try db()
        let me = Int64(bitPattern: localNumber.rawValue)
        let others = try database.withStatement(SQL.othersBytes) { statement throws(StoreError) in
            try statement.bind(me, at: 1)
            return try statement.step() ? Int(statement.int64(0)) : 0
        }
        var conversations = 0
        if !order.conversations.isEmpty {
            let rooms = order.conversations.map(\.description).sorted()
            guard let data = try? JSONEncoder().encode(rooms), let json = String(data: data, encoding: .utf8) else {
                throw .malformedRow(table: "rooms", reason: "the conversations could not be listed")
            }
            conversations = try database.withStatement(SQL.conversationsBytes) { statement throws(StoreError) in
                try statement.bind(json, at: 1)
                try statement.bind(me, at: 2)
                return try statement.step() ? Int(statement.int64(0)) : 0
            }
        }
        return max(0, others - pool - conversations)
    }
}
