import ChatCore
import ChatNode
import ChatStore
import Testing

/// The key ledger as a pure value: pins by folded nickname, changes,
/// verification moving a pin, and every bound a key-minting peer meets.
@Suite struct KeyLedgerTests {
    static func key(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "k", count: 43 - digits.count) + digits + "="
    }

    static func seen(_ key: String, as nickname: String, at now: Int64, in ledger: inout KeyLedger) {
        ledger.apply(ledger.planSighting(key: key, nickname: nickname, now: now))
    }

    @Test func aNicknameBelongsToTheFirstKeySeenUsingIt() {
        var ledger = KeyLedger()
        Self.seen(Self.key(1), as: "alice", at: 1_000, in: &ledger)
        #expect(ledger.trust(key: Self.key(1), nickname: "alice") == PeerTrust(state: .new, firstSeen: 1_000))
        Self.seen(Self.key(2), as: "alice", at: 2_000, in: &ledger)
        let trust = ledger.trust(key: Self.key(2), nickname: "alice")
        #expect(trust.state == .changed && trust.previousKey == Self.key(1) && trust.previousFirstSeen == 1_000 && !trust.previousVerified)
        // Seen again, still changed: the pin does not move by itself.
        Self.seen(Self.key(2), as: "alice", at: 3_000, in: &ledger)
        #expect(ledger.pin(for: "alice")?.key == Self.key(1))
        // Folded: case, width and a Cyrillic look-alike are the same name.
        for lookAlike in ["ALICE", "ａｌｉｃｅ", "\u{0430}lice"] {
            #expect(ledger.trust(key: Self.key(3), nickname: lookAlike).state == .changed, "\(lookAlike)")
        }
        #expect(ledger.trust(key: Self.key(1), nickname: "alice").state == .new)
    }

    @Test func verifyingMovesThePinAndTheOldKeyIsNowTheChangedOne() {
        var ledger = KeyLedger()
        Self.seen(Self.key(1), as: "alice", at: 1_000, in: &ledger)
        Self.seen(Self.key(2), as: "alice", at: 2_000, in: &ledger)
        ledger.apply(ledger.planVerify(key: Self.key(2), nickname: "alice", now: 5_000))
        #expect(ledger.trust(key: Self.key(2), nickname: "alice") == PeerTrust(state: .verified, firstSeen: 2_000, verifiedAt: 5_000))
        let old = ledger.trust(key: Self.key(1), nickname: "alice")
        #expect(old.state == .changed && old.previousKey == Self.key(2) && old.previousVerified)
    }

    @Test func talkingOrDaysMakeAKeyKnown() {
        var ledger = KeyLedger()
        Self.seen(Self.key(1), as: "alice", at: 0, in: &ledger)
        #expect(ledger.planTalkedWith(key: Self.key(9)) == nil, "an unknown key")
        ledger.apply(ledger.planTalkedWith(key: Self.key(1))!)
        #expect(ledger.record(Self.key(1))?.trust == .known)
        #expect(ledger.planTalkedWith(key: Self.key(1)) == nil, "already known")
        Self.seen(Self.key(2), as: "bob", at: 0, in: &ledger)
        Self.seen(Self.key(2), as: "bob", at: KeyLedger.knownAfter - 1, in: &ledger)
        #expect(ledger.record(Self.key(2))?.trust == .new)
        Self.seen(Self.key(2), as: "bob", at: KeyLedger.knownAfter, in: &ledger)
        #expect(ledger.record(Self.key(2))?.trust == .known)
    }

    @Test func aKeySeenAgainSoonWithNothingNewCostsNoWrite() {
        var ledger = KeyLedger()
        Self.seen(Self.key(1), as: "alice", at: 0, in: &ledger)
        #expect(ledger.planSighting(key: Self.key(1), nickname: "alice", now: KeyLedger.lastSeenResolution - 1).isEmpty)
        #expect(ledger.planSighting(key: Self.key(1), nickname: "alice", now: KeyLedger.lastSeenResolution).keys.first?.lastSeen
                == KeyLedger.lastSeenResolution)
        // A new nickname is written at once.
        let renamed = ledger.planSighting(key: Self.key(1), nickname: "alicia", now: 5)
        #expect(renamed.keys.first?.nickname == "alicia" && renamed.pins.map(\.name) == ["alicia"])
    }

    @Test func fullLedgerEvictsTheOldestNewKeyNeverAKnownOrVerifiedOne() {
        var ledger = KeyLedger(capacity: 3)
        Self.seen(Self.key(1), as: "alice", at: 1, in: &ledger)
        Self.seen(Self.key(2), as: "bob", at: 2, in: &ledger)
        Self.seen(Self.key(3), as: "carol", at: 3, in: &ledger)
        ledger.apply(ledger.planTalkedWith(key: Self.key(1))!)
        // Full: the oldest new one (bob's) goes, with its pin.
        Self.seen(Self.key(4), as: "dave", at: 4, in: &ledger)
        #expect(Set(ledger.keys.keys) == [Self.key(1), Self.key(3), Self.key(4)])
        #expect(ledger.pin(for: "bob") == nil)
        ledger.apply(ledger.planVerify(key: Self.key(3), nickname: "carol", now: 5))
        ledger.apply(ledger.planTalkedWith(key: Self.key(4))!)
        // Nothing left to evict: a flood of fresh keys changes nothing.
        for n in 10..<1_000 {
            let changes = ledger.planSighting(key: Self.key(n), nickname: "alice", now: Int64(n))
            #expect(changes.isEmpty)
            ledger.apply(changes)
        }
        #expect(ledger.count == 3)
        #expect(ledger.pin(for: "alice")?.key == Self.key(1))
        #expect(ledger.trust(key: Self.key(999), nickname: "alice").state == .changed, "still flagged, from the pin")
        #expect(ledger.trust(key: Self.key(999), nickname: "mallory") == PeerTrust(state: .new))
    }

    @Test func aKeyRenamingThroughManyNamesHoldsOnlyItsNewestPins() {
        var ledger = KeyLedger()
        for n in 0..<20 { Self.seen(Self.key(1), as: "name\(n)", at: Int64(n), in: &ledger) }
        #expect(ledger.pins.count == KeyLedger.pinsPerKey)
        #expect(ledger.pin(for: "name19")?.key == Self.key(1))
        #expect(ledger.pin(for: "name0") == nil)
        // Restored from rows, the same.
        let rows = KeyLedgerRows(keys: Array(ledger.keys.values), pins: Array(ledger.pins.values))
        #expect(KeyLedger(rows: rows).pins == ledger.pins)
    }
}
