import ChatCore

/// The identity keys the node has seen and the nickname each one holds, as
/// the store keeps them (Schema+Keys.swift): a pure value. `plan…` returns
/// the `KeyChanges` a step commits; `apply` makes memory follow once the
/// commit returned.
///
/// Pins: a nickname (folded by `LookAlike.key`) belongs to the first key
/// seen using it, until the user verifies another key under that name
/// (`/verify NAME ok`). Any other key using the name is *changed*: shown
/// with a warning, every run, until then (SSH's known_hosts, Signal's
/// safety-number change).
///
/// Bounded: a peer can mint keys for free, so past `capacity` keys the
/// least recently seen `new` key (never talked with) and its pins go; a
/// `known` or `verified` key is never evicted. When every key is known or
/// verified the new one is not recorded (it shows as new, unpinned).
public struct KeyLedger: Sendable {
    public static let capacity = 4096
    /// Nicknames one key can hold: renaming through a thousand names
    /// cannot pin them all; the key's oldest pin goes first.
    public static let pinsPerKey = 8
    /// A key seen again this long after its first sighting counts as
    /// known, like one the user talked with (ms: 2 days).
    public static let knownAfter: Int64 = 2 * 24 * 3600 * 1000
    /// A key seen again with nothing else new is written at most this
    /// often (ms: an hour): a peer reconnecting in a loop costs no write
    /// per link, and "last seen" is kept to the hour.
    public static let lastSeenResolution: Int64 = 3600 * 1000

    /// Sightings (a key seen, its nickname, last seen) are applied in
    /// memory at once and written in batches (ChatNode+Keys.swift): within
    /// `writeDelay`, at `writeBatch` keys, before anything from such a key
    /// is stored, with any other ledger write, and at stop. A handshake
    /// flood from fresh keys is then one fsync per batch, not one per key.
    public static let writeBatch = 256
    public static let writeDelay: Duration = .seconds(1)

    public let capacity: Int
    public private(set) var keys: [String: KeyRecord] = [:]
    /// By folded nickname.
    public private(set) var pins: [String: KeyPin] = [:]
    /// Each key's pinned names (derived from `pins`).
    private var pinnedBy: [String: Set<String>] = [:]

    public init(capacity: Int = KeyLedger.capacity) {
        self.capacity = max(1, capacity)
    }

    public init(rows: KeyLedgerRows, capacity: Int = KeyLedger.capacity) {
        self.init(capacity: capacity)
        for record in rows.keys { keys[record.key] = record }
        for pin in rows.pins where keys[pin.key] != nil { setPin(pin) }
    }

    public var count: Int { keys.count }

    public func record(_ key: String) -> KeyRecord? { keys[key] }

    /// The pin of `nickname`'s folded name, if any.
    public func pin(for nickname: String) -> KeyPin? { pins[LookAlike.key(nickname)] }

    /// How `key`, using `nickname`, stands now.
    public func trust(key: String, nickname: String) -> PeerTrust {
        let record = keys[key]
        if let pin = pins[LookAlike.key(nickname)], pin.key != key {
            let previous = keys[pin.key]
            return PeerTrust(state: .changed, firstSeen: record?.firstSeen, verifiedAt: record?.verifiedAt,
                             previousKey: pin.key, previousFirstSeen: previous?.firstSeen,
                             previousVerified: previous?.trust == .verified)
        }
        return PeerTrust(state: PeerTrust.State(record?.trust ?? .new), firstSeen: record?.firstSeen, verifiedAt: record?.verifiedAt)
    }

