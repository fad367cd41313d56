/// How far the user trusts an identity key (the key ledger, Schema+Keys.swift).
public enum TrustState: String, Hashable, Sendable, CaseIterable {
    /// Seen, nothing more: the first to go when the ledger is full.
    case new
    /// The user talked with it (a DM sent or accepted), or it was seen over
    /// days: kept, never evicted.
    case known
    /// The user compared safety numbers and said so (`/verify NAME ok`).
    case verified
}

/// One identity key the node has seen: a row of the `peer_keys` table.
public struct KeyRecord: Hashable, Sendable {
    /// The Ed25519 public key, base64 (as `identityKey` and `authorKey` carry it).
    public var key: String
    /// The nickname it used last.
    public var nickname: String
    /// ms since 1970, the node's clock.
    public var firstSeen: Int64
    public var lastSeen: Int64
    public var trust: TrustState
    public var verifiedAt: Int64?

    public init(key: String, nickname: String, firstSeen: Int64, lastSeen: Int64, trust: TrustState = .new, verifiedAt: Int64? = nil) {
        self.key = key
        self.nickname = nickname
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.trust = trust
        self.verifiedAt = verifiedAt
    }
}

/// Which key a nickname belongs to: a row of the `key_pins` table. `name`
/// is the nickname folded by `LookAlike.key` (NFKC, case, UTS #39
/// skeleton), so `alice`, `ALICE` and Cyrillic `аlice` share one pin.
public struct KeyPin: Hashable, Sendable {
    public var name: String
    public var key: String
    public var pinnedAt: Int64

    public init(name: String, key: String, pinnedAt: Int64) {
        self.name = name
        self.key = key
        self.pinnedAt = pinnedAt
    }
}

/// What the key ledger holds: every row of both tables, read at start.
public struct KeyLedgerRows: Hashable, Sendable {
    public var keys: [KeyRecord]
    public var pins: [KeyPin]

    public init(keys: [KeyRecord] = [], pins: [KeyPin] = []) {
        self.keys = keys
        self.pins = pins
    }
}

/// One write to the key ledger, committed in one transaction
/// (`ChatStoring.commitKeys`): removals first, then upserts.
public struct KeyChanges: Hashable, Sendable {
    /// Keys to insert or replace (the whole row).
    public var keys: [KeyRecord] = []
    /// Pins to insert or replace.
    public var pins: [KeyPin] = []
    /// Keys evicted; their pins go with them.
    public var removedKeys: [String] = []
    /// Pins dropped on their own (a key's oldest, past its share).
    public var removedPins: [String] = []

    public init() {}

    public var isEmpty: Bool { keys.isEmpty && pins.isEmpty && removedKeys.isEmpty && removedPins.isEmpty }

    /// The keys and pin names this change writes or removes.
    public var touched: (keys: Set<String>, pins: Set<String>) {
        (Set(keys.map(\.key)).union(removedKeys), Set(pins.map(\.name)).union(removedPins))
    }
}
