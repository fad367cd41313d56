import Foundation
import ChatCore

/// Room for the user's own messages when the files are full
/// (`AgeingOrder`): after the pool, the oldest rows of the other tiers, in
/// the commit's own transaction, before its rows are inserted. Rows leave
/// their rooms and authors' totals as the pool's do; read or unread alike
/// (a row kept because it is unread would let a few known peers hold the
/// cap against the user's own sends for ever).
extension ChatStore {
    /// One tier's candidates: arrival number and counted bytes, oldest first.
    private typealias Tier = [(seq: Int64, bytes: Int)]

    /// Ages out at least `target` counted bytes (if the tiers hold that
    /// much) of rows stored before arrival `before`, from the first
    /// `tiers` tiers (known peers', verified peers', the user's own
    /// public), never more than `atMost`. Returns what it freed.
    @discardableResult
    func ageOut(
        for order: AgeingOrder, tiers allowed: Int = 3, target: Int, atMost: Int = .max, before: Int64,
        into result: inout StoreCommitResult
    ) throws(StoreError) -> Int {
        let chosen = try tierCandidates(for: order, tiers: allowed, target: target, atMost: atMost, before: before)
        guard !chosen.seqs.isEmpty else { return 0 }
        try deleteAged(seqs: chosen.seqs, into: &result)
        logAgedOut(chosen, for: order)
        return chosen.bytes
    }

    /// What `ageOut` would delete: arrival numbers, counted bytes, and how
    /// many rows of each tier.
    func tierCandidates(
        for order: AgeingOrder, tiers allowed: Int = 3, target: Int, atMost: Int = .max, before: Int64
    ) throws(StoreError) -> TierCandidates {
        guard target > 0 else { return TierCandidates() }
        let database = try db()
        let me = Int64(bitPattern: localNumber.rawValue)
        let verified = Set(order.verified.map { Int64(bitPattern: $0.rawValue) })
        let kept = Set(order.conversations.map(\.description))
        let publicRoom = RoomID.publicRoom.description
        // Known peers', verified peers', the user's own public.
        var tiers: [Tier] = [[], [], []]
        var knownBytes = 0
        try database.withStatement(SQL.unpooledOldest) { statement throws(StoreError) in
            try statement.bind(before, at: 1)
            while knownBytes < target, try statement.step() {
                let seq = statement.int64(0), sender = statement.int64(2), bytes = Int(statement.int64(3))
                let room = statement.string(1) ?? ""
                if sender == me {
                    if room == publicRoom { tiers[2].append((seq, bytes)) }
                } else if !kept.contains(room) {
                    if verified.contains(sender) {
                        tiers[1].append((seq, bytes))
                    } else {
                        tiers[0].append((seq, bytes))
                        knownBytes += bytes
                    }
                }
            }
        }
        var chosen: [Int64] = []
        var freed = 0
        var taken = [0, 0, 0]
        for (index, tier) in tiers.prefix(allowed).enumerated() {
            for row in tier {
                guard freed < target, row.bytes <= atMost - freed else { break }
                chosen.append(row.seq)
                freed += row.bytes
                taken[index] += 1
            }
        }
        return TierCandidates(seqs: chosen, bytes: freed, taken: taken)
    }

    func logAgedOut(_ chosen: TierCandidates, for order: AgeingOrder, pool: Int = 0) {
        let whose = order.rank == .own ? "the user's own messages" : "\(order.rank) peers' messages"
        let taken = chosen.taken
        logger.notice("to store \(whose), aged out \(pool) messages of the pool, \(taken[0]) of known peers, \(taken[1]) of verified peers and \(taken[2]) of the user's own public ones (\(chosen.bytes) bytes)")
    }
}

/// Rows `tierCandidates` chose: arrival numbers, counted bytes, and how
/// many of known peers', verified peers' and the user's own public.
struct TierCandidates {
    var seqs: [Int64] = []
    var bytes = 0
    var taken = [0, 0, 0]
}