    /// What seeing `key` use `nickname` at `now` writes: the key's row
    /// (new, or its nickname and last sighting), a pin if the name had
    /// none, and an eviction if the ledger is full.
    public func planSighting(key: String, nickname: String, now: Int64) -> KeyChanges {
        var changes = KeyChanges()
        var record: KeyRecord
        if let existing = keys[key] {
            record = existing
            record.nickname = nickname
            record.lastSeen = max(record.lastSeen, now)
            if record.trust == .new, record.lastSeen - record.firstSeen >= Self.knownAfter { record.trust = .known }
        } else {
            if keys.count >= capacity {
                guard let victim = evictionCandidate() else { return changes }  // all kept: not recorded
                changes.removedKeys.append(victim)
            }
            record = KeyRecord(key: key, nickname: nickname, firstSeen: now, lastSeen: now)
        }
        let name = LookAlike.key(nickname)
        if pins[name] == nil || changes.removedKeys.contains(where: { pins[name]?.key == $0 }) {
            changes.pins.append(KeyPin(name: name, key: key, pinnedAt: now))
            changes.removedPins += stalePins(of: key, adding: name)
        }
        if let existing = keys[key], changes.pins.isEmpty, existing.nickname == record.nickname, existing.trust == record.trust,
           record.lastSeen - existing.lastSeen < Self.lastSeenResolution {
            return changes  // nothing worth a write
        }
        changes.keys.append(record)
        return changes
    }

    /// The user talked with `key` (sent it a DM, accepted its request):
    /// a new key becomes known. Nil when nothing changes.
    public func planTalkedWith(key: String) -> KeyChanges? {
        guard var record = keys[key], record.trust == .new else { return nil }
        record.trust = .known
        var changes = KeyChanges()
        changes.keys.append(record)
        return changes
    }

    /// The user verified `key` under `nickname`: it is marked verified
    /// and the name is pinned to it (whatever held it before keeps its
    /// own row and trust). Records the key if it was not (a full ledger
    /// evicts a new key for it).
    public func planVerify(key: String, nickname: String, now: Int64) -> KeyChanges {
        var changes = KeyChanges()
        var record = keys[key] ?? KeyRecord(key: key, nickname: nickname, firstSeen: now, lastSeen: now)
        if keys[key] == nil, keys.count >= capacity, let victim = evictionCandidate() { changes.removedKeys.append(victim) }
        record.nickname = nickname
        record.trust = .verified
        record.verifiedAt = now
        changes.keys.append(record)
        let name = LookAlike.key(nickname)
        if pins[name]?.key != key {
            changes.pins.append(KeyPin(name: name, key: key, pinnedAt: now))
            changes.removedPins += stalePins(of: key, adding: name)
        }
        return changes
    }

    /// Makes memory follow a committed `changes` (same order as the store).
    public mutating func apply(_ changes: KeyChanges) {
        for key in changes.removedKeys {
            keys[key] = nil
            for name in pinnedBy.removeValue(forKey: key) ?? [] { pins[name] = nil }
        }
        for name in changes.removedPins { removePin(name) }
        for record in changes.keys { keys[record.key] = record }
        for pin in changes.pins { setPin(pin) }
    }

    /// What writes `keys` and the pins named `pins` as memory holds them
    /// now: rows for those present, removals for those gone.
    public func rows(keys wanted: Set<String>, pins names: Set<String>) -> KeyChanges {
        var changes = KeyChanges()
        for key in wanted.sorted() {
            if let record = keys[key] { changes.keys.append(record) } else { changes.removedKeys.append(key) }
        }
        for name in names.sorted() {
            if let pin = pins[name] { changes.pins.append(pin) } else { changes.removedPins.append(name) }
        }
        return changes
    }

    /// The least recently seen `new` key: O(keys), run only when full.
    private func evictionCandidate() -> String? {
        keys.values.filter { $0.trust == .new }.min { ($0.lastSeen, $0.key) < ($1.lastSeen, $1.key) }?.key
    }

    /// The pins `key` drops so that, with `name`, it holds at most `pinsPerKey`.
    private func stalePins(of key: String, adding name: String) -> [String] {
        let held = (pinnedBy[key] ?? []).subtracting([name])
        guard held.count >= Self.pinsPerKey else { return [] }
        let oldest = held.compactMap { pins[$0] }.sorted { ($0.pinnedAt, $0.name) < ($1.pinnedAt, $1.name) }
        return oldest.prefix(held.count - Self.pinsPerKey + 1).map(\.name)
    }

    private mutating func setPin(_ pin: KeyPin) {
        if let old = pins[pin.name] { pinnedBy[old.key]?.remove(pin.name) }
        pins[pin.name] = pin
        pinnedBy[pin.key, default: []].insert(pin.name)
    }

    private mutating func removePin(_ name: String) {
        guard let old = pins.removeValue(forKey: name) else { return }
        pinnedBy[old.key]?.remove(name)
    }
}
